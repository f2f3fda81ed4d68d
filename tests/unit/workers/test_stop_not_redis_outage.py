"""A run stopped by a signal is not a Redis outage, even when a cleanup's Redis error hid the stop.

A task cancelled because the worker's broker connection dropped gets SIGTERM (a `SystemExit` in
the pool process); the PR lease's release on the way out then fails because Redis is down, and
that `ConnectionError` replaced the stop: the run paused 2 s and requeued itself instead of
exiting (`workers.retry_policy.stop_behind`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import redis
from celery.exceptions import Reject

import workers.tasks as tasks


def _process(monkeypatch: pytest.MonkeyPatch, failure: BaseException, pauses: list[float]) -> None:
    """Run the task with `handle` raising `failure`; the pauses it takes go to `pauses`."""

    def handle(task: Any, event: dict[str, Any], runtime: Any) -> str:
        raise failure

    monkeypatch.setattr(tasks, "runtime_for_process", lambda: SimpleNamespace(redis=None))
    monkeypatch.setattr(tasks, "handle", handle)
    monkeypatch.setattr(tasks, "time", SimpleNamespace(sleep=pauses.append))  # only sleep is used
    tasks.process_pr_event.run({"delivery_id": "d1"})


def _redis_error_hiding(stop: BaseException) -> redis.ConnectionError:
    try:
        try:
            raise stop
        finally:
            raise redis.ConnectionError(
                "Error 111 connecting to 127.0.0.1:6379. Connection refused."
            )
    except redis.ConnectionError as error:
        return error


def test_a_stop_hidden_by_a_redis_error_exits_without_pause_or_requeue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stop = SystemExit(-241)  # what billiard's SIGTERM handler raises in a pool process
    pauses: list[float] = []
    with pytest.raises(SystemExit) as raised:
        _process(monkeypatch, _redis_error_hiding(stop), pauses)
    assert raised.value is stop
    assert pauses == []


def test_a_plain_redis_outage_still_pauses_and_requeues(monkeypatch: pytest.MonkeyPatch) -> None:
    pauses: list[float] = []
    with pytest.raises(Reject) as raised:
        _process(monkeypatch, redis.ConnectionError("Connection refused"), pauses)
    assert getattr(raised.value, "requeue", None) is True
    assert pauses == [tasks.REDIS_DOWN_PAUSE_S]
