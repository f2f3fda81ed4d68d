"""The bot's live state as the pages show it, read from Redis with the workers' own keys, and
sampled for the charts (docs/web.md, "Status and operators")."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import redis

from bot.store import keys
from bot.store.worker_counters import WorkerSnapshot

#: The charts' span; samples older than this (and a margin) are dropped at each write.
WINDOW_S = 3600


@dataclass(frozen=True, slots=True)
class Sample:
    """One snapshot at a moment (Unix seconds)."""

    at: float
    snapshot: WorkerSnapshot

    def total(self, family: str, *, excluding: frozenset[str] = frozenset()) -> int:
        """The sum of one counter family (`outcome`, `retry`, `parked`) over its labels, less
        the labels in `excluding`."""
        prefix = family + ":"
        return sum(
            value
            for key, value in self.snapshot.counters.items()
            if key.startswith(prefix) and key[len(prefix) :] not in excluding
        )


def encode_sample(sample: Sample) -> str:
    snapshot = sample.snapshot
    return json.dumps(
        {
            "at": sample.at,
            "counters": dict(snapshot.counters),
            "dead": snapshot.dead_letters,
            "queue": snapshot.queue_length,
            "unacked": snapshot.unacked,
            "paused": snapshot.hub_paused_s,
        },
        separators=(",", ":"),
        sort_keys=True,
    )


def decode_sample(raw: bytes | str) -> Sample | None:
    """A stored sample, or None for one that cannot be read (a chart then skips it)."""
    try:
        data = json.loads(raw)
        counters = data["counters"]
        if not isinstance(counters, Mapping):
            return None
        snapshot = WorkerSnapshot(
            {str(k): int(v) for k, v in counters.items()},
            int(data["dead"]),
            int(data["queue"]),
            int(data["unacked"]),
            hub_paused_s=float(data["paused"]),
        )
        return Sample(float(data["at"]), snapshot)
    except (ValueError, KeyError, TypeError):
        return None


def record_sample(
    client: redis.Redis, snapshot: WorkerSnapshot, *, interval_s: float, now: float | None = None
) -> bool:
    """Store `snapshot` unless a sample newer than `interval_s` exists; True when stored."""
    moment = time.time() if now is None else now
    newest = client.zrevrange(keys.WEB_SAMPLES, 0, 0, withscores=True)
    if newest and moment - float(newest[0][1]) < interval_s * 0.9:
        return False
    pipe = client.pipeline(transaction=False)
    pipe.zadd(keys.WEB_SAMPLES, {encode_sample(Sample(moment, snapshot)): moment})
    pipe.zremrangebyscore(keys.WEB_SAMPLES, "-inf", moment - WINDOW_S - 2 * interval_s)
    pipe.expire(keys.WEB_SAMPLES, WINDOW_S * 2)
    pipe.execute()
    return True


def read_samples(client: redis.Redis, *, now: float | None = None) -> list[Sample]:
    """The last hour's samples, oldest first."""
    moment = time.time() if now is None else now
    raws = client.zrangebyscore(keys.WEB_SAMPLES, moment - WINDOW_S, "+inf")
    decoded = (decode_sample(raw) for raw in raws if isinstance(raw, bytes | str))
    return [sample for sample in decoded if sample is not None]


@dataclass(frozen=True, slots=True)
class WorkersState:
    """Whether the workers are consuming, as far as Redis tells (see `workers_state`)."""

    state: str  # consuming, stalled (heartbeats stopped), none (no worker at all)
    text: str


def workers_state(snapshot: WorkerSnapshot, samples: Sequence[Sample]) -> WorkersState:
    """The one place the pages ask "are workers alive?".

    From the workers' heartbeats (`bot.store.heartbeats`: a heartbeat comes from a
    worker's consumer loop, so it means consuming) when any worker has written one. Without
    any, work in flight (`unacked`) or finished runs (the `outcome` counters) advancing
    between samples still mean something consumes; otherwise no worker exists, whether
    events wait or not: an empty queue with no worker is not "idle", the next event would
    wait for ever.
    """
    if snapshot.workers:
        alive = sum(1 for worker in snapshot.workers if worker.alive)
        if alive:
            word = "worker" if alive == 1 else "workers"
            return WorkersState("consuming", f"consuming: {alive} {word} alive")
        return WorkersState(
            "stalled", f"no worker alive: {snapshot.queue_length} waiting (heartbeats stopped)"
        )
    recent = list(samples[-3:])
    progressed = len(recent) >= 2 and recent[-1].total("outcome") > recent[0].total("outcome")
    if snapshot.unacked > 0 or progressed:
        return WorkersState("consuming", "consuming (no heartbeat seen)")
    return WorkersState(
        "none", f"no worker alive: none has written a heartbeat; {snapshot.queue_length} waiting"
    )
