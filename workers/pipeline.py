"""The pipeline: one PR event in, the PR's single report comment brought up to date.

    hub (the PR, read once at its head) -> spec (validate) -> tokens (verify)
        -> report (render) -> hub (post, or edit in place)

Every run is idempotent, so a task may run twice (late ack, webhook retries, a recheck) and the
PR still ends with one correct comment:
- the PR is re-read from the Hub API; the webhook payload is only a hint
  (docs/hub-api.md#receiving-webhooks);
- the bot's comment is found again by its hidden marker and edited, never posted twice; a body
  equal to what is there is not written at all;
- one run per PR at a time (`workers.pr_lease`), and a report never replaces one for a newer head
  of the PR's timeline (`PullRequest.may_replace`);
- a token's freshness is judged at the Hub time of the commit that introduced it, recorded the
  first time it is seen, so a recheck a week later reaches the same verdict
  (docs/decisions.md#tokens).

**Rechecks and strangers** (`latest_recheck`, `strangers`): who asked for a recheck, and who is
a stranger, decided from the PR as read, with no Hub call.
A recheck is answered from the PR's discussion details (one read, which every run makes
anyway), not from the webhook that triggered the run: rechecks are coalesced (the receiver
queues at most one run at once and one a little later per PR, `bot.queue.publishing`), so one
run answers every ask made before it read the PR. The footer names the latest recheck by a
maintainer made after the head was pushed (`latest_recheck`), so every run at the same PR
state renders the same comment, retries and reconciliation included.

Commenters found to be no maintainer of the repo are remembered for `keys.STRANGER_TTL_S`
(`stranger_key`, keyed by the Hub's author id, the only name a comment webhook carries), so the
receiver drops their next commands without queueing them or calling the Hub. Each record holds
the digest of the allow-list it was decided under; the receiver drops a command only while it
equals the digest the workers last wrote (`keys.MAINTAINERS_DIGEST`), so adding a user to the
allow-list takes effect with the first run of a worker that has the new list.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Collection
from datetime import UTC, datetime
from enum import StrEnum

import redis

from bot.eee.sourcecheck import check_sources
from bot.hub.budget import counting
from bot.hub.errors import (
    HubError,
    HubFileTooLarge,
    HubPermanentError,
    HubTransientError,
)
from bot.hub.pulls import PrComment, PullRequest
from bot.hub.records import SOURCE_CALLS_PER_RUN, HubRecordReader, ReadBudget
from bot.hub.sources import HubBenchmarkSource, token_commit_time
from bot.logs import log_json
from bot.queue.events import PrEvent, parse_command
from bot.report.comment import (
    CommentContext,
    RecheckNote,
    count_reports,
    head_of_comment,
    help_reply_marker,
    recheck_of_comment,
    render_comment,
    render_help,
)
from bot.report.comment_texts import REPORT_MARKER
from bot.store import keys
from bot.store.history import Verdict, add_verdict, recent_visibility, verdict_of
from bot.store.records import RedisRecordCache
from bot.tokens.verify import verify_reports
from bot.validation import diagnostics
from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import BenchmarkLookup, EntryReport, FileReport, same_hub_name
from bot.validation.validate import validate_results_files
from workers.benchmark_pr import lease_repo, run_benchmark_event
from workers.datastore_pr import datastore_policy, run_datastore_event
from workers.pr_lease import Lease, as_text, pr_lease
from workers.runtime import Runtime
from workers.standing_and_clashes import CampaignInputs, campaign_sections

log = logging.getLogger("evalbot.worker")

#: How long the bot remembers a PR's last verdict and a token's first-seen time (seconds).
VERDICT_TTL_S = 90 * 24 * 3600


class Outcome(StrEnum):
    """What a run did; logged per run and counted (stable metric labels)."""

    POSTED = "posted"
    EDITED = "edited"
    UNCHANGED = "unchanged"
    NO_RESULTS = "no-results"  # the PR touches no result file and has no report to update
    NOT_A_PR = "not-a-pr"
    STALE = "stale"  # the comment already reflects a newer head
    HELP_SENT = "help-sent"
    HELP_ALREADY_SENT = "help-already-sent"
    COMMAND_IGNORED = "command-ignored"  # not a maintainer, the bot itself, or a gone comment
    COALESCED = "coalesced"  # a recheck an earlier run already answered (read after the ask)


def run_event(event: PrEvent, runtime: Runtime, *, owner: str | None = None) -> Outcome:
    """Process one event; raises `LeaseBusy`, `LeaseLost`, `HubError` or
    `VerificationUnavailable` for the task to retry (nothing is written in those cases
    that a retry would not write again identically). `owner` (the task id) names the PR
    lease's holder, so a rerun of a message whose worker died takes its lease over."""
    started = time.perf_counter()
    waited_s = event.waited_s(datetime.now(UTC))
    ttl = runtime.lease_ttl_s
    with counting() as calls:  # every Hub request of the run (`bot.hub.budget`)
        if event.repo_type == "dataset":  # a benchmark's eval.yaml (workers.benchmark_pr)
            repo = lease_repo(event.repo_id)
            with pr_lease(runtime.redis, repo, event.pr_num, ttl, owner=owner) as lease:
                datastore = datastore_policy(runtime, event.repo_id)  # an EEE datastore's PR
                if datastore is not None:
                    outcome = Outcome(run_datastore_event(event, runtime, lease, datastore))
                else:
                    outcome = Outcome(run_benchmark_event(event, runtime, lease))
            _log_run(event, None, outcome, started, waited_s, hub_calls=calls.made)
            return outcome
        with pr_lease(runtime.redis, event.repo_id, event.pr_num, ttl, owner=owner) as lease:
            pr = runtime.hub.pull_request(event.repo_id, event.pr_num)
            outcome = _run(event, pr, runtime, lease)
    _log_run(event, pr.head_sha, outcome, started, waited_s, hub_calls=calls.made)
    return outcome


