"""Reading what is queued, for tests: the Celery messages in the queue list (as kombu's Redis
transport stores them) and the ledger's entries."""

from __future__ import annotations

import base64
import json
from typing import Any, cast

import redis

from bot.store import keys


def decode_celery_message(raw: bytes | str) -> tuple[str, dict[str, Any]]:
    """`(task name, kwargs)` of a message as stored in the queue list."""
    envelope = json.loads(raw)
    args, kwargs, _embed = json.loads(base64.b64decode(envelope["body"]))
    if args:
        raise ValueError("evalbot tasks take keyword arguments only")
    return envelope["headers"]["task"], kwargs


def task_id_of(raw: bytes | str) -> str:
    return str(json.loads(raw)["headers"]["id"])


def ledger_events(client: redis.Redis) -> dict[str, dict[str, Any]]:
    """The ledger's entries: task id -> event."""
    return {
        (key.decode() if isinstance(key, bytes) else key): json.loads(value)
        for key, value in client.hgetall(keys.LEDGER_EVENTS).items()
    }


def ledger_in_order(client: redis.Redis) -> list[dict[str, Any]]:
    """The ledger's events, soonest due first (the order the sweep sends them)."""
    ids = [cast(bytes, task_id) for task_id in client.zrange(keys.LEDGER, 0, -1)]
    texts = client.hmget(keys.LEDGER_EVENTS, ids) if ids else []
    return [json.loads(text) for text in texts if text is not None]
