"""A run stopped by a signal is not a Redis outage, even when a cleanup's Redis error hid the stop.

A task cancelled because the worker's broker connection dropped gets SIGTERM (a `SystemExit` in
the pool process); the PR lease's release on the way out then fails because Redis is down, and
that `ConnectionError` replaced the stop: the run failed instead of exiting
(`workers.retry_policy.stop_behind`). A plain Redis outage is raised to Celery; the event stays
in the ledger (tests/integration/workers/test_ledger_redis.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import redis

import workers.tasks as tasks


def _process(monkeypatch: pytest.MonkeyPatch, failure: BaseException) -> None:
    """Run the task with `handle` raising `failure`."""

    def handle(task: Any, event: dict[str, Any], runtime: Any) -> str:
        raise failure

    monkeypatch.setattr(tasks, "runtime_for_process", lambda: SimpleNamespace(redis=None))
    monkeypatch.setattr(tasks, "handle", handle)
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


def test_a_stop_hidden_by_a_redis_error_exits(monkeypatch: pytest.MonkeyPatch) -> None:
    stop = SystemExit(-241)  # what billiard's SIGTERM handler raises in a pool process
    with pytest.raises(SystemExit) as raised:
        _process(monkeypatch, _redis_error_hiding(stop))
    assert raised.value is stop


def test_a_plain_redis_outage_is_raised_to_celery(monkeypatch: pytest.MonkeyPatch) -> None:
    outage = redis.ConnectionError("Connection refused")
    with pytest.raises(redis.ConnectionError) as raised:
        _process(monkeypatch, outage)
    assert raised.value is outage
