"""Enqueueing events for the Celery workers: dedupe and publish in one Redis round trip.

A naive `apply_async` per delivery costs a Celery/kombu publish (producer pool, exchange
binding lookup, serialisation layers) plus a separate `SET NX` for the dedupe key: two round
trips and most of a millisecond of Python per delivery. Here the receiver builds the Celery
protocol-2 message itself (`bot.contract.messages`, the envelope kombu's Redis transport stores)
and the contract's script does "not seen yet? then LPUSH the message and mark it seen"
atomically (`bot.contract.publish`, the one way every publisher queues events).

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
import socket
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

import redis.asyncio
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.contract.events import DedupeKey, PrEvent
from bot.contract.messages import encode_celery_message
from bot.contract.publish import CLAIM_AND_PUSH_SCRIPT, COMMAND_SCRIPT, dedupe_key, script_call
from bot.store import keys

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


@dataclass(slots=True)
class _Pending:
    key: str
    ttl_s: int
    message: str
    delivery_id: str
    done: asyncio.Future[int]


class RedisEnqueuer:
    """Dedupe + Celery publish through one atomic Lua call per batch (redis-py's asyncio client).

    The scripts are registered once (`EVALSHA`, and `EVAL` again after a Redis restart lost the
    script cache: redis-py's `Script` does that). Connections come from redis-py's pool; one is
    enough, since batches go one at a time.
    """

    def __init__(
        self, url: str, *, queue: str, timeout_s: float = 2.0, recheck_interval_s: float = 10.0
    ) -> None:
        self._recheck_interval_s = recheck_interval_s
        self._queue = queue
        self._timeout_s = timeout_s
        self._origin = f"evalbot-receiver@{socket.gethostname()}"
        self._client = redis.asyncio.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            # No retries inside the client: a failed call answers 503 at once and the Hub
            # retries the delivery (a silent retry of the script would only add latency).
            retry=Retry(NoBackoff(), 0),
        )
        self._claim_and_push = self._client.register_script(CLAIM_AND_PUSH_SCRIPT)
        self._command = self._client.register_script(COMMAND_SCRIPT)
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
            _Pending(dedupe_key(dedupe), dedupe.ttl_s, message, event.delivery_id, done)
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
            window, followup = keys.recheck(event.repo_id, event.pr_num)
            eta = datetime.now(UTC) + timedelta(seconds=self._recheck_interval_s + 1)
            deferred = encode_celery_message(event, queue=self._queue, origin=self._origin, eta=eta)
        author = event.comment_author_id
        script_keys = [
            self._queue,
            dedupe_key(dedupe),
            keys.MAINTAINERS_DIGEST,
            keys.stranger(event.repo_id, author) if author else "",
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
                outcome = await self._command(keys=script_keys, args=args)
        except (redis.exceptions.RedisError, OSError, TimeoutError) as error:
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
        keys, args = script_call(
            [(item.key, item.ttl_s, item.message, item.delivery_id) for item in batch],
            queue=self._queue,
        )
        try:
            async with asyncio.timeout(self._timeout_s):
                claimed = await self._run_script(keys, args)
            if not isinstance(claimed, list) or len(claimed) != len(batch):
                raise QueueUnavailable(f"unexpected script reply {claimed!r:.80}")
        except (redis.exceptions.RedisError, OSError, TimeoutError, QueueUnavailable) as error:
            # (redis-py closes a connection whose command timed out instead of returning it to
            # the pool, so a late reply can never be read as the next batch's.)
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
        return await self._claim_and_push(keys=keys, args=args)

    async def ready(self) -> bool:
        try:
            async with asyncio.timeout(self._timeout_s):
                return bool(await self._client.ping())
        except (redis.exceptions.RedisError, OSError, TimeoutError):
            return False

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.wait([self._flusher], timeout=self._timeout_s * 2)
        await self._client.aclose()
