"""A PR on a benchmark dataset: its eval.yaml checked like a push, and what the change does to
the results that already reference the benchmark, in the PR's one living comment
(docs/comment.md, "PRs on benchmark datasets"; calls: docs/hub.md, "Benchmark PRs")."""

from __future__ import annotations

from bot.hub.errors import HubPermanentError
from bot.hub.pulls import PullRequest
from bot.hub.repo_results import DatasetPrClient
from bot.report.benchmark_impact import render_impact
from bot.report.comment import CommentContext, head_of_comment, render_comment
from bot.report.comment_texts import REPORT_MARKER
from bot.validation import diagnostics
from bot.validation.benchmark import parse_benchmark
from bot.validation.impact import Impact, ResultRef, assess, compare, referencing
from bot.validation.model import Benchmark, FileReport
from workers.commands import HeardCommand
from workers.outcomes import Outcome
from workers.pr_lease import Lease
from workers.runtime import Runtime

EVAL_YAML = "eval.yaml"
#: Results files read per run to find the results a change affects (the rest are counted).
MAX_FILES = 30


def touches_eval_yaml(pr: PullRequest) -> bool:
    if not pr.has_diff:
        return True  # no diff to tell: check it
    return any(EVAL_YAML in (f.old_path, f.new_path) for f in pr.diff_files)


def benchmark_report(
    pr: PullRequest, client: DatasetPrClient
) -> tuple[FileReport, Impact | None, int]:
    """The eval.yaml's report at the PR head, the impact on existing results, files not read."""
    assert pr.head_sha is not None
    new_content = _read(client, pr.repo_id, pr.head_sha)
    report = FileReport(EVAL_YAML, "benchmark")
    if new_content is None:
        report.diagnostics.append(
            diagnostics.make("FILE-UNREADABLE", reason="the PR removes eval.yaml")
        )
        return report, None, 0
    new, found = parse_benchmark(pr.repo_id, new_content, pr.head_sha)
    report.diagnostics.extend(found)
    base = pr.commits[0].parents[0] if pr.commits and pr.commits[0].parents else None
    old_content = _read(client, pr.repo_id, base or pr.target_branch or "main")
    old: Benchmark | None = None
    if old_content is not None:
        old, _ = parse_benchmark(pr.repo_id, old_content, base)
    if new is None or old is None:
        return report, None, 0
    changes = compare(old, new)
    if not changes:
        entries = client.leaderboard(pr.repo_id)
        return report, Impact((), (), (), len(entries)), 0
    results, unread = _results(client, pr.repo_id)
    return report, assess(changes, results), unread


def _read(client: DatasetPrClient, repo_id: str, revision: str) -> bytes | None:
    try:
        return client.read_file(repo_id, EVAL_YAML, revision, repo_type="dataset")
    except HubPermanentError as error:
        if error.not_found:
            return None
        raise


def _results(client: DatasetPrClient, benchmark_id: str) -> tuple[list[ResultRef], int]:
    """The entries naming the benchmark in each results file its leaderboard lists."""
    files: dict[tuple[str, str, int | None], None] = {}
    for entry in client.leaderboard(benchmark_id):
        files.setdefault((entry.model_id, entry.filename, entry.pull_request), None)
    results: list[ResultRef] = []
    keys = list(files)
    for model_id, path, pr in keys[:MAX_FILES]:
        revision = f"refs/pr/{pr}" if pr is not None else "main"
        try:
            content = client.read_file(model_id, path, revision)
        except HubPermanentError as error:
            if error.not_found:
                continue  # gone since the listing
            raise
        results.extend(referencing(content, benchmark_id, model_id, path, pr))
    return results, max(0, len(keys) - MAX_FILES)


def render_benchmark_comment(
    pr: PullRequest,
    report: FileReport,
    impact: Impact | None,
    unread: int,
    *,
    bot_name: str,
    hub_url: str,
) -> str:
    assert pr.head_sha is not None
    return render_comment(
        [report],
        CommentContext(
            repo_id=pr.repo_id,
            pr_num=pr.num,
            head_sha=pr.head_sha,
            bot_name=bot_name,
            pr_state=pr.status.value,
            hub_url=hub_url,
            extra_sections=[render_impact(impact, unread)],
            repo_type="dataset",
        ),
    )


def run_benchmark_event(
    pr: PullRequest,
    command: HeardCommand | None,
    runtime: Runtime,
    lease: Lease,
    client: DatasetPrClient,
) -> Outcome:
    """One event on a benchmark PR (read, at a head). A `recheck` from a maintainer re-runs the
    check; `help` is answered on model PRs and datastores only."""
    assert pr.head_sha is not None
    if command is not None and (command.word != "recheck" or command.comment is None):
        return Outcome.COMMAND_IGNORED
    existing = pr.find_bot_comment(runtime.bot_name, REPORT_MARKER)
    if existing is None and not touches_eval_yaml(pr):
        return Outcome.NO_RESULTS
    if existing is not None and not pr.may_replace(head_of_comment(existing.raw), pr.head_sha):
        return Outcome.STALE
    report, impact, unread = benchmark_report(pr, client)
    body = render_benchmark_comment(
        pr, report, impact, unread, bot_name=runtime.bot_name, hub_url=runtime.hub_url
    )
    if existing is not None and existing.raw == body:
        return Outcome.UNCHANGED
    lease.still_held()
    if existing is not None:
        client.edit_comment(pr.repo_id, pr.num, existing.id, body, repo_type="dataset")
        return Outcome.EDITED
    client.post_comment(pr.repo_id, pr.num, body, repo_type="dataset")
    return Outcome.POSTED
