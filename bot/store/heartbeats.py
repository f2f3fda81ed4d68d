"""Worker heartbeats in Redis, on Redis's clock: the keys, the record, and the one reader
everyone uses (docs/operating.md, "Is a worker consuming?")."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from bot.store import keys

#: At most this many workers are shown (a guard against a runaway hash).
MAX_WORKERS = 200


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


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def parse_time(reply: Sequence[Any]) -> float:
    """A `TIME` reply (`[seconds, microseconds]`) as seconds."""
    return int(_text(reply[0])) + int(_text(reply[1])) / 1e6


def parse_workers(
    records: Mapping[Any, Any], beats: Sequence[tuple[Any, Any]], now: float
) -> list[WorkerBeat]:
    """The workers of `records` (HGETALL of `keys.WORKERS`) with a beat in `beats` (ZRANGE ...
    WITHSCORES of `keys.WORKER_BEATS`), freshest first; malformed records are left out."""
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
class FleetStatus:
    """What `evalbot status` (and a status page) shows: workers, queue, parked, Hub pause."""

    workers: tuple[WorkerBeat, ...]
    queue_length: int
    unacked: int
    parked: int
    hub_paused_s: float

    @property
    def alive(self) -> tuple[WorkerBeat, ...]:
        return tuple(worker for worker in self.workers if worker.alive)

    def to_json(self) -> dict[str, Any]:
        return {
            "workers_alive": len(self.alive),
            "workers": [worker.to_json() for worker in self.workers],
            "queue_length": self.queue_length,
            "unacked": self.unacked,
            "parked": self.parked,
            "hub_paused_s": round(self.hub_paused_s, 3),
        }


def read_fleet_status(client: redis.Redis, queue: str) -> FleetStatus:
    """The fleet's state in one round trip (raises `redis.RedisError` when Redis fails)."""
    pipe = client.pipeline(transaction=False)
    pipe.time()
    pipe.hgetall(keys.WORKERS)
    pipe.zrange(keys.WORKER_BEATS, 0, -1, withscores=True)
    pipe.llen(queue)
    pipe.hlen(keys.KOMBU_UNACKED)
    pipe.llen(keys.DEAD_LETTERS)
    pipe.pttl(keys.HUB_PAUSE)
    now, records, beats, queued, unacked, parked, pause_ms = pipe.execute()
    seconds, microseconds = now
    return FleetStatus(
        workers=tuple(parse_workers(records, pairs(beats), seconds + microseconds / 1e6)),
        queue_length=int(queued),
        unacked=int(unacked),
        parked=int(parked),
        hub_paused_s=max(0, int(pause_ms)) / 1000,
    )
