"""Worker heartbeats, and taking back the messages of a worker that died.

A SIGKILLed worker leaves the messages it held in kombu's `unacked` hash, and kombu puts them
back on the queue only after the visibility timeout (900 s by default: it must exceed the
longest task, and a retry's countdown is held as an unacked message too). Waiting that long for
a 5 ms run is what issue 11 measured. Here every worker, from its consumer's event loop, every
`EVALBOT_WORKER_HEARTBEAT` seconds (10 by default), runs one Lua script that:

1. records its heartbeat: its record (host, pid, concurrency, the delivery tags it holds, that
   is kombu's `QoS._delivered`: running, reserved and countdown messages) in `evalbot:workers`
   and the time in `evalbot:worker-beats` (`bot.store.keys` names the keys,
   `bot.store.workerbeats` reads them);
2. finds the unacked messages held by no live worker (a worker is live for three intervals
   after its last heartbeat) and returns those that have been in that state for two intervals
   (`evalbot:orphans` remembers since when: a message just delivered is held before its
   worker's next heartbeat lists it, so "unheld" must last longer than one interval);
3. hands each due tag to exactly one sweeper (it forgets the tag as it returns it).

The worker then puts each due message back with kombu's own `restore_by_tag` (a WATCH/MULTI
transaction: if kombu's visibility sweep or another worker restored it first, nothing happens),
so the message comes back with its task id: the dead run's attempt count and PR lease carry
over (`workers.tasks.Attempts`, `workers.locks`), and a poison event is still parked after
three runs. A worker that was only stalled (SIGSTOP, a frozen VM) and resumes finds its lease
fenced and writes nothing: the rerun posts the one report. With the defaults a PR whose worker
died gets its report 30-60 s after the death (measured: docs/reliability.md); the visibility
timeout stays as the last resort, for a fleet with no live worker at all.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
from typing import Any

import redis
from celery import bootsteps

from bot.settings import Settings
from bot.store import keys
from workers.broker import requeue_unrecorded

log = logging.getLogger("evalbot.worker")

#: A worker silent for this many heartbeat intervals is dead.
DEAD_AFTER_BEATS = 3
#: A message held by no live worker for this many intervals is queued again.
ORPHAN_AFTER_BEATS = 2
#: Records of workers dead for this long are dropped (until then `evalbot status` shows them).
FORGET_AFTER_S = 3600

# KEYS: workers hash, beats zset, orphans hash, kombu's unacked hash.
# ARGV: worker id, its record (JSON), orphan grace (s), forget after (s).
# Returns the delivery tags due to be restored (each is returned to one caller only).
_BEAT_AND_SWEEP = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], now, ARGV[1])
local held = {}
local beats = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
for i = 1, #beats, 2 do
  local id, at = beats[i], tonumber(beats[i + 1])
  local ok, record = pcall(cjson.decode, redis.call('HGET', KEYS[1], id) or '')
  if not ok or type(record) ~= 'table' then record = {} end
  local dead_after = tonumber(record['dead_after_s']) or 0
  if now - at <= dead_after then
    if type(record['held']) == 'table' then
      for _, tag in ipairs(record['held']) do held[tag] = true end
    end
  elseif now - at > tonumber(ARGV[4]) then
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  end
end
local due = {}
local present = {}
for _, tag in ipairs(redis.call('HKEYS', KEYS[4])) do
  present[tag] = true
  if held[tag] then
    redis.call('HDEL', KEYS[3], tag)
  else
    local first = redis.call('HGET', KEYS[3], tag)
    if not first then
      redis.call('HSET', KEYS[3], tag, tostring(now))
    elseif now - tonumber(first) >= tonumber(ARGV[3]) then
      due[#due + 1] = tag
      redis.call('HDEL', KEYS[3], tag)
    end
  end
end
for _, tag in ipairs(redis.call('HKEYS', KEYS[3])) do
  if not present[tag] then redis.call('HDEL', KEYS[3], tag) end
end
return due
"""


class Heartbeat:
    """One worker's heartbeat and sweep, over its own Redis client (not kombu's)."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        worker_id: str,
        interval_s: float,
        concurrency: int | None = None,
    ) -> None:
        self.client = client
        self.worker_id = worker_id
        self.interval_s = interval_s
        self.concurrency = concurrency
        self._script = client.register_script(_BEAT_AND_SWEEP)
        self._started_at: float | None = None

    def beat(self, held: list[str]) -> list[str]:
        """Record a heartbeat holding `held`; returns the orphaned tags this worker must
        restore."""
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
        due = self._script(
            keys=[keys.WORKERS, keys.WORKER_BEATS, keys.ORPHANS, keys.KOMBU_UNACKED],
            args=[
                self.worker_id,
                json.dumps(record, separators=(",", ":")),
                self.interval_s * ORPHAN_AFTER_BEATS,
                FORGET_AFTER_S,
            ],
        )
        return [tag.decode("ascii") if isinstance(tag, bytes) else str(tag) for tag in due]

    def leave(self) -> None:
        """Remove this worker's record (an orderly stop: it holds nothing any more)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hdel(keys.WORKERS, self.worker_id)
        pipe.zrem(keys.WORKER_BEATS, self.worker_id)
        pipe.execute()


def held_tags(qos: Any) -> list[str]:
    """The delivery tags a kombu virtual QoS holds: delivered and not yet acked (acks are
    applied to `_delivered` lazily, `_dirty` lists them meanwhile)."""
    dirty = set(getattr(qos, "_dirty", ()))
    return [str(tag) for tag in list(getattr(qos, "_delivered", {})) if tag not in dirty]


def heartbeat_step(settings: Settings) -> type[bootsteps.StartStopStep]:
    """A consumer bootstep that beats and sweeps every `settings.worker_heartbeat_s` seconds
    on the worker's event loop (Celery's own heartbeats run the same way)."""

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
                    socket_timeout=settings.redis_timeout_s,
                    socket_connect_timeout=settings.redis_timeout_s,
                )
                pool = getattr(consumer, "pool", None)
                self.heartbeat = Heartbeat(
                    client,
                    worker_id=f"{consumer.hostname}:{os.getpid()}",
                    interval_s=settings.worker_heartbeat_s,
                    concurrency=getattr(pool, "num_processes", None),
                )
            self.tick(consumer)
            self.timer_ref = consumer.timer.call_repeatedly(
                settings.worker_heartbeat_s, self.tick, (consumer,)
            )

        def tick(self, consumer: Any) -> None:
            """One heartbeat and sweep; a failure is logged and the next tick tries again.
            First, the messages this worker took off the queue as Redis went down go back on it
            (`workers.broker.requeue_unrecorded`; the first tick runs at each consumer start,
            right after a reconnect)."""
            heartbeat = self.heartbeat
            if heartbeat is None:
                return
            try:
                channel = consumer.task_consumer.channel
                requeue_unrecorded(channel)
                qos = channel.qos
                for tag in heartbeat.beat(held_tags(qos)):
                    restore(heartbeat.client, qos, tag)
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


def restore(client: redis.Redis, qos: Any, tag: str) -> None:
    """Queue a dead worker's message again through kombu's own restore, and count it."""
    qos.restore_by_tag(tag)
    log.warning("requeued a message held by a dead worker", extra={"delivery_tag": tag})
    with contextlib.suppress(redis.RedisError):  # a counter, best effort
        client.hincrby(keys.STATS, "recovered:worker-dead", 1)
