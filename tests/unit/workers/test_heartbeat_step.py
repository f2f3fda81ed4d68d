"""The worker heartbeat bootstep across Celery's consumer restarts."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from workers.heartbeat_and_sweep import heartbeat_step


class FakeTimer:
    def __init__(self) -> None:
        self.cancelled = 0

    def call_repeatedly(self, *args: Any) -> Any:
        return SimpleNamespace(cancel=self._cancel)

    def _cancel(self) -> None:
        self.cancelled += 1


def test_a_consumer_restart_keeps_the_heartbeat_and_its_client() -> None:
    # Port 1 on loopback refuses at once: each tick's beat fails and is logged, as when Redis
    # is down during a restart; the client must survive it, not be replaced.
    settings: Any = SimpleNamespace(redis_url="redis://127.0.0.1:1/0", redis_timeout_s=0.5)
    step: Any = heartbeat_step(settings)(SimpleNamespace())
    timer = FakeTimer()
    consumer = SimpleNamespace(hostname="w1@host", pool=None, timer=timer, task_consumer=None)

    step.start(consumer)
    first = step.heartbeat
    assert first is not None
    step.stop(consumer)  # a broker connection lost: Celery stops the consumer's steps...
    step.start(consumer)  # ...and starts them again once it reconnects
    assert step.heartbeat is first
    assert timer.cancelled == 1

    closed: list[bool] = []
    first.client.close = lambda: closed.append(True)
    step.shutdown(consumer)
    assert closed == [True]
    assert step.heartbeat is None
