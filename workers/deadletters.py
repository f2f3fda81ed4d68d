"""Parked events: work the bot gave up on, kept where an operator can see and replay it.

Redis has no dead-letter queue (security.md §5.1), so a poison event (one that fails the same
way every time, or kills its worker) is pushed here with the reason, instead of looping
forever or vanishing. `evalbot` metrics count them; the list is capped so it cannot grow
without bound.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import redis

from bot.workstats import DEAD_LETTERS, OUTCOME_PREFIX, PARKED_PREFIX, STATS

__all__ = ["DEAD_LETTERS", "MAX_PARKED", "STATS", "count_outcome", "park", "parked"]

MAX_PARKED = 1000


def park(client: redis.Redis, event: Any, reason: str, detail: str = "") -> None:
    """Keep `event` with why it was given up on; newest first, at most `MAX_PARKED`."""
    record = {
        "parked_at": datetime.now(UTC).isoformat(),
        "reason": reason,
        "detail": detail[:2000],
        "event": event,
    }
    pipe = client.pipeline(transaction=True)
    pipe.lpush(DEAD_LETTERS, json.dumps(record, default=str))
    pipe.ltrim(DEAD_LETTERS, 0, MAX_PARKED - 1)
    pipe.hincrby(STATS, f"{PARKED_PREFIX}{reason}", 1)
    pipe.execute()


def parked(client: redis.Redis, limit: int = 100) -> list[dict[str, Any]]:
    """The most recently parked events (newest first)."""
    return [json.loads(raw) for raw in client.lrange(DEAD_LETTERS, 0, limit - 1)]


def count_outcome(client: redis.Redis, outcome: str) -> None:
    client.hincrby(STATS, f"{OUTCOME_PREFIX}{outcome}", 1)