def _log_run(
    event: PrEvent,
    head: str | None,
    outcome: Outcome,
    started: float,
    waited_s: float | None,
    *,
    hub_calls: int,
) -> None:
    log_json(
        log,
        logging.INFO,
        "pr event processed",
        delivery=event.delivery_id,
        repo=event.repo_id,
        pr=event.pr_num,
        kind=event.kind,
        head=head,
        outcome=outcome.value,
        ms=round((time.perf_counter() - started) * 1000, 1),
        # Accepted by the receiver -> this run started: the queue, retries and redeliveries.
        queued_ms=None if waited_s is None else round(waited_s * 1000, 1),
        hub_calls=hub_calls,
    )


def _run(event: PrEvent, pr: PullRequest, runtime: Runtime, lease: Lease) -> Outcome:
    if not pr.is_pull_request or pr.head_sha is None:
        return Outcome.NOT_A_PR
    # What this read tells about the commenters costs nothing more: the receiver drops the
    # next commands of those who are no maintainers without a Hub call (`remember_strangers`).
    remember_strangers(
        runtime.redis,
        pr.repo_id,
        strangers(pr, runtime.bot_name, runtime.maintainers),
        maintainers_digest(runtime.maintainers),
    )
    if event.kind == "command" and event.command == "recheck":
        return _recheck(pr, pr.head_sha, runtime, lease, event.repo_private)
    if event.kind == "command":
        handled = _command(event, pr, runtime, lease)
        if handled is not None:
            return handled
    return _report(pr, pr.head_sha, runtime, lease, private_hint=event.repo_private)


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


