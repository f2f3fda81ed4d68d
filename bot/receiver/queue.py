"""Enqueueing events for the Celery workers: dedupe and publish in one Redis round trip.

A naive `apply_async` per delivery costs a Celery/kombu publish (producer pool, exchange
binding lookup, serialisation layers) and a separate `SET NX` for the dedupe key: two round
trips and ~0.6-0.9 ms of Python per delivery. Here the receiver builds the Celery protocol-2
message itself (the exact envelope kombu's Redis transport stores, see `celery_message`) and a
small Lua script does "not seen yet? then LPUSH the message and mark it seen" atomically, in one
round trip. Atomicity is what makes a failure safe: either both the message and the dedupe key
are written or neither is, so a 503 never leaves a key that would make the Hub's retry look like
a duplicate. If the reply is lost after the script ran, the retry finds the key and is answered
as a duplicate: the event was queued exactly once either way.
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import uuid
from enum import StrEnum
from typing import Any, Protocol

import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from bot.receiver.events import DedupeKey, PrEvent

#: The Celery task the workers register (`workers.tasks`); one kwarg, `event`.
TASK_NAME = "evalbot.process_pr_event"
DEDUPE_PREFIX = "evalbot:dedupe:"

# The script checks before it writes and writes the queue first: Redis does not roll back a
# script that fails half-way, and a message without its dedupe key is harmless (the worker
# tolerates a second run) while a dedupe key without its message would lose the event.
_CLAIM_AND_PUSH = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], ARGV[3], 'EX', tonumber(ARGV[1]))
return 1
"""


class EnqueueOutcome(StrEnum):
    QUEUED = "queued"
    DUPLICATE = "duplicate"


class QueueUnavailable(Exception):
    """The event could not be queued (broker down, full, slow): the Hub must retry."""


class Enqueuer(Protocol):
    """Where the receiver hands events over. Implementations must be safe to call concurrently."""

    async def enqueue(self, event: PrEvent, dedupe: DedupeKey) -> EnqueueOutcome:
        """Queue `event` unless `dedupe` was already claimed; raise `QueueUnavailable` if neither
        queued nor known to be a duplicate."""
        ...

    async def ready(self) -> bool:
        """Whether the broker answers right now (for `/readyz`)."""
        ...

    async def close(self) -> None: ...


def celery_message(
    event: PrEvent, *, queue: str, origin: str, task_id: str | None = None
) -> dict[str, Any]:
    """The Celery protocol-2 message, in the JSON envelope kombu's Redis transport stores.

    Built field for field like `celery.app.amqp.AMQP.as_task_v2` plus kombu's `Channel._put`
    (checked against a message captured from `send_task` with celery/kombu 5.7; the integration
    test has a real worker consume what this builds).
    """
    task_id = task_id or str(uuid.uuid4())
    kwargs = {"event": event.to_json()}
    body = [[], kwargs, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}]
    body_bytes = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return {
        "body": base64.b64encode(body_bytes).decode("ascii"),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": {
            "lang": "py",
            "task": TASK_NAME,
            "id": task_id,
            "shadow": None,
            "eta": None,
            "expires": None,
            "group": None,
            "group_index": None,
            "retries": 0,
            "timelimit": [None, None],
            "root_id": task_id,
            "parent_id": None,
            "argsrepr": "()",
            "kwargsrepr": repr(kwargs)[:1024],
            "origin": origin,
            "ignore_result": True,
            "replaced_task_nesting": 0,
            "stamped_headers": None,
            "stamps": {},
        },
        "properties": {
            "correlation_id": task_id,
            "reply_to": "",
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": queue},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
        },
    }


def decode_celery_message(raw: bytes | str) -> tuple[str, dict[str, Any]]:
    """`(task name, kwargs)` of a message as stored in the queue list (tests, tooling)."""
    envelope = json.loads(raw)
    args, kwargs, _embed = json.loads(base64.b64decode(envelope["body"]))
    if args:
        raise ValueError("evalbot tasks take keyword arguments only")
    return envelope["headers"]["task"], kwargs


class RedisEnqueuer:
    """Dedupe + Celery publish in one atomic Lua call over a shared async Redis client."""

    def __init__(self, client: Any, *, queue: str, timeout_s: float = 2.0) -> None:
        self._client = client
        self._queue = queue
        self._timeout_s = timeout_s
        self._origin = f"evalbot-receiver@{socket.gethostname()}"
        self._script = client.register_script(_CLAIM_AND_PUSH)

    @classmethod
    def from_url(cls, url: str, *, queue: str, timeout_s: float = 2.0) -> RedisEnqueuer:
        """One client (and connection pool) for the process, built once at start-up."""
        client = redis.asyncio.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            # One quick retry covers a connection the server closed while idle; more would only
            # keep the Hub waiting for a 503 it should get promptly.
            retry=Retry(NoBackoff(), 1),
            max_connections=512,
        )
        return cls(client, queue=queue, timeout_s=timeout_s)

    async def enqueue(self, event: PrEvent, dedupe: DedupeKey) -> EnqueueOutcome:
        message = celery_message(event, queue=self._queue, origin=self._origin)
        encoded = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        try:
            async with asyncio.timeout(self._timeout_s * 2):
                claimed = await self._script(
                    keys=[DEDUPE_PREFIX + dedupe.key, self._queue],
                    args=[dedupe.ttl_s, encoded, event.delivery_id],
                )
        except (RedisError, OSError, TimeoutError) as error:
            raise QueueUnavailable(f"{type(error).__name__}: {error}") from error
        return EnqueueOutcome.QUEUED if claimed == 1 else EnqueueOutcome.DUPLICATE

    async def ready(self) -> bool:
        try:
            async with asyncio.timeout(self._timeout_s):
                return bool(await self._client.ping())
        except (RedisError, OSError, TimeoutError):
            return False

    async def close(self) -> None:
        await self._client.aclose()
