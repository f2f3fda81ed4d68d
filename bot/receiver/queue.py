"""Enqueueing events for the Celery workers: dedupe and publish in one Redis round trip.

A naive `apply_async` per delivery costs a Celery/kombu publish (producer pool, exchange
binding lookup, serialisation layers) plus a separate `SET NX` for the dedupe key: two round
trips and most of a millisecond of Python per delivery. Here the receiver builds the Celery
protocol-2 message itself (the envelope kombu's Redis transport stores, see `celery_message`)
and a small Lua script does "not seen yet? then LPUSH the message and mark it seen" atomically.

Deliveries that arrive while a call is in flight are sent together in the next call (group
commit): one round trip and one script run for the whole batch, so the cost per delivery falls
as load rises, while a lone delivery is sent at once (no timer, no added latency).

Failure is safe because of how the script writes: for each event, the message first, then its
dedupe key. A 503 therefore never leaves a key that would make the Hub's retry look like a
duplicate (the event is not lost); if the reply is lost after the script ran, the retry finds
the key and is answered as a duplicate (the event is queued once either way).
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import json
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

from bot.receiver.events import DedupeKey, PrEvent
from bot.receiver.resp import RespConnection, RespError

#: The Celery task the workers register (`workers.tasks`); one kwarg, `event`.
TASK_NAME = "evalbot.process_pr_event"
DEDUPE_PREFIX = "evalbot:dedupe:"

# KEYS = [queue, dedupe key 1..n]; ARGV = [ttl 1, message 1, delivery id 1, ttl 2, ...].
# Per event: check, then LPUSH, then SET. Redis does not roll back a script that fails half-way
# (say, out of memory), and a message without its key is harmless (the worker tolerates a
# second run) while a key without its message would lose the event.
_CLAIM_AND_PUSH = """
local claimed = {}
for i = 2, #KEYS do
  local at = (i - 2) * 3
  if redis.call('EXISTS', KEYS[i]) == 1 then
    claimed[i - 1] = 0
  else
    redis.call('LPUSH', KEYS[1], ARGV[at + 2])
    redis.call('SET', KEYS[i], ARGV[at + 3], 'EX', tonumber(ARGV[at + 1]))
    claimed[i - 1] = 1
  end
end
return claimed
"""
#: The script, for the other publishers of events (reconciliation, replay of parked events),
#: which run it through redis-py: the same atomic "message, then its dedupe key".
CLAIM_AND_PUSH_SCRIPT = _CLAIM_AND_PUSH
#: Commenters a worker found to be no maintainer of a repo (`workers.rechecks`): the value is
#: the allow-list digest they were judged under; the receiver drops their commands while it
#: equals `MAINTAINERS_DIGEST_KEY`.
STRANGER_PREFIX = "evalbot:stranger:"
MAINTAINERS_DIGEST_KEY = "evalbot:maintainers-digest"
#: How long a stranger is remembered: a user who becomes an org member is heard at the latest
#: this long after (the allow-list takes effect at once, through the digest).
STRANGER_TTL_S = 900
#: Per PR: exists for `recheck_interval_s` after a recheck run was queued to start at once.
RECHECK_WINDOW_PREFIX = "evalbot:recheck-window:"
#: Per PR: exists while the one deferred recheck run of the window is waiting.
RECHECK_FOLLOWUP_PREFIX = "evalbot:recheck-followup:"


def stranger_key(repo_id: str, author_id: str) -> str:
    return f"{STRANGER_PREFIX}{repo_id}:{author_id}"


def recheck_keys(repo_id: str, pr_num: int) -> tuple[str, str]:
    """The window and follow-up keys of one PR's rechecks."""
    return (
        f"{RECHECK_WINDOW_PREFIX}{repo_id}:{pr_num}",
        f"{RECHECK_FOLLOWUP_PREFIX}{repo_id}:{pr_num}",
    )


