"""Parked events: work the bot gave up on, capped, kept where an operator can list and replay it
(docs/operating.md, "Parked events"; docs/security.md#dead-letters)."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import redis

from bot.queue.events import PrEvent
from bot.store import keys

MAX_PARKED = 1000


def park(
    client: redis.Redis, event: Any, reason: str, detail: str = "", task_id: str | None = None
) -> None:
    """Keep `event` with why it was given up on; newest first, at most `MAX_PARKED`. The
    event's ledger entry (`task_id`) goes in the same transaction: parked is finished."""
    record = {
        "parked_at": datetime.now(UTC).isoformat(),
        "reason": reason,
        "detail": detail[:2000],
        "event": event,
    }
    pipe = client.pipeline(transaction=True)
    pipe.lpush(keys.DEAD_LETTERS, json.dumps(record, default=str))
    pipe.ltrim(keys.DEAD_LETTERS, 0, MAX_PARKED - 1)
    pipe.hincrby(keys.STATS, f"parked:{reason}", 1)
    if task_id is not None:
        pipe.zrem(keys.LEDGER, task_id)
        pipe.hdel(keys.LEDGER_EVENTS, task_id)
    pipe.execute()


def parked(client: redis.Redis, limit: int = 100) -> list[dict[str, Any]]:
    """The most recently parked events (newest first)."""
    return [json.loads(raw) for raw in client.lrange(keys.DEAD_LETTERS, 0, limit - 1)]


@dataclass(frozen=True, slots=True)
class ParkedEvent:
    """One parked record: its position (0 = newest), the stored text, and its fields."""

    index: int
    raw: bytes
    record: dict[str, Any]

    @property
    def event(self) -> PrEvent | None:
        """The event, or None when it is not one the workers accept (a malformed message)."""
        try:
            return PrEvent.from_json(self.record.get("event") or {})
        except (ValueError, TypeError, AttributeError):
            return None


def parked_events(client: redis.Redis, limit: int | None = None) -> list[ParkedEvent]:
    """Parked records with their positions, newest first (all of them without `limit`)."""
    raws = client.lrange(keys.DEAD_LETTERS, 0, -1 if limit is None else limit - 1)
    texts = [raw if isinstance(raw, bytes) else raw.encode("utf-8") for raw in raws]
    return [ParkedEvent(i, raw, _record(raw)) for i, raw in enumerate(texts)]


def parked_count(client: redis.Redis) -> int:
    return int(client.llen(keys.DEAD_LETTERS))


def _record(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError:
        return {"reason": "unreadable", "detail": raw[:200].decode("utf-8", "replace")}
    return value if isinstance(value, dict) else {"reason": "unreadable", "detail": str(value)}


class ReplayOutcome(StrEnum):
    REPLAYED = "replayed"
    GONE = "gone"  # no longer parked (replayed by someone else meanwhile)
    NOT_AN_EVENT = "not-an-event"  # the record holds no event the workers accept: kept


# Take the record off the list and put its event in the ledger, due at once, in one step: two
# operators replaying at once, or a replay racing with new parks shifting positions, queue each
# record exactly once. The next sweep of any worker sends it (`workers.heartbeat_and_sweep`).
# KEYS = [parked list, stats, ledger, ledger events]; ARGV = [record, stat, task id, event].
_REPLAY = """
local removed = redis.call('LREM', KEYS[1], 1, ARGV[1])
if removed == 1 then
  local t = redis.call('TIME')
  redis.call('HSET', KEYS[4], ARGV[3], ARGV[4])
  redis.call('ZADD', KEYS[3], tonumber(t[1]) + tonumber(t[2]) / 1000000, ARGV[3])
  redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
end
return removed
"""


def replay(client: redis.Redis, parked_event: ParkedEvent) -> ReplayOutcome:
    """Queue the parked event again under a new task id (no dedupe: the operator asked): into
    the ledger, due at once, so a worker's next sweep sends it."""
    event = parked_event.event
    if event is None:
        return ReplayOutcome.NOT_AN_EVENT
    reason = str(parked_event.record.get("reason", "unknown"))
    removed = client.eval(
        _REPLAY,
        4,
        keys.DEAD_LETTERS,
        keys.STATS,
        keys.LEDGER,
        keys.LEDGER_EVENTS,
        parked_event.raw,
        f"replayed:{reason}",
        str(uuid.uuid4()),
        json.dumps(event.to_json(), separators=(",", ":"), ensure_ascii=False),
    )
    return ReplayOutcome.REPLAYED if int(removed) == 1 else ReplayOutcome.GONE
