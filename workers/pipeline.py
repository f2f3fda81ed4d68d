"""One PR event in, the PR's single report comment brought up to date: the PR read once under its
lease, its command heard once, then the model repo's, datastore's or benchmark's pipeline. Every
run is idempotent (docs/reliability.md, "The ledger")."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from bot.hub.budget import counting
from bot.hub.pulls import PullRequest
from bot.logs import log_json
from bot.queue.events import PrEvent
from workers.benchmark_pr import run_benchmark_event
from workers.commands import hear_command
from workers.datastore_pr import datastore_policy, run_datastore_event
from workers.model_pr import run_model_event
from workers.outcomes import Outcome
from workers.pr_lease import Lease, lease_repo, pr_lease
from workers.runtime import Runtime

log = logging.getLogger("evalbot.worker")


def run_event(event: PrEvent, runtime: Runtime, *, owner: str | None = None) -> Outcome:
    """Process one event; raises `LeaseBusy`, `LeaseLost`, `HubError` or
    `VerificationUnavailable` for the task to retry (nothing is written in those cases
    that a retry would not write again identically). `owner` (the task id) names the PR
    lease's holder, so a rerun of a message whose worker died takes its lease over."""
    started = time.perf_counter()
    waited_s = event.waited_s(datetime.now(UTC))
    with (
        counting() as calls,  # every Hub request of the run (`bot.hub.budget`)
        pr_lease(
            runtime.redis, lease_repo(event), event.pr_num, runtime.lease_ttl_s, owner=owner
        ) as lease,
    ):
        pr, outcome = _dispatch(event, runtime, lease)
    head = pr.head_sha if pr is not None else None
    _log_run(event, head, outcome, started, waited_s, hub_calls=calls.made)
    return outcome


def _dispatch(event: PrEvent, runtime: Runtime, lease: Lease) -> tuple[PullRequest | None, Outcome]:
    """Read the event's PR, hear its command, and run its repo's pipeline; the PR read (None
    when this worker does not check that kind of PR) and the outcome."""
    if event.repo_type == "model":
        pr = runtime.hub.pull_request(event.repo_id, event.pr_num)
        if not pr.is_pull_request or pr.head_sha is None:
            return pr, Outcome.NOT_A_PR
        command = hear_command(event, pr, runtime.bot_name, runtime.maintainers)
        return pr, run_model_event(pr, command, runtime, lease, private_hint=event.repo_private)
    client = runtime.datasets
    datastore = datastore_policy(runtime, event.repo_id)  # an EEE datastore's PR
    hub = runtime.datastore_hub
    if client is None or (datastore is not None and hub is None):
        return None, Outcome.NO_RESULTS
    pr = client.dataset_pull_request(event.repo_id, event.pr_num)
    if not pr.is_pull_request or pr.head_sha is None:
        return pr, Outcome.NOT_A_PR
    command = hear_command(event, pr, runtime.bot_name, runtime.maintainers)
    if datastore is None:  # a benchmark's eval.yaml
        return pr, run_benchmark_event(pr, command, runtime, lease, client)
    assert hub is not None
    return pr, run_datastore_event(
        event, pr, command, runtime, lease, policy=datastore, hub=hub, client=client
    )


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