# A command, atomically. KEYS = [queue, dedupe, digest, stranger or "", window or "",
# follow-up or ""]; ARGV = [dedupe ttl, message, delivery id, deferred message, interval ms].
# Returns 0 duplicate, 1 queued, 2 from a known stranger (dropped), 3 coalesced into the
# waiting deferred run. A recheck is pushed at once when the PR's window is closed (and opens
# it); else, once per window, as the deferred message (its ETA is the window's end plus a
# second, the follow-up key lives for the window: an ask that finds the key was posted before
# the deferred run reads the PR), which also stretches the window past that run; else coalesced.
_COMMAND = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local outcome = 1
if KEYS[4] ~= '' then
  local judged = redis.call('GET', KEYS[4])
  if judged and judged == redis.call('GET', KEYS[3]) then outcome = 2 end
end
if outcome == 1 and KEYS[5] ~= '' then
  local interval = tonumber(ARGV[5])
  if redis.call('EXISTS', KEYS[5]) == 0 then
    redis.call('LPUSH', KEYS[1], ARGV[2])
    redis.call('SET', KEYS[5], '1', 'PX', interval)
  elseif redis.call('EXISTS', KEYS[6]) == 0 then
    redis.call('LPUSH', KEYS[1], ARGV[4])
    redis.call('SET', KEYS[6], '1', 'PX', interval)
    redis.call('PEXPIRE', KEYS[5], 2 * interval + 1000)
  else
    outcome = 3
  end
elseif outcome == 1 then
  redis.call('LPUSH', KEYS[1], ARGV[2])
