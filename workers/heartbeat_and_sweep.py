"""Each worker's periodic step, from its consumer's event loop: its heartbeat, and the ledger's
sweep that sends overdue accepted events again (docs/reliability.md, "The ledger")."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
from typing import Any

import redis
from celery import Celery, bootsteps
from celery.worker import state

from bot.queue.publishing import (
    DUE_SCRIPT,
    GRACE_S,
    SWEEP_BATCH,
    SWEEP_EVERY_S,
    Outgoing,
    due_pairs,
    send_or_leave,
)
from bot.settings import Settings
from bot.store import REDIS_TIMEOUT_S, keys

log = logging.getLogger("evalbot.worker")

#: A worker silent for this many sweep intervals is dead (`evalbot status` shows it so).
DEAD_AFTER_BEATS = 3
#: Records of workers dead for this long are dropped (until then `evalbot status` shows them).
FORGET_AFTER_S = 3600

# KEYS: workers hash, beats zset. ARGV: worker id, its record (JSON), forget after (s).
_BEAT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], now, ARGV[1])
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))) do
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end
"""


class Heartbeat:
    """One worker's heartbeat and sweep, over its own Redis client (not kombu's)."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        worker_id: str,
        interval_s: float = SWEEP_EVERY_S,
        concurrency: int | None = None,
    ) -> None:
        self.client = client
        self.worker_id = worker_id
        self.interval_s = interval_s
        self.concurrency = concurrency
        self._beat = client.register_script(_BEAT)
        self._due = client.register_script(DUE_SCRIPT)
        self._started_at: float | None = None

    def beat(self, held: int) -> None:
        """Record a heartbeat of a worker holding `held` tasks."""
        if self._started_at is None:
            seconds, microseconds = self.client.time()
            self._started_at = seconds + microseconds / 1e6
        record = {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "concurrency": self.concurrency,
            "started_at": self._started_at,
            "every_s": self.interval_s,
            "dead_after_s": self.interval_s * DEAD_AFTER_BEATS,
            "held": held,
        }
        self._beat(
            keys=[keys.WORKERS, keys.WORKER_BEATS],
            args=[self.worker_id, json.dumps(record, separators=(",", ":")), FORGET_AFTER_S],
        )

    def overdue(self) -> list[tuple[str, str]]:
        """The ledger's overdue entries, `(task id, event json)`, now this worker's to send."""
        reply = self._due(keys=[keys.LEDGER, keys.LEDGER_EVENTS], args=[GRACE_S, SWEEP_BATCH])
        return due_pairs(reply)

    def leave(self) -> None:
        """Remove this worker's record (an orderly stop: it holds nothing any more)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hdel(keys.WORKERS, self.worker_id)
        pipe.zrem(keys.WORKER_BEATS, self.worker_id)
        pipe.execute()


def sweep(heartbeat: Heartbeat, app: Celery) -> int:
    """Send the ledger's overdue events again, in one round trip; returns how many were sent."""
    due = heartbeat.overdue()
    if not due:
        return 0
    messages: list[Outgoing] = []
    for task_id, text in due:
        try:
            event = json.loads(text)
        except ValueError:
            event = {"unreadable": text[:200]}  # the task parks it as malformed
        messages.append((task_id, event, 0.0))
    if not send_or_leave(app, messages):
        return 0
    log.warning("sent %d overdue event(s) again", len(messages))
    with contextlib.suppress(redis.RedisError):  # a counter, best effort
        heartbeat.client.hincrby(keys.STATS, "recovered:overdue", len(messages))
    return len(messages)


def heartbeat_step(settings: Settings) -> type[bootsteps.StartStopStep]:
    """A consumer bootstep that beats and sweeps every `SWEEP_EVERY_S` seconds on the
    worker's event loop."""

    class WorkerHeartbeat(bootsteps.StartStopStep):
        requires = ("celery.worker.consumer.tasks:Tasks",)

        def __init__(self, parent: Any, **kwargs: Any) -> None:
            super().__init__(parent, **kwargs)
            self.heartbeat: Heartbeat | None = None
            self.timer_ref: Any = None

        def start(self, consumer: Any) -> None:
            # Celery restarts the consumer (stop, then start) after each broker connection
            # loss: the heartbeat and its client are kept, not opened again and leaked, and
            # its `started_at` stays the worker's.
            if self.heartbeat is None:
                client = redis.Redis.from_url(
                    settings.redis_url,
                    socket_timeout=REDIS_TIMEOUT_S,
                    socket_connect_timeout=REDIS_TIMEOUT_S,
                )
                pool = getattr(consumer, "pool", None)
                self.heartbeat = Heartbeat(
                    client,
                    worker_id=f"{consumer.hostname}:{os.getpid()}",
                    concurrency=getattr(pool, "num_processes", None),
                )
            self.tick(consumer)
            self.timer_ref = consumer.timer.call_repeatedly(SWEEP_EVERY_S, self.tick, (consumer,))

        def tick(self, consumer: Any) -> None:
            """One heartbeat and sweep; a failure is logged and the next tick tries again."""
            heartbeat = self.heartbeat
            if heartbeat is None:
                return
            try:
                heartbeat.beat(len(state.reserved_requests))
                sweep(heartbeat, consumer.app)
            except Exception as error:  # never let the loop's timer die with it
                log.warning("worker heartbeat failed: %s: %s", type(error).__name__, error)

        def stop(self, consumer: Any) -> None:
            if self.timer_ref is not None:
                self.timer_ref.cancel()
                self.timer_ref = None

        def shutdown(self, consumer: Any) -> None:
            self.stop(consumer)
            if self.heartbeat is not None:
                with contextlib.suppress(redis.RedisError):  # else it ages out: seen dead
                    self.heartbeat.leave()
                self.heartbeat.client.close()
                self.heartbeat = None

    return WorkerHeartbeat
