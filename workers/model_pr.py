"""A PR on a model repo: its results files checked, verified and reported in the PR's one living
comment."""

from __future__ import annotations

from bot.eee.sourcecheck import check_sources
from bot.hub.errors import HubFileTooLarge, HubPermanentError, HubTransientError
from bot.hub.pulls import PullRequest
from bot.hub.records import SOURCE_CALLS_PER_RUN, HubRecordReader, ReadBudget
from bot.hub.sources import HubBenchmarkSource
from bot.report.comment import (
    CommentContext,
    RecheckNote,
    head_of_comment,
    recheck_of_comment,
    render_comment,
)
from bot.report.comment_texts import REPORT_MARKER
from bot.report.counts import count_reports
from bot.store.records import RedisRecordCache
from bot.store.verdicts import verdict_of
from bot.tokens.verify import verify_reports
from bot.validation import diagnostics
from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import FileReport
from bot.validation.validate import validate_results_files
from workers.commands import (
    HeardCommand,
    answer_help,
    latest_recheck,
    maintainers_digest,
    remember_strangers,
    strangers,
)
from workers.model_history import record_checked, record_verdict
from workers.outcomes import Outcome
from workers.pr_lease import Lease
from workers.runtime import Runtime
from workers.standing_and_clashes import CampaignInputs, campaign_sections
from workers.token_times import TokenTimes


def run_model_event(
    pr: PullRequest,
    command: HeardCommand | None,
    runtime: Runtime,
    lease: Lease,
    *,
    private_hint: bool | None,
) -> Outcome:
    """One event on a model PR (read, at a head): a recheck, a `help`, or the report brought up
    to date; `private_hint`: the webhook's `repo.private` (`repo_visibility`)."""
    assert pr.head_sha is not None
    # What this read tells about the commenters costs nothing more: the receiver drops the
    # next commands of those who are no maintainers without a Hub call (`remember_strangers`).
    remember_strangers(
        runtime.redis,
        pr.repo_id,
        strangers(pr, runtime.bot_name, runtime.maintainers),
        maintainers_digest(runtime.maintainers),
    )
    if command is not None and command.word == "recheck":
        return _recheck(pr, pr.head_sha, runtime, lease, private_hint)
    if command is not None:
        if command.comment is None:
            return Outcome.COMMAND_IGNORED
        return answer_help(
            pr,
            command.comment,
            runtime.bot_name,
            lease,
            lambda body: runtime.hub.post_comment(pr.repo_id, pr.num, body),
        )
    return _report(pr, pr.head_sha, runtime, lease, private_hint=private_hint)


def _recheck(
    pr: PullRequest, head_sha: str, runtime: Runtime, lease: Lease, private_hint: bool | None
) -> Outcome:
    """Answer the latest maintainer's recheck of this head, whichever ask queued the run.

    Rechecks are coalesced (bot/queue/publishing.py), so the run answers every ask made before
    it read the PR: the latest by a maintainer goes in the footer (the visible trace, at the
    cost of the one edit). A run whose latest ask the report already names was read after
    it by an earlier run: nothing to do. No maintainer's ask: the command is ignored."""
    asked = latest_recheck(pr, runtime.bot_name, runtime.maintainers)
    if asked is None:
        return Outcome.COMMAND_IGNORED
    existing = pr.find_bot_comment(runtime.bot_name, REPORT_MARKER)
    if (
        existing is not None
        and recheck_of_comment(existing.raw) == asked.id.lower()
        and head_of_comment(existing.raw) == head_sha
    ):
        return Outcome.COALESCED
    return _report(pr, head_sha, runtime, lease, asked=True, private_hint=private_hint)