end
redis.call('SET', KEYS[2], ARGV[3], 'EX', tonumber(ARGV[1]))
return outcome
"""
#: Upper bound on events per script call: keeps one call short (Redis runs scripts serially).
MAX_BATCH = 64


class EnqueueOutcome(StrEnum):
    QUEUED = "queued"
    DUPLICATE = "duplicate"
    STRANGER = "stranger"  # a command from a known non-maintainer: dropped, nothing queued
    COALESCED = "coalesced"  # a recheck folded into the PR's waiting run


_COMMAND_OUTCOMES = {
    0: EnqueueOutcome.DUPLICATE,
    1: EnqueueOutcome.QUEUED,
    2: EnqueueOutcome.STRANGER,
    3: EnqueueOutcome.COALESCED,
}


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
    event: PrEvent,
    *,
    queue: str,
    origin: str,
    task_id: str | None = None,
    delivery_tag: str | None = None,
) -> dict[str, Any]:
    """The Celery protocol-2 message, in the JSON envelope kombu's Redis transport stores.

    Built field for field like `celery.app.amqp.AMQP.as_task_v2` plus kombu's `Channel._put`
    (checked against a message captured from `send_task` with celery/kombu 5.7; the integration
    test has a real worker consume what this builds).
    """
    body, kwargsrepr = _task_body(event)
    return _envelope(
        body,
        kwargsrepr,
        queue=queue,
        origin=origin,
        task_id=task_id or str(uuid.uuid4()),
        delivery_tag=delivery_tag or str(uuid.uuid4()),
    )


def _task_body(event: PrEvent) -> tuple[str, str]:
    """(base64 body, kwargs repr): args, kwargs and the (empty) canvas embed."""
    kwargs = json.dumps({"event": event.to_json()}, separators=(",", ":"), ensure_ascii=False)
    body = f"[[],{kwargs},{_EMBED_JSON}]"
    # kwargsrepr is for display only (celery puts a saferepr there); the JSON reads as well.
    return base64.b64encode(body.encode("utf-8")).decode("ascii"), kwargs[:1024]


def _envelope(
    body: str, kwargsrepr: str, *, queue: str, origin: str, task_id: str, delivery_tag: str
) -> dict[str, Any]:
    return {
        "body": body,
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
            "kwargsrepr": kwargsrepr,
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
            "delivery_tag": delivery_tag,
        },
    }


_EMBED_JSON = json.dumps(
    {"callbacks": None, "errbacks": None, "chain": None, "chord": None}, separators=(",", ":")
)
# Placeholders for the per-message values in the cached envelope text (see encode_...).
_ID, _TAG, _BODY, _REPR = "@evalbot-id@", "@evalbot-tag@", "@evalbot-body@", "@evalbot-repr@"


@functools.lru_cache(maxsize=16)
def _envelope_template(queue: str, origin: str) -> str:
    envelope = _envelope(_BODY, _REPR, queue=queue, origin=origin, task_id=_ID, delivery_tag=_TAG)
    return json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)


def encode_celery_message(
    event: PrEvent,
    *,
    queue: str,
    origin: str,
    task_id: str | None = None,
    delivery_tag: str | None = None,
    eta: datetime | None = None,
) -> str:
    """`celery_message` as the JSON text that goes into the queue list.

    Fills a cached envelope text instead of serialising the whole dict per delivery (this runs
    once per webhook). Ids and base64 need no JSON escaping; the kwargs repr is escaped; the
    repr goes in last, so nothing user-supplied is ever searched for placeholders.
    """
    if task_id is None or delivery_tag is None:
        random = os.urandom(32)  # one system call for both ids
        task_id = task_id or str(uuid.UUID(bytes=random[:16], version=4))
        delivery_tag = delivery_tag or str(uuid.UUID(bytes=random[16:], version=4))
    body, kwargsrepr = _task_body(event)
    escaped_repr = json.dumps(kwargsrepr, ensure_ascii=False)[1:-1]
    template = _envelope_template(queue, origin)
    if eta is not None:  # Celery holds the message until then (protocol 2 `eta` header)
        template = template.replace('"eta":null', f'"eta":"{eta.isoformat()}"', 1)
    return (
        template.replace(_ID, task_id)
        .replace(_TAG, delivery_tag)
        .replace(_BODY, body)
        .replace(_REPR, escaped_repr)
    )


def decode_celery_message(raw: bytes | str) -> tuple[str, dict[str, Any]]:
    """`(task name, kwargs)` of a message as stored in the queue list (tests, tooling)."""
    envelope = json.loads(raw)
    args, kwargs, _embed = json.loads(base64.b64decode(envelope["body"]))
    if args:
        raise ValueError("evalbot tasks take keyword arguments only")
    return envelope["headers"]["task"], kwargs


@dataclass(slots=True)
class _Pending:
    key: str
    ttl_s: int
    message: str
    delivery_id: str
    done: asyncio.Future[int]


class RedisEnqueuer:
    """Dedupe + Celery publish through one atomic Lua call per batch, on one lean connection."""

    def __init__(
        self, url: str, *, queue: str, timeout_s: float = 2.0, recheck_interval_s: float = 10.0
    ) -> None:
        self._url = url
        self._recheck_interval_s = recheck_interval_s
        self._queue = queue
        self._timeout_s = timeout_s
        self._origin = f"evalbot-receiver@{socket.gethostname()}"
        self._connection: RespConnection | None = None
        self._connecting = asyncio.Lock()
        self._pending: list[_Pending] = []
        self._flusher: asyncio.Task[None] | None = None

    @classmethod
    def from_url(
        cls, url: str, *, queue: str, timeout_s: float = 2.0, recheck_interval_s: float = 10.0
    ) -> RedisEnqueuer:
        """Connects lazily, on the first event (or readiness check), and again after a loss."""
        return cls(url, queue=queue, timeout_s=timeout_s, recheck_interval_s=recheck_interval_s)

    async def enqueue(self, event: PrEvent, dedupe: DedupeKey) -> EnqueueOutcome:
        if event.kind == "command":
            return await self._enqueue_command(event, dedupe)
        message = encode_celery_message(event, queue=self._queue, origin=self._origin)
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append(
            _Pending(DEDUPE_PREFIX + dedupe.key, dedupe.ttl_s, message, event.delivery_id, done)
        )
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush())
        try:
            async with asyncio.timeout(self._timeout_s * 2):
                claimed = await done  # a cancelled wait cancels `done`; _send then skips it
        except TimeoutError as error:
            raise QueueUnavailable("timed out waiting for Redis") from error
        return EnqueueOutcome.QUEUED if claimed == 1 else EnqueueOutcome.DUPLICATE

    async def _enqueue_command(self, event: PrEvent, dedupe: DedupeKey) -> EnqueueOutcome:
        """A comment command, alone (commands are rare): dropped when its author is a known
        stranger; a recheck coalesced per PR (`_COMMAND`)."""
        message = encode_celery_message(event, queue=self._queue, origin=self._origin)
        deferred = ""
        window = followup = ""
        # A benchmark's PR answers the asking comment itself (workers.benchmark_pr), so only a
        # model PR's rechecks, which are answered from the PR as read, may be coalesced.
        if event.command == "recheck" and event.repo_type == "model":
            window, followup = recheck_keys(event.repo_id, event.pr_num)
            eta = datetime.now(UTC) + timedelta(seconds=self._recheck_interval_s + 1)
            deferred = encode_celery_message(event, queue=self._queue, origin=self._origin, eta=eta)
        author = event.comment_author_id
        keys = [
            self._queue,
            DEDUPE_PREFIX + dedupe.key,
            MAINTAINERS_DIGEST_KEY,
            stranger_key(event.repo_id, author) if author else "",
            window,
            followup,
        ]
        args: list[str | int] = [
            dedupe.ttl_s,
            message,
            event.delivery_id,
            deferred,
            max(1, int(self._recheck_interval_s * 1000)),
        ]
        try:
            async with asyncio.timeout(self._timeout_s):
                connection = await self._connected()
                outcome = await self._call_script(connection, _COMMAND, keys, args)
        except (RespError, OSError, TimeoutError) as error:
            if isinstance(error, TimeoutError):
                self._drop_connection()
            raise QueueUnavailable(f"{type(error).__name__}: {error}") from error
        return _COMMAND_OUTCOMES.get(int(outcome), EnqueueOutcome.QUEUED)

    async def _flush(self) -> None:
        """Send what is pending, batch after batch, until nothing is left."""
        try:
            while self._pending:
                batch = self._pending[:MAX_BATCH]
                del self._pending[:MAX_BATCH]
                await self._send(batch)
        finally:
            self._flusher = None

    async def _send(self, batch: list[_Pending]) -> None:
        keys = [self._queue, *(item.key for item in batch)]
        args: list[str | int] = []
        for item in batch:
            args += (item.ttl_s, item.message, item.delivery_id)
        try:
            async with asyncio.timeout(self._timeout_s):
                claimed = await self._run_script(keys, args)
            if not isinstance(claimed, list) or len(claimed) != len(batch):
                raise QueueUnavailable(f"unexpected script reply {claimed!r:.80}")
        except (RespError, OSError, TimeoutError, QueueUnavailable) as error:
            if isinstance(error, TimeoutError):
                self._drop_connection()  # a stuck connection would delay every later batch
            failure = (
                error
                if isinstance(error, QueueUnavailable)
                else QueueUnavailable(f"{type(error).__name__}: {error}")
            )
            for item in batch:
                if not item.done.done():
                    item.done.set_exception(failure)
            return
        for item, outcome in zip(batch, claimed, strict=True):
            if not item.done.done():
                item.done.set_result(int(outcome))

    async def _run_script(self, keys: list[str], args: list[str | int]) -> Any:
        connection = await self._connected()
        return await self._call_script(connection, _CLAIM_AND_PUSH, keys, args)

    @staticmethod
    async def _call_script(
        connection: RespConnection, script: str, keys: list[str], args: list[str | int]
    ) -> Any:
        sha = hashlib.sha1(script.encode()).hexdigest()  # noqa: S324 - Redis names scripts by SHA-1
        try:
            return await connection.call("EVALSHA", sha, len(keys), *keys, *args)
        except RespError as error:
            if not str(error).startswith("NOSCRIPT"):
                raise
            # First use, or Redis restarted and lost its script cache: send the body (this also
            # caches it under the same SHA for the next call).
            return await connection.call("EVAL", script, len(keys), *keys, *args)

    async def _connected(self) -> RespConnection:
        connection = self._connection
        if connection is not None and connection.usable:
            return connection
        async with self._connecting:
            if self._connection is None or not self._connection.usable:
                self._drop_connection()
                self._connection = await RespConnection.open(self._url, timeout_s=self._timeout_s)
            return self._connection

    def _drop_connection(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def ready(self) -> bool:
        try:
            async with asyncio.timeout(self._timeout_s):
                connection = await self._connected()
                return bool(await connection.call("PING") == "PONG")
        except (RespError, OSError, TimeoutError):
            return False

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.wait([self._flusher], timeout=self._timeout_s * 2)
        self._drop_connection()
