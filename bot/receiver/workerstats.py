"""The workers' counters, exposed on the receiver's `/metrics`.

Workers are many processes on many machines, so they keep their counters in one Redis hash,
`evalbot:stats` (`<family>:<label>` -> count, `HINCRBY`), and the receiver, which Prometheus
already scrapes, reads them at scrape time: one pipelined round trip (`HGETALL` of the hash,
`LLEN` of the dead-letter list and of the queue, `HLEN` of kombu's unacked hash, `PTTL` of
the shared Hub pause, and the workers' heartbeats of `bot.receiver.workerbeats`) on a redis-py
client of its own, with a short timeout. A scrape never fails because of Redis: the worker
metrics are then left out and `evalbot_worker_stats_up` says 0.

Each family maps to one Prometheus counter with one label; fields of unknown families are not
exposed, and label values are checked (the workers write them from fixed vocabularies and
exception class names, never from user input), so cardinality stays bounded.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import redis.asyncio
import redis.exceptions
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.contract import keys
from bot.receiver.workerbeats import (
    BEATS_KEY,
    DEAD_LETTERS_KEY,
    HUB_PAUSE_KEY,
    UNACKED_KEY,
    WORKERS_KEY,
    WorkerBeat,
    flat_hash,
    pairs,
    parse_time,
    parse_workers,
)

#: The Redis hash of worker counters (the other keys read here: `bot.receiver.workerbeats`;
#: `bot.contract.keys` says who writes each).
STATS_KEY = keys.STATS
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
        "Events taken back from a worker that stopped heartbeating (worker-dead) and queued "
        "again, before the visibility timeout.",
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
    workers: tuple[WorkerBeat, ...] = ()  # from their heartbeats (`bot.receiver.workerbeats`)


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
            pipe.hgetall(STATS_KEY)
            pipe.llen(DEAD_LETTERS_KEY)
            pipe.llen(self._queue)
            pipe.hlen(UNACKED_KEY)
            pipe.pttl(HUB_PAUSE_KEY)
            pipe.time()
            pipe.hgetall(WORKERS_KEY)
            pipe.zrange(BEATS_KEY, 0, -1, withscores=True)
            replies = await pipe.execute()
        stats, dead, queued, unacked, pause_ms, now, records, beats = replies
        return WorkerSnapshot(
            parse_stats(stats),
            int(dead),
            int(queued),
            int(unacked),
            hub_paused_s=max(0, int(pause_ms)) / 1000,  # PTTL: -2 absent, -1 no expiry
            workers=tuple(parse_workers(flat_hash(records), pairs(beats), parse_time(now))),
        )

    async def close(self) -> None:
        await self._client.aclose()


class WorkerStatsCollector:
    """A Prometheus collector showing the last snapshot read (`refresh` before rendering)."""

    def __init__(self, source: WorkerStatsSource) -> None:
        self.source = source
        self._snapshot: WorkerSnapshot | None = None
        self._read_seconds = 0.0

    async def refresh(self) -> None:
        """Read a new snapshot; on any failure, forget the old one (stale values would lie)."""
        started = time.perf_counter()
        try:
            self._snapshot = await self.source.read()
        except Exception:  # never fail the scrape: evalbot_worker_stats_up says it
            self._snapshot = None
        self._read_seconds = time.perf_counter() - started

    def describe(self) -> Iterator[Metric]:
        return self._families(None)

    def collect(self) -> Iterator[Metric]:
        return self._families(self._snapshot)

    def _families(self, snapshot: WorkerSnapshot | None) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "evalbot_worker_stats_up",
            "1 when the worker metrics were read from Redis for this scrape, else 0 (the "
            "worker metrics are then absent).",
        )
        up.add_metric([], 1.0 if snapshot is not None else 0.0)
        yield up
        took = GaugeMetricFamily(
            "evalbot_worker_stats_read_seconds", "Time this scrape spent reading Redis."
        )
        took.add_metric([], self._read_seconds)
        yield took
        if snapshot is None:
            return
        for family in FAMILIES:
            counter = CounterMetricFamily(family.name, family.help, labels=[family.label_name])
            for field, count in sorted(snapshot.counters.items()):
                prefix, _, label = field.partition(":")
                if prefix == family.prefix:
                    counter.add_metric([label], float(count))
            yield counter
        for name, text, value in (
            (
                "evalbot_dead_letters",
                "Parked events on the dead-letter list now.",
                snapshot.dead_letters,
            ),
            ("evalbot_queue_length", "Events waiting in the queue now.", snapshot.queue_length),
            (
                "evalbot_queue_unacked",
                "Events delivered to a worker and not yet acknowledged (running, or waiting "
                "for a retry's countdown).",
                snapshot.unacked,
            ),
            (
                "evalbot_hub_paused_seconds",
                "Seconds left of the workers' shared Hub pause, set when the Hub answered 429 "
                "or 503 with a wait (0: the workers call the Hub).",
                snapshot.hub_paused_s,
            ),
        ):
            gauge = GaugeMetricFamily(name, text)
            gauge.add_metric([], float(value))
            yield gauge
        alive = GaugeMetricFamily(
            "evalbot_workers_alive",
            "Workers whose last heartbeat is recent (consuming now); 0 means events queue up "
            "and nothing runs them.",
        )
        alive.add_metric([], float(sum(1 for worker in snapshot.workers if worker.alive)))
        yield alive
        age = GaugeMetricFamily(
            "evalbot_worker_heartbeat_age_seconds",
            "Seconds since each known worker's last heartbeat (dead ones are listed for an "
            "hour after their last).",
            labels=["worker"],
        )
        for worker in snapshot.workers:
            age.add_metric([worker.id[:120]], worker.age_s)
        yield age
