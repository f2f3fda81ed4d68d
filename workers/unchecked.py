"""A parked run's trace on the PR: the living comment says the current head was not checked, and
why, best effort (docs/reliability.md, "A head that was not checked")."""

from __future__ import annotations

import logging

import redis

from bot.eee import comment_texts as eee_comment_texts
from bot.eee.paths import is_datastore_file
from bot.hub.errors import HubError
from bot.hub.pulls import PrStatus, PullRequest
from bot.logs import log_json
from bot.queue.events import PrEvent
from bot.report import comment_texts
from bot.report.comment import CommentContext, head_of_comment
from bot.report.unchecked_comment import is_unchecked, render_unchecked
from workers.benchmark_pr import touches_eval_yaml
from workers.datastore_pr import datastore_changes, datastore_policy
from workers.pr_lease import Lease, LeaseBusy, LeaseLost, lease_repo, pr_lease
from workers.runtime import Runtime

log = logging.getLogger("evalbot.worker")


def why_not_checked(reason: str, status: int | None = None) -> str:
    """The comment's words for a parking reason (`workers.retry_policy.Park.reason`)."""
    text = comment_texts.NOT_CHECKED_WHY.get(reason)
    if text is None:
        return comment_texts.NOT_CHECKED_OTHER.format(reason=reason)
    shown = comment_texts.NOT_CHECKED_STATUS.format(status=status) if status is not None else ""
    return text.format(status=shown)


def mark_unchecked(runtime: Runtime, event: PrEvent, why: str, *, owner: str | None) -> str:
    """Say on the PR that its current head was not checked; what was done, for the log."""
    try:
        with pr_lease(
            runtime.redis, lease_repo(event), event.pr_num, runtime.lease_ttl_s, owner=owner
        ) as lease:
            done = _mark(runtime, event, why, lease)
    except LeaseBusy:
        done = "busy"  # a run is on the PR: it writes the comment
    except (HubError, LeaseLost, redis.RedisError) as error:
        done = f"failed: {type(error).__name__}"
    log_json(
        log,
        logging.INFO,
        "unchecked head noted",
        delivery=event.delivery_id,
        repo=event.repo_id,
        pr=event.pr_num,
        result=done,
    )
    return done


def _mark(runtime: Runtime, event: PrEvent, why: str, lease: Lease) -> str:
    dataset = event.repo_type == "dataset"
    if dataset:
        if runtime.datasets is None:
            return "not-checked-here"
        pr = runtime.datasets.dataset_pull_request(event.repo_id, event.pr_num)
    else:
        pr = runtime.hub.pull_request(event.repo_id, event.pr_num)
    if not pr.is_pull_request or pr.head_sha is None:
        return "not-a-pr"
    existing = pr.find_bot_comment(runtime.bot_name, comment_texts.REPORT_MARKER)
    if existing is None:
        if pr.status not in (PrStatus.OPEN, PrStatus.DRAFT) or not _checked(runtime, pr, dataset):
            return "nothing-to-check"
    else:
        shown = head_of_comment(existing.raw)
        if shown == pr.head_sha and not is_unchecked(existing.raw):
            return "verdict-stands"  # a later run reported on the current head
        if not pr.may_replace(shown, pr.head_sha):
            return "stale"
    context = CommentContext(
        repo_id=pr.repo_id,
        pr_num=pr.num,
        head_sha=pr.head_sha,
        bot_name=runtime.bot_name,
        pr_state=pr.status.value,
        hub_url=runtime.hub_url,
        repo_type="dataset" if dataset else "model",
    )
    body = render_unchecked(context, _title(runtime, pr, dataset), why)
    if existing is not None and existing.raw == body:
        return "unchanged"
    lease.still_held()
    if dataset:
        assert runtime.datasets is not None
        if existing is not None:
            runtime.datasets.edit_comment(
                pr.repo_id, pr.num, existing.id, body, repo_type="dataset"
            )
            return "edited"
        runtime.datasets.post_comment(pr.repo_id, pr.num, body, repo_type="dataset")
        return "posted"
    if existing is not None:
        runtime.hub.edit_comment(pr.repo_id, pr.num, existing.id, body)
        return "edited"
    runtime.hub.post_comment(pr.repo_id, pr.num, body)
    return "posted"


def _checked(runtime: Runtime, pr: PullRequest, dataset: bool) -> bool:
    """Whether the PR changes a file the bot checks (with no comment yet, a notice on a PR of
    nothing to check would be noise)."""
    if not dataset:
        return pr.touches_results
    if datastore_policy(runtime, pr.repo_id) is not None:
        return (
            any(
                is_datastore_file(c.path) or c.path.endswith(".jsonl")
                for c in datastore_changes(pr.diff_files)
            )
            or not pr.has_diff
        )
    return touches_eval_yaml(pr)


def _title(runtime: Runtime, pr: PullRequest, dataset: bool) -> str:
    if dataset and datastore_policy(runtime, pr.repo_id) is not None:
        return eee_comment_texts.TITLE
    return comment_texts.TITLE
