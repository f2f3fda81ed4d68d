"""The workers' counters and the queue's figures, and their one reader for `/metrics` and the web
pages: one pipelined round trip, bounded label values (docs/operating.md, "Metrics")."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import redis
import redis.asyncio
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.store import keys
from bot.store.heartbeats import (
    WorkerBeat,
    flat_hash,
    pairs,
    parse_time,
    parse_workers,
    read_fleet_status,
)

#: At most this many fields are exposed (a guard; the real vocabulary is a few dozen).
MAX_FIELDS = 500

_LABEL = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass(frozen=True, slots=True)
class Family:
    """Fields `<prefix>:<label>` of the stats hash, as the counter `<name>_total{<label_name>}`."""

    prefix: str
    name: str
    label_name: str
    help: str


FAMILIES: tuple[Family, ...] = (
    Family(
        "outcome",
        "evalbot_worker_outcomes",
        "outcome",
        "Finished worker runs by outcome (posted, edited, unchanged, no-results, stale, ...).",
    ),
    Family("retry", "evalbot_worker_retries", "reason", "Task retries scheduled, by reason."),
    Family(
        "parked",
        "evalbot_worker_parked",
        "reason",
        "Events the workers gave up on and parked on the dead-letter list, by reason.",
    ),
    Family(
        "replayed",
        "evalbot_worker_replayed",
        "reason",
        "Parked events queued again by `evalbot replay`, by the reason they were parked.",
    ),
    Family(
        "recovered",
        "evalbot_worker_recovered",
        "reason",
        "Accepted events the ledger's sweep sent again because they were overdue (their "
        "message lost with a worker, in a Redis restart, or dropped).",
    ),
    Family(
        "reconcile-run",
        "evalbot_reconcile_runs",
        "result",
        "Reconciliation runs by result (completed, budget-exhausted, rate-limited, skipped-*).",
    ),
    Family(
        "reconcile-repo",
        "evalbot_reconcile_repos",
        "result",
        "Repos whose open PRs reconciliation listed (ok) or could not list (hub-error).",
    ),
    Family(
        "catchup",
        "evalbot_reconcile_catchups",
        "result",
        "Open PR heads without a verdict found by reconciliation: queued, or duplicate "
        "(already queued in this interval).",
    ),
)
_BY_PREFIX = {family.prefix: family for family in FAMILIES}


@dataclass(frozen=True, slots=True)
class WorkerSnapshot:
    """What one scrape read from Redis."""

    counters: Mapping[str, int]  # stats fields, `<family>:<label>` -> count
    dead_letters: int
    queue_length: int
    unacked: int
    hub_paused_s: float = 0.0  # left of the workers' shared Hub pause; 0 when there is none
    workers: tuple[WorkerBeat, ...] = ()  # from their heartbeats (`bot.store.heartbeats`)
    accepted: int = 0  # events in the ledger: accepted and not finished (`bot.queue.publishing`)


def parse_stats(reply: Any) -> dict[str, int]:
    """An `HGETALL` reply (redis-py's mapping, or the flat `[field, value, ...]` of RESP) as
    fields to counts; anything that is not a known family with a sane label and an integer
    count is left out."""
    if not isinstance(reply, Mapping | list):
        raise ValueError(f"HGETALL answered {type(reply).__name__}")
    counters: dict[str, int] = {}
    for raw_field, raw_value in flat_hash(reply).items():
        field = _text(raw_field)
        prefix, _, label = field.partition(":")
        if prefix not in _BY_PREFIX or not _LABEL.fullmatch(label):
            continue
        try:
            counters[field] = int(_text(raw_value))
        except ValueError:
            continue
        if len(counters) >= MAX_FIELDS:
            break
    return counters


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class WorkerStatsSource(Protocol):
    """Where the receiver reads the workers' state from at scrape time."""

    async def read(self) -> WorkerSnapshot:
        """The current snapshot; raises on any failure (the caller reports it as down)."""
        ...

    async def close(self) -> None: ...


class RedisWorkerStats:
    """`WorkerStatsSource` over a redis-py asyncio client of its own (not the enqueuer's, so a
    scrape never queues behind a burst of webhooks, nor they behind it): one pipelined round
    trip per scrape."""

    def __init__(self, url: str, *, queue: str, timeout_s: float) -> None:
        self._queue = queue
        self._timeout_s = timeout_s
        self._client = redis.asyncio.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 0),  # a failed scrape says so at once (stats_up 0)
        )

    async def read(self) -> WorkerSnapshot:
        async with asyncio.timeout(self._timeout_s):
            pipe = self._client.pipeline(transaction=False)
            pipe.hgetall(keys.STATS)
            pipe.llen(keys.DEAD_LETTERS)
            pipe.llen(self._queue)
            pipe.hlen(keys.KOMBU_UNACKED)
            pipe.pttl(keys.HUB_PAUSE)
            pipe.time()
            pipe.hgetall(keys.WORKERS)
            pipe.zrange(keys.WORKER_BEATS, 0, -1, withscores=True)
            pipe.zcard(keys.LEDGER)
            replies = await pipe.execute()
        stats, dead, queued, unacked, pause_ms, now, records, beats, accepted = replies
        return WorkerSnapshot(
            parse_stats(stats),
            int(dead),
            int(queued),
            int(unacked),
            hub_paused_s=max(0, int(pause_ms)) / 1000,  # PTTL: -2 absent, -1 no expiry
            workers=tuple(parse_workers(flat_hash(records), pairs(beats), parse_time(now))),
            accepted=int(accepted),
        )

    async def close(self) -> None:
        await self._client.aclose()


def read_snapshot(client: redis.Redis, queue: str) -> WorkerSnapshot:
    """The `/metrics` figures now, with the workers' heartbeats, through redis-py (the web
    pages): the fleet through its one reader (`read_fleet_status`), then the counters.
    Raises `redis.RedisError`."""
    fleet = read_fleet_status(client, queue)
    pipe = client.pipeline(transaction=False)
    pipe.hgetall(keys.STATS)
    pipe.zcard(keys.LEDGER)
    stats, accepted = pipe.execute()
    return WorkerSnapshot(
        parse_stats(flat_hash(stats)),
        fleet.parked,
        fleet.queue_length,
        fleet.unacked,
        hub_paused_s=fleet.hub_paused_s,
        workers=fleet.workers,
        accepted=int(accepted),
    )