def _command(event: PrEvent, pr: PullRequest, runtime: Runtime, lease: Lease) -> Outcome | None:
    """Answer `help`; ignore anyone but maintainers."""
    comment = pr.comment(event.comment_id) if event.comment_id else None
    if comment is None or comment.hidden or same_hub_name(comment.author, runtime.bot_name):
        return Outcome.COMMAND_IGNORED
    if not comment.by_maintainer(pr.repo_id, runtime.maintainers):
        return Outcome.COMMAND_IGNORED
    if event.command != "help":
        return None
    marker = help_reply_marker(comment.id)
    if any(same_hub_name(c.author, runtime.bot_name) and marker in c.raw for c in pr.comments):
        return Outcome.HELP_ALREADY_SENT  # a retry after the Hub accepted our reply
    lease.still_held()
    runtime.hub.post_comment(pr.repo_id, pr.num, render_help(runtime.bot_name, reply_to=comment.id))
    return Outcome.HELP_SENT


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
        _record_checked(pr, head_sha, runtime)
        return Outcome.NO_RESULTS
    if existing is not None and not pr.may_replace(head_of_comment(existing.raw), head_sha):
        return Outcome.STALE
    files, unreadable = _read_results(pr, head_sha, runtime)
    source = HubBenchmarkSource(runtime.hub, _parse_eval_yaml, runtime.benchmark_cache)
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
    _record_verdict(pr, head_sha, runtime, verdict, private_hint)
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
    Parking it (a permanent 404) left the PR without a report (found by the fault suite).
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


def _parse_eval_yaml(repo_id: str, sha: str, content: bytes) -> BenchmarkLookup:
    return benchmark_from_eval_yaml(repo_id, content, sha)


def verdict_key(repo_id: str, pr_num: int) -> str:
    return keys.verdict(repo_id, pr_num)


def checked_key(repo_id: str, pr_num: int) -> str:
    return keys.checked(repo_id, pr_num)


#: Every repo that ever had a verdict: reconciliation watches them besides the configured ones.
VERDICT_REPOS = keys.VERDICT_REPOS


def _record_verdict(
    pr: PullRequest,
    head_sha: str,
    runtime: Runtime,
    verdict: Verdict,
    private_hint: bool | None,
) -> None:
    """Remember which head the PR's comment reflects (reconciliation looks for gaps), and the
    verdict in the PR's history (the web pages), in one round trip; the repo's visibility
    (`repo_visibility`) decides whether the pages may show it."""
    visibility, read = repo_visibility(runtime, pr.repo_id, private_hint)
    pipe = runtime.redis.pipeline(transaction=False)
    pipe.set(verdict_key(pr.repo_id, pr.num), head_sha, ex=VERDICT_TTL_S)
    pipe.sadd(VERDICT_REPOS, pr.repo_id)
    add_verdict(pipe, pr.repo_id, pr.num, verdict, visibility=visibility, read_from_hub=read)
    pipe.execute()


def repo_visibility(runtime: Runtime, repo_id: str, private_hint: bool | None) -> tuple[str, bool]:
    """The model repo's visibility for the pages, and whether the Hub was asked for it.

    A webhook names `repo.private`: private is taken at its word, with no call. Whether a
    public repo is gated is in no payload, so the visibility read from the Hub (`repos.info`)
    stands for `VISIBILITY_FRESH_S` (`recent_visibility`; this process remembers it as long,
    `Runtime.visibilities`, so a run makes no round trip for it), unless the webhook
    contradicts it (a repo recorded private whose webhook says it is not is read again). A
    Hub that does not answer hides the history (fail closed): the comment is posted, the run
    is kept."""
    if private_hint is True:
        return "private", False
    known = runtime.visibilities.get(repo_id)  # this process's, to save a round trip
    if known is None:
        known = recent_visibility(runtime.redis, repo_id)
        if known is not None:
            runtime.visibilities.put(repo_id, known)
    if known is not None and not (known == "private" and private_hint is False):
        return known, False
    try:
        visibility = runtime.hub.repo_visibility(repo_id)
    except HubError:
        return "unknown", False
    runtime.visibilities.put(repo_id, visibility)
    return visibility, True


