"""The retry policy of `workers.tasks.handle` leaves its traces in `evalbot:stats` (real Redis),
which `/metrics` exposes: retries by reason, parked events by reason, outcomes."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest
import redis
from celery import Task

from bot.hub.errors import HubPermanentError, HubTransientError
from bot.queue.events import PrEvent
from bot.store.deadletters import parked_events
from tests.support.runtime import FailingHub, make_runtime, stats
from workers.retry_policy import MAX_TRANSIENT_RETRIES
from workers.tasks import handle

pytestmark = pytest.mark.integration

EVENT = PrEvent(
    kind="updated",
    repo_id="alice/model",
    pr_num=3,
    delivery_id="d-1",
    received_at="2026-11-22T09:00:00.000Z",
).to_json()


class Retry(Exception):
    """What `Task.retry` raises (the fake's stand-in for celery.exceptions.Retry)."""


class FakeTask:
    def __init__(self, task_id: str, retries: int = 0) -> None:
        self.request = SimpleNamespace(id=task_id, retries=retries)

    def retry(self, countdown: float = 0, max_retries: int | None = None) -> Retry:
        return Retry(countdown)


def run(client: redis.Redis, error: Exception, task: FakeTask) -> str:
    runtime = make_runtime(client, FailingHub(error))
    return handle(cast(Task[Any, Any], task), dict(EVENT), runtime)


def test_transient_hub_errors_count_retries_then_park(client: redis.Redis) -> None:
    """Attempts are counted per message (the task id) in Redis, not from Celery's retry count,
    so the budget survives redeliveries; past it, the event is parked."""
    for attempt in range(MAX_TRANSIENT_RETRIES):
        with pytest.raises(Retry):
            run(client, HubTransientError("503", status=503), FakeTask("t1", retries=attempt))
    assert stats(client) == {"retry:hub-transient": MAX_TRANSIENT_RETRIES}
    assert run(client, HubTransientError("503", status=503), FakeTask("t1")) == "parked"
    assert stats(client) == {
        "retry:hub-transient": MAX_TRANSIENT_RETRIES,
        "parked:hub-unavailable": 1,
    }


def test_permanent_errors_and_crashes_are_parked_by_reason(client: redis.Redis) -> None:
    assert run(client, HubPermanentError("404", status=404), FakeTask("t2")) == "parked"
    assert run(client, RuntimeError("a bug"), FakeTask("t3")) == "parked"
    assert stats(client) == {"parked:hub-refused": 1, "parked:crashed": 1}
    reasons = [p.record["reason"] for p in parked_events(client)]
    assert reasons == ["crashed", "hub-refused"]


def test_a_redelivery_after_a_lost_worker_counts_as_a_retry(client: redis.Redis) -> None:
    client.hset("evalbot:attempts:t4", "unfinished", 1)  # a first run never finished
    with pytest.raises(Retry):
        run(client, HubTransientError("502", status=502), FakeTask("t4"))
    assert stats(client) == {"retry:worker-lost": 1, "retry:hub-transient": 1}