def _report(
    pr: PullRequest,
    head_sha: str,
    runtime: Runtime,
    lease: Lease,
    *,
    asked: bool = False,
    private_hint: bool | None = None,
) -> Outcome:
    """Bring the report up to date; `asked`: a maintainer's recheck, answered with a report
    even on a PR that touches no results file (else the ask would leave no trace);
    `private_hint`: the webhook's `repo.private` (`repo_visibility`)."""
    existing = pr.find_bot_comment(runtime.bot_name, REPORT_MARKER)
    if not pr.touches_results and existing is None and not asked:
        record_checked(pr, head_sha, runtime)
        return Outcome.NO_RESULTS
    if existing is not None and not pr.may_replace(head_of_comment(existing.raw), head_sha):
        return Outcome.STALE
    files, unreadable = _read_results(pr, head_sha, runtime)
    source = HubBenchmarkSource(runtime.hub, benchmark_from_eval_yaml, runtime.benchmark_cache)
    reports = sorted(
        validate_results_files(files, source, policy=runtime.policy) + unreadable,
        key=lambda report: report.path,
    )
    check_sources(
        reports,
        HubRecordReader(
            runtime.hub, ReadBudget(SOURCE_CALLS_PER_RUN), RedisRecordCache(runtime.redis)
        ),
        model_repo=pr.repo_id,
        hub_url=runtime.hub_url,
        datastores=runtime.source_datastores,
    )
    token_times = TokenTimes(pr, runtime)
    verify_reports(
        reports,
        model_repo=pr.repo_id,
        registry=runtime.registry,
        binder=runtime.binder,
        reference_time=token_times.reference_time,
    )
    extra = _campaign_sections(pr, head_sha, reports, source, runtime)
    body = render_comment(
        reports,
        CommentContext(
            repo_id=pr.repo_id,
            pr_num=pr.num,
            head_sha=head_sha,
            bot_name=runtime.bot_name,
            pr_state=pr.status.value,
            removed_files=pr.removed_result_files,
            misplaced_files=pr.misplaced_files,
            hub_url=runtime.hub_url,
            extra_sections=extra,
            recheck=_recheck_note(pr, runtime),
            pages_url=runtime.public_url,
        ),
    )
    if existing is not None and existing.raw == body:
        outcome = Outcome.UNCHANGED
    elif existing is not None:
        lease.still_held()
        runtime.hub.edit_comment(pr.repo_id, pr.num, existing.id, body)
        outcome = Outcome.EDITED
    else:
        lease.still_held()
        runtime.hub.post_comment(pr.repo_id, pr.num, body)
        outcome = Outcome.POSTED
    verdict = verdict_of(
        head_sha,
        outcome.value,
        pr.status.value,
        count_reports(reports),
        runtime.clock(),
        reports=reports,
        title=pr.title,
        author=pr.author,
    )
    record_verdict(pr, head_sha, runtime, verdict, private_hint)
    return outcome


def _campaign_sections(
    pr: PullRequest,
    head_sha: str,
    reports: list[FileReport],
    source: HubBenchmarkSource,
    runtime: Runtime,
) -> list[str]:
    """Collection standing and claims made elsewhere, when `config/bot.yaml` turns them on."""
    if runtime.repo_reader is None or runtime.campaign is None:
        return []
    inputs = CampaignInputs(pr, head_sha, reports, source, runtime.policy, runtime.hub_url)
    return campaign_sections(inputs, runtime.campaign, runtime.repo_reader, runtime.redis)


def _recheck_note(pr: PullRequest, runtime: Runtime) -> RecheckNote | None:
    """The footer's trace of the latest maintainer's recheck of this head, if any."""
    asked = latest_recheck(pr, runtime.bot_name, runtime.maintainers)
    if asked is None or asked.created_at is None:
        return None
    return RecheckNote(comment_id=asked.id, author=asked.author, asked_at=asked.created_at)


def _read_results(
    pr: PullRequest, head_sha: str, runtime: Runtime
) -> tuple[dict[str, bytes], list[FileReport]]:
    """The PR's results files at `head_sha`, and a report for each the Hub would not serve.

    A file that vanished is a reason to re-read the PR: the details named these files at this
    head a moment ago, so a 404 means the PR changed under us (a force-push whose old commit
    is gone) or a Hub replica lags; a retry re-reads the PR and reports on what is there then.
    A file the Hub refuses to serve otherwise (a 403, a redirect loop, a `file:` target) or
    declares over the size cap is an error of that file in the report, with the Hub's
    reason; the others are still read and checked."""
    files: dict[str, bytes] = {}
    unreadable: list[FileReport] = []
    for path in pr.result_files:
        try:
            files[path] = runtime.hub.read_file(pr.repo_id, path, head_sha)
        except HubPermanentError as error:
            if not error.not_found:
                unreadable.append(FileReport(path, "results", [_unreadable(error)]))
                continue
            raise HubTransientError(
                f"a results file vanished at {head_sha[:12]}: {error}", status=error.status
            ) from error
    return files, unreadable


def _unreadable(error: HubPermanentError) -> Diagnostic:
    """The diagnostic for a file that was not read: the usual size error when that is why."""
    if isinstance(error, HubFileTooLarge):
        return diagnostics.make("YAML-TOO-LARGE", size=error.size, limit=error.limit)
    return diagnostics.make("FILE-UNREADABLE", reason=str(error))