def _record_checked(pr: PullRequest, head_sha: str, runtime: Runtime) -> None:
    """Remember a head that needed no report (no result files), so reconciliation does not
    queue the PR again every interval."""
    runtime.redis.set(checked_key(pr.repo_id, pr.num), head_sha, ex=VERDICT_TTL_S)


class TokenTimes:
    """The reference time of each token: the Hub time of the commit that introduced it.

    Looked up once per (model repo, token) and kept in Redis, so re-runs (rechecks, retries, a
    later push) judge freshness at the same moment and cost no Hub calls. When the token's
    commit cannot be found, the PR head's Hub time stands in; failing that, the worker's clock.
    """

    def __init__(self, pr: PullRequest, runtime: Runtime) -> None:
        self._pr = pr
        self._runtime = runtime

    def reference_time(self, file_report: FileReport, entry_report: EntryReport) -> datetime:
        token = entry_report.entry.token
        if token is None:  # not called for entries without a token; a safe answer anyway
            return self._runtime.clock()
        digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
        key = keys.token_time(self._pr.repo_id, digest)
        known = self._runtime.redis.get(key)
        if known is not None:
            return datetime.fromisoformat(as_text(known))
        found = token_commit_time(self._runtime.hub, self._pr, file_report.path, token)
        moment = found or self._head_time() or self._runtime.clock()
        # The first writer wins, so concurrent first sightings agree on one moment (one round
        # trip: a pipeline's commands run in order, so the GET sees the winner's value).
        first = self._runtime.redis.pipeline(transaction=False)
        first.set(key, moment.isoformat(), nx=True, ex=VERDICT_TTL_S)
        first.get(key)
        stored = first.execute()[1]
        return datetime.fromisoformat(as_text(stored)) if stored is not None else moment

    def _head_time(self) -> datetime | None:
        return self._pr.commits[-1].created_at if self._pr.commits else None


def latest_recheck(
    pr: PullRequest, bot_name: str, maintainers: Collection[str]
) -> PrComment | None:
    """The latest visible `recheck` comment by a maintainer posted after the head commit."""
    head = next((c for c in pr.commits if c.oid == pr.head_sha), None)
    since = head.created_at if head is not None else None
    for comment in reversed(pr.comments):
        if comment.hidden or same_hub_name(comment.author, bot_name):
            continue
        if parse_command(comment.raw, bot_name) != "recheck":
            continue
        if since is not None and comment.created_at is not None and comment.created_at < since:
            return None  # older asks were for an older head (the timeline is in order)
        if comment.by_maintainer(pr.repo_id, maintainers):
            return comment
    return None


def strangers(pr: PullRequest, bot_name: str, maintainers: Collection[str]) -> set[str]:
    """Author ids of the PR's commenters who may not command the bot on this repo."""
    return {
        comment.author_id
        for comment in pr.comments
        if comment.author_id
        and comment.author not in (bot_name, "deleted")
        and not comment.by_maintainer(pr.repo_id, maintainers)
    }


def maintainers_digest(maintainers: Collection[str]) -> str:
    """A short digest of the allow-list (names compare case-insensitively)."""
    canonical = "\n".join(sorted({name.lower() for name in maintainers}))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def remember_strangers(
    client: redis.Redis, repo_id: str, author_ids: Collection[str], digest: str
) -> None:
    """Record `author_ids` as strangers of `repo_id` (one round trip; best effort: a failure
    only means their next command is decided by a worker again)."""
    if not author_ids:
        return
    pipe = client.pipeline(transaction=False)
    pipe.set(keys.MAINTAINERS_DIGEST, digest)
    for author_id in sorted(author_ids):
        pipe.set(keys.stranger(repo_id, author_id), digest, ex=keys.STRANGER_TTL_S)
    try:
        pipe.execute()
    except redis.RedisError:
        return
