"""A run's failure path must never drop its message. A soft time limit that fires outside the run
(in the retry's bookkeeping), or a retry that Celery could not publish (`retry()` turns any send
failure, the soft limit included, into a reject without requeue), would otherwise lose the
event: acks_late with no ack on failure still removes a rejected message from Redis."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from celery.exceptions import Reject, SoftTimeLimitExceeded

import workers.tasks as tasks


class _Counters:
    """The one Redis call a requeue makes: counting it (`retry:requeued` on /metrics)."""

    def __init__(self) -> None:
        self.counted: list[str] = []

    def hincrby(self, key: str, field: str, amount: int) -> int:
        self.counted.append(field)
        return amount


def _run_with(
    monkeypatch: pytest.MonkeyPatch, failure: BaseException, counters: _Counters | None = None
) -> Reject:
    def handle(task: Any, event: dict[str, Any], runtime: Any) -> str:
        raise failure

    runtime = SimpleNamespace(redis=counters or _Counters())
    monkeypatch.setattr(tasks, "runtime_for_process", lambda: runtime)
    monkeypatch.setattr(tasks, "handle", handle)
    with pytest.raises(Reject) as raised:
        tasks.process_pr_event.run({"delivery_id": "d1"})
    return raised.value


def test_a_soft_limit_escaping_handle_requeues_the_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counters = _Counters()
    rejected = _run_with(monkeypatch, SoftTimeLimitExceeded(), counters)
    assert getattr(rejected, "requeue", None) is True
    assert counters.counted == ["retry:requeued"]


def test_a_retry_celery_could_not_publish_is_requeued_not_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dropped = Reject(SoftTimeLimitExceeded(), requeue=False)  # what Task.retry raises
    assert getattr(_run_with(monkeypatch, dropped), "requeue", None) is True


def test_a_requeue_stays_a_requeue(monkeypatch: pytest.MonkeyPatch) -> None:
    requeued = Reject("redis down", requeue=True)
    counters = _Counters()
    assert _run_with(monkeypatch, requeued, counters) is requeued
    assert counters.counted == []  # counted where it was raised, not twice
