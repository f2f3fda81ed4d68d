"""The workers' state in Redis as every reader sees it: heartbeats, counters, the queue.

The workers write it (`workers.liveness`, `workers.tasks`; keys in `bot.store.keys`); this is
its one reader, for the receiver's `/metrics` and `/readyz/workers` (`RedisWorkerStats`,
asyncio), and for `evalbot status` and the web pages (`read_snapshot`, redis-py): one
pipelined round trip each, parsed by the same pure functions.

- Heartbeats: each worker writes its record (`evalbot:workers`, a hash: id -> JSON) and the
  Redis time of its last beat (`evalbot:worker-beats`, a sorted set) every ten seconds from
  its consumer's event loop. A worker is alive while its last beat is at most `dead_after_s`
  old (it states that in its own record); ages are on Redis's clock, so readers on machines
  whose clocks disagree still agree.
- Counters: one hash, `evalbot:stats` (`<family>:<label>` -> count, `HINCRBY`). Each family is
  one Prometheus counter with one label; unknown families and odd labels are left out, so
  cardinality stays bounded.
- The queue: its length, kombu's unacked hash, the parked events, the ledger's size and the
  fleet's Hub pause.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import redis
import redis.asyncio
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.store import keys

#: At most this many workers are shown (a guard against a runaway hash).
MAX_WORKERS = 200
#: At most this many counter fields are exposed (a guard; the real vocabulary is a few dozen).
MAX_FIELDS = 500

_LABEL = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


@dataclass(frozen=True, slots=True)
class WorkerBeat:
    """One worker as its last heartbeat describes it."""

    id: str
    host: str
    pid: int
    concurrency: int | None
    started_at: float  # Redis time the worker's consumer started
    beat_at: float  # Redis time of the last heartbeat
    dead_after_s: float  # silence after which the worker counts as dead
    held: int  # tasks it has reserved (running, or waiting to run)
    age_s: float  # seconds since the last heartbeat, at the time of reading

    @property
    def alive(self) -> bool:
        return self.age_s <= self.dead_after_s

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "host": self.host,
            "pid": self.pid,
            "concurrency": self.concurrency,
            "alive": self.alive,
            "last_heartbeat_age_s": round(self.age_s, 3),
            "dead_after_s": self.dead_after_s,
            "held": self.held,
        }


def parse_workers(
    records: Mapping[Any, Any], beats: Sequence[tuple[Any, Any]], now: float
) -> list[WorkerBeat]:
    """The workers of `records` (HGETALL of `WORKERS_KEY`) with a beat in `beats` (ZRANGE ...
    WITHSCORES of `BEATS_KEY`), freshest first; malformed records are left out."""
    by_id = {_text(key): _text(value) for key, value in records.items()}
    workers: list[WorkerBeat] = []
    for raw_id, raw_score in beats:
        worker_id = _text(raw_id)
        try:
            record = json.loads(by_id[worker_id])
            beat_at = float(_text(raw_score))
            concurrency = record.get("concurrency")
            workers.append(
                WorkerBeat(
                    id=worker_id,
                    host=str(record.get("host", "?"))[:200],
                    pid=int(record.get("pid", 0)),
                    concurrency=int(concurrency) if concurrency is not None else None,
                    started_at=float(record.get("started_at", beat_at)),
                    beat_at=beat_at,
                    dead_after_s=float(record["dead_after_s"]),
                    held=int(record.get("held", 0)),
                    age_s=max(0.0, now - beat_at),
                )
            )
        except (KeyError, ValueError, TypeError, AttributeError):
            continue
    workers.sort(key=lambda worker: worker.age_s)
    return workers[:MAX_WORKERS]


def pairs(reply: Any) -> list[tuple[Any, Any]]:
    """A `ZRANGE ... WITHSCORES` reply as pairs, whether flat (RESP) or paired (redis-py)."""
    if reply and isinstance(reply[0], (list, tuple)):
        return [(item[0], item[1]) for item in reply]
    return list(zip(reply[::2], reply[1::2], strict=True))


def flat_hash(reply: Any) -> dict[Any, Any]:
    """An `HGETALL` reply as a dict, whether flat (RESP) or a dict (redis-py)."""
    if isinstance(reply, Mapping):
        return dict(reply)
    return dict(zip(reply[::2], reply[1::2], strict=True))


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


@dataclass(frozen=True, slots=True)
class WorkerSnapshot:
    """What one read found in Redis."""

    counters: Mapping[str, int]  # stats fields, `<family>:<label>` -> count
    dead_letters: int
    queue_length: int
    unacked: int
    hub_paused_s: float = 0.0  # left of the workers' shared Hub pause; 0 when there is none
    workers: tuple[WorkerBeat, ...] = ()  # from their heartbeats, freshest first
    accepted: int = 0  # events in the ledger: accepted and not finished (`bot.contract.queue`)

    @property
    def alive(self) -> tuple[WorkerBeat, ...]:
        return tuple(worker for worker in self.workers if worker.alive)

    def status_json(self) -> dict[str, Any]:
        """What `evalbot status --json` prints."""
        return {
            "workers_alive": len(self.alive),
            "workers": [worker.to_json() for worker in self.workers],
            "queue_length": self.queue_length,
            "unacked": self.unacked,
            "parked": self.dead_letters,
            "hub_paused_s": round(self.hub_paused_s, 3),
        }


def _queue_reads(pipe: Any, queue: str) -> None:
    """Queue, on a redis-py pipeline (sync or asyncio), every read of a snapshot."""
    pipe.hgetall(keys.STATS)
    pipe.llen(keys.DEAD_LETTERS)
    pipe.llen(queue)
    pipe.hlen(keys.KOMBU_UNACKED)
    pipe.pttl(keys.HUB_PAUSE)
    pipe.time()
    pipe.hgetall(keys.WORKERS)
    pipe.zrange(keys.WORKER_BEATS, 0, -1, withscores=True)
    pipe.zcard(keys.LEDGER)


def _snapshot(replies: Sequence[Any]) -> WorkerSnapshot:
    """The replies of `_queue_reads`' commands as a snapshot."""
    stats, dead, queued, unacked, pause_ms, now, records, beats, accepted = replies
    return WorkerSnapshot(
        parse_stats(stats),
        int(dead),
        int(queued),
        int(unacked),
        hub_paused_s=max(0, int(pause_ms)) / 1000,  # PTTL: -2 absent, -1 no expiry
        workers=tuple(
            parse_workers(
                flat_hash(records),
                pairs(beats),
                int(_text(now[0])) + int(_text(now[1])) / 1e6,  # TIME: seconds, microseconds
            )
        ),
        accepted=int(accepted),
    )


def read_snapshot(client: redis.Redis, queue: str) -> WorkerSnapshot:
    """The snapshot now, through redis-py (`evalbot status`, the web pages). Raises
    `redis.RedisError`."""
    pipe = client.pipeline(transaction=False)
    _queue_reads(pipe, queue)
    return _snapshot(pipe.execute())


class WorkerStatsSource(Protocol):
    """Where the receiver reads the workers' state from at scrape time."""

    async def read(self) -> WorkerSnapshot:
        """The current snapshot; raises on any failure (the caller reports it as down)."""
        ...

    async def close(self) -> None: ...


class RedisWorkerStats:
    """`WorkerStatsSource` over a redis-py asyncio client of its own (not the enqueuer's, so a
    scrape never queues behind a burst of webhooks, nor they behind it)."""

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
            _queue_reads(pipe, self._queue)
            return _snapshot(await pipe.execute())

    async def close(self) -> None:
        await self._client.aclose()
