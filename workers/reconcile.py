"""Reconciliation's I/O: the periodic task that queues an `updated` event for each open PR whose
head has no verdict, as a missed webhook would have (docs/operating.md, "Reconciliation")."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import redis
from celery import shared_task

from bot.hub.client import OpenPullRequest, OpenPullRequests
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.queue.events import DedupeKey
from bot.queue.publishing import publish
from bot.store import keys
from bot.store.history import hide_repo
from workers.app import RECONCILE_TASK
from workers.hub_pause import HubPause, pause_for
from workers.pr_lease import as_text, release
from workers.reconcile_plan import (
    CALLS_PER_REPO,
    DATASETS,
    CatchUp,
    affordable,
    datastore_entries,
    missing_verdicts,
    next_cursor,
    repos_for_run,
    repos_in_order,
)
from workers.runtime import Runtime
from workers.tasks import runtime_for_process

log = logging.getLogger("evalbot.reconcile")


@dataclass(slots=True)
class RunReport:
    """What one run did (logged, counted, returned by the task)."""

    result: str = "completed"  # completed, budget-exhausted, rate-limited, skipped-*
    # (skipped-busy, skipped-backlog, skipped-paused: the fleet-wide Hub pause is on)
    repos: int = 0
    hub_calls: int = 0
    hub_errors: int = 0
    missing: int = 0
    queued: int = 0
    duplicates: int = 0


@shared_task(name=RECONCILE_TASK, ignore_result=True)
def reconcile() -> str:
    return reconcile_once(runtime_for_process()).result


def reconcile_once(runtime: Runtime) -> RunReport:
    """One reconciliation run (see the module's docstring); Redis errors propagate."""
    config = runtime.reconcile
    client = runtime.redis
    report = RunReport()
    token = secrets.token_hex(16)
    # The lock outlives a normal run but not a crashed one by more than an interval.
    if not client.set(keys.RECONCILE_LOCK, token, nx=True, ex=max(60, config.interval_s)):
        report.result = "skipped-busy"
        _count(client, report)
        return report
    try:
        if client.llen(runtime.queue_name) > config.limits.max_backlog:
            report.result = "skipped-backlog"
        elif HubPause(client).remaining_now() > 0:
            report.result = "skipped-paused"  # the Hub told a worker to wait: so do we
        else:
            _run(runtime, report)
    finally:
        release(client, keys.RECONCILE_LOCK, token)
    _count(client, report)
    log.info(
        "reconciliation run",
        extra={
            "result": report.result,
            "repos": report.repos,
            "hub_calls": report.hub_calls,
            "hub_errors": report.hub_errors,
            "missing": report.missing,
            "queued": report.queued,
            "duplicates": report.duplicates,
        },
    )
    return report


def _run(runtime: Runtime, report: RunReport) -> None:
    limits = runtime.reconcile.limits
    client = runtime.redis
    known = [as_text(repo) for repo in client.smembers(keys.VERDICT_REPOS)]
    repos = repos_in_order(runtime.reconcile.watched_repos, known)
    if runtime.datastore_hub is not None:
        repos += datastore_entries(runtime.datastores)
    cursor = int(client.get(keys.RECONCILE_CURSOR) or 0)
    pending: list[CatchUp] = []
    attempted = 0
    for repo_id in repos_for_run(repos, cursor, limits.max_repos):
        if not affordable(limits.max_hub_calls - report.hub_calls) or (
            len(pending) >= limits.max_queued
        ):
            report.result = "budget-exhausted"
            break
        attempted += 1
        try:
            listing = _open_prs(runtime, repo_id, limits.max_prs_per_repo)
        except HubTransientError as error:
            report.hub_errors += 1
            pause_s = pause_for(error)
            if pause_s is not None:
                HubPause(client).extend(pause_s)  # the workers wait with us (workers.hub_pause)
            if pause_s is not None or error.status == 429:
                # The Hub asked for quiet (or rate-limited us): stop listing; the next run
                # continues with this repo.
                report.result = "rate-limited"
                attempted -= 1
                break
            continue
        except HubPermanentError as error:
            report.hub_errors += 1  # a repo gone or closed to the bot: counted, skipped
            if repo_id.startswith(DATASETS):
                continue  # a configured datastore: its own runs record what the pages show
            if error.not_found or error.status == 403:
                # private or deleted since its last verdict, or refused: its history leaves the
                # pages (no verdict will come to say so). A 401 without `RepoNotFound` rejects
                # the bot's own token and says nothing of the repo (docs/hub.md#errors).
                hide_repo(client, repo_id)
            if error.not_found and repo_id not in runtime.reconcile.watched_repos:
                client.srem(keys.VERDICT_REPOS, repo_id)  # deleted or private now: stop asking
            continue
        report.repos += 1
        report.hub_calls += listing.hub_calls
        recorded = _recorded_heads(client, repo_id, [pr.num for pr in listing.prs])
        pending.extend(missing_verdicts(repo_id, listing.prs, recorded))
    client.set(keys.RECONCILE_CURSOR, next_cursor(cursor, attempted, len(repos)))
    report.missing = len(pending)
    if len(pending) > limits.max_queued:
        pending = pending[: limits.max_queued]
        report.result = "budget-exhausted"
    queued = queue_catch_ups(runtime, pending)
    report.queued = queued
    report.duplicates = len(pending) - queued


def _open_prs(runtime: Runtime, repo_id: str, limit: int) -> OpenPullRequests:
    """A repo's open PRs with their heads (2 calls); a datastore's through its dataset API."""
    if not repo_id.startswith(DATASETS):
        return runtime.hub.open_pull_requests(repo_id, limit=limit)
    assert runtime.datastore_hub is not None
    heads = runtime.datastore_hub.open_pull_requests(repo_id.removeprefix(DATASETS), limit=limit)
    prs = tuple(OpenPullRequest(num, head) for num, head in sorted(heads.items()))
    return OpenPullRequests(prs, CALLS_PER_REPO if prs else 1)


def _recorded_heads(
    client: redis.Redis, repo_id: str, nums: Sequence[int]
) -> dict[int, tuple[str, ...]]:
    if not nums:
        return {}
    wanted = [
        key for num in nums for key in (keys.verdict(repo_id, num), keys.checked(repo_id, num))
    ]
    values = client.mget(wanted)
    return {
        num: tuple(as_text(value) for value in values[2 * i : 2 * i + 2] if value is not None)
        for i, num in enumerate(nums)
    }


def queue_catch_ups(runtime: Runtime, catch_ups: Sequence[CatchUp]) -> int:
    """Queue each catch-up unless its dedupe key is set; returns how many were queued."""
    if not catch_ups:
        return 0
    received_at = runtime.clock().isoformat(timespec="milliseconds").replace("+00:00", "Z")
    ttl_s = max(1, runtime.reconcile.interval_s)
    queued = publish(
        runtime.redis,
        [
            (catch_up.event(received_at), DedupeKey(catch_up.delivery_id, ttl_s))
            for catch_up in catch_ups
        ],
    )
    return sum(queued)


def _count(client: redis.Redis, report: RunReport) -> None:
    pipe = client.pipeline(transaction=False)
    pipe.hincrby(keys.STATS, f"reconcile-run:{report.result}", 1)
    if report.repos:
        pipe.hincrby(keys.STATS, "reconcile-repo:ok", report.repos)
    if report.hub_errors:
        pipe.hincrby(keys.STATS, "reconcile-repo:hub-error", report.hub_errors)
    if report.queued:
        pipe.hincrby(keys.STATS, "catchup:queued", report.queued)
    if report.duplicates:
        pipe.hincrby(keys.STATS, "catchup:duplicate", report.duplicates)
    pipe.execute()
