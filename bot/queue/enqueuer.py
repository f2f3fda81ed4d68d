"""The receiver's side of the queue: `RedisEnqueuer` accepts deliveries and comment commands
in the ledger in batched script calls and sends their messages with Celery on one thread
(docs/reliability.md, "The ledger"; docs/operating.md, "What is queued")."""

from __future__ import annotations

import asyncio
import logging
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

import redis
import redis.asyncio
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.queue.events import DedupeKey, PrEvent
from bot.queue.publishing import (
    ACCEPT_SCRIPT,
    GRACE_S,
    Outgoing,
    accept_call,
    dedupe_key,
    event_json,
    new_task_id,
    send_or_leave,
    sender_app,
)
from bot.store import keys

log = logging.getLogger("evalbot.publish")

# A comment command. KEYS = [ledger, ledger events, dedupe, digest, stranger or "", window or
# "", follow-up or ""]; ARGV = [grace s, dedupe ttl, delivery id, task id, event json,
# interval ms]. Returns 0 duplicate, 1 accepted to run now, 2 from a known stranger (dropped),
# 3 coalesced into the waiting deferred run, 4 accepted to run after the PR's recheck window.
# A recheck runs at once when the PR's window is closed (and opens it); else, once per window,
# deferred to the window's end plus a second (the follow-up key lives for the window: an ask
# that finds the key was posted before the deferred run reads the PR), which also stretches
# the window past that run; else it is coalesced.
COMMAND_SCRIPT = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local outcome = 1
if KEYS[5] ~= '' then
  local judged = redis.call('GET', KEYS[5])
  if judged and judged == redis.call('GET', KEYS[4]) then outcome = 2 end
end
local interval = tonumber(ARGV[6])
if outcome == 1 and KEYS[6] ~= '' then
  if redis.call('EXISTS', KEYS[6]) == 0 then
    redis.call('SET', KEYS[6], '1', 'PX', interval)
  elseif redis.call('EXISTS', KEYS[7]) == 0 then
    redis.call('SET', KEYS[7], '1', 'PX', interval)
    redis.call('PEXPIRE', KEYS[6], 2 * interval + 1000)
    outcome = 4
  else
    outcome = 3
  end
end
if outcome == 1 or outcome == 4 then
  local t = redis.call('TIME')
  local due = tonumber(t[1]) + tonumber(ARGV[1])
  if outcome == 4 then due = due + interval / 1000 + 1 end
  redis.call('HSET', KEYS[2], ARGV[4], ARGV[5])
  redis.call('ZADD', KEYS[1], due, ARGV[4])
end
redis.call('SET', KEYS[3], ARGV[3], 'EX', tonumber(ARGV[2]))
return outcome
"""


#: Upper bound on events per script call: keeps one call short (Redis runs scripts serially).
MAX_BATCH = 64
#: Accepted events whose message waits for the sending thread, at most; past it an event is
#: left to the ledger's sweep (it is accepted: it runs within the ledger's grace).
MAX_UNSENT = 1000
#: Sends start at most this often; messages accepted in between gather and go together: a
#: Celery publish costs about 460 us of CPU alone and 120-160 us in a batch of 16 or more. A
#: message that finds no send in the last window goes at once, so an idle receiver adds no wait.
SEND_GATHER_S = 0.05


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
    4: EnqueueOutcome.QUEUED,  # to run after the PR's recheck window
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
    delivery_id: str
    task_id: str
    event: str
    done: asyncio.Future[int]


#: Per PR, a maintainer's `recheck` runs at once, and every ask within this many seconds after
#: it is coalesced into one more run at the window's end (docs/comment.md): a maintainer who
#: asks twice, or two who ask at once, cost one more run, not one each. Long enough to catch a
#: double ask, short enough that the second run still feels like an answer; far below the
#: workers' visibility timeout, so a delayed run is never redelivered while it waits.
RECHECK_INTERVAL_S = 10.0


class RedisEnqueuer:
    """Accept through one atomic script call per batch (redis-py's asyncio client), then send
    with Celery on one thread.

    The scripts are registered once (`EVALSHA`, and `EVAL` again after a Redis restart lost the
    script cache: redis-py's `Script` does that). Connections come from redis-py's pool; one is
    enough, since batches go one at a time.
    """

    def __init__(
        self, url: str, *, queue: str, timeout_s: float = 2.0, recheck_interval_s: float = 10.0
    ) -> None:
        """Connects lazily, on the first event (or readiness check), and again after a loss."""
        self._recheck_interval_s = recheck_interval_s
        self._timeout_s = timeout_s
        self._client = redis.asyncio.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            # No retries inside the client: a failed call answers 503 at once and the Hub
            # retries the delivery (a silent retry of the script would only add latency).
            retry=Retry(NoBackoff(), 0),
        )
        self._accept = self._client.register_script(ACCEPT_SCRIPT)
        self._command = self._client.register_script(COMMAND_SCRIPT)
        self._celery = sender_app(url, queue)
        self._sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalbot-send")
        self._outgoing: list[Outgoing] = []
        self._sending: asyncio.Future[bool] | None = None
        self._gathering: asyncio.Handle | None = None  # the next send, scheduled
        self._last_send_at = -math.inf  # the event loop's clock
        self._pending: list[_Pending] = []
        self._flusher: asyncio.Task[None] | None = None

    async def enqueue(self, event: PrEvent, dedupe: DedupeKey) -> EnqueueOutcome:
        if event.kind == "command":
            return await self._enqueue_command(event, dedupe)
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        task_id = new_task_id()
        self._pending.append(
            _Pending(
                dedupe_key(dedupe),
                dedupe.ttl_s,
                event.delivery_id,
                task_id,
                event_json(event),
                done,
            )
        )
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush())
        try:
            async with asyncio.timeout(self._timeout_s * 2):
                accepted = await done  # a cancelled wait cancels `done`; _accept_batch skips it
        except TimeoutError as error:
            raise QueueUnavailable("timed out waiting for Redis") from error
        if accepted != 1:
            return EnqueueOutcome.DUPLICATE
        self._send(task_id, event)
        return EnqueueOutcome.QUEUED

    def _send(self, task_id: str, event: PrEvent, countdown: float = 0.0) -> None:
        """Hand an accepted event's message to the sending thread, without waiting for it: the
        202 stands on the ledger (a send that fails, or is never made because too many wait,
        is the ledger's to make once the event is due)."""
        if len(self._outgoing) >= MAX_UNSENT:
            return
        self._outgoing.append((task_id, event.to_json(), countdown))
        self._schedule_send()

    def _schedule_send(self) -> None:
        """Send what waits at once when no send started in the last `SEND_GATHER_S` (on the
        loop's next turn, so the messages of one script call go together), else when that
        window ends or the send in flight is done, whichever is later: one round trip for all
        the messages gathered meanwhile."""
        if self._sending is not None or self._gathering is not None:
            return
        loop = asyncio.get_running_loop()
        wait_s = self._last_send_at + SEND_GATHER_S - loop.time()
        if wait_s <= 0:
            self._gathering = loop.call_soon(self._send_next)
        else:
            self._gathering = loop.call_later(wait_s, self._send_next)

    def _send_next(self) -> None:
        self._gathering = None
        loop = asyncio.get_running_loop()
        self._last_send_at = loop.time()
        batch, self._outgoing = self._outgoing, []
        self._sending = loop.run_in_executor(self._sender, send_or_leave, self._celery, batch)
        self._sending.add_done_callback(self._sent)

    def _sent(self, _: asyncio.Future[bool]) -> None:
        self._sending = None
        if self._outgoing:
            self._schedule_send()

    async def _enqueue_command(self, event: PrEvent, dedupe: DedupeKey) -> EnqueueOutcome:
        """A comment command, alone (commands are rare): dropped when its author is a known
        stranger; a recheck coalesced per PR (`COMMAND_SCRIPT`)."""
        window = followup = ""
        # A benchmark's PR answers the asking comment itself (workers.benchmark_pr), so only a
        # model PR's rechecks, which are answered from the PR as read, may be coalesced.
        if event.command == "recheck" and event.repo_type == "model":
            window, followup = keys.recheck(event.repo_id, event.pr_num)
        author = event.comment_author_id
        task_id = new_task_id()
        script_keys = [
            keys.LEDGER,
            keys.LEDGER_EVENTS,
            dedupe_key(dedupe),
            keys.MAINTAINERS_DIGEST,
            keys.stranger(event.repo_id, author) if author else "",
            window,
            followup,
        ]
        args: list[str | int] = [
            GRACE_S,
            max(1, dedupe.ttl_s),
            event.delivery_id,
            task_id,
            event_json(event),
            max(1, int(self._recheck_interval_s * 1000)),
        ]
        try:
            async with asyncio.timeout(self._timeout_s):
                outcome = int(await self._command(keys=script_keys, args=args))
        except (redis.exceptions.RedisError, OSError, TimeoutError) as error:
            raise QueueUnavailable(f"{type(error).__name__}: {error}") from error
        if outcome in (1, 4):
            self._send(task_id, event, self._recheck_interval_s + 1 if outcome == 4 else 0)
        return _COMMAND_OUTCOMES.get(outcome, EnqueueOutcome.QUEUED)

    async def _flush(self) -> None:
        """Accept what is pending, batch after batch, until nothing is left."""
        try:
            while self._pending:
                batch = self._pending[:MAX_BATCH]
                del self._pending[:MAX_BATCH]
                await self._accept_batch(batch)
        finally:
            self._flusher = None

    async def _accept_batch(self, batch: list[_Pending]) -> None:
        script_keys, args = accept_call(
            [(item.key, item.ttl_s, item.delivery_id, item.task_id, item.event) for item in batch]
        )
        try:
            async with asyncio.timeout(self._timeout_s):
                accepted = await self._accept(keys=script_keys, args=args)
            if not isinstance(accepted, list) or len(accepted) != len(batch):
                raise QueueUnavailable(f"unexpected script reply {accepted!r:.80}")
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
        for item, outcome in zip(batch, accepted, strict=True):
            if not item.done.done():
                item.done.set_result(int(outcome))

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
        # The messages still waiting go out, for a bounded time; the rest are left: their
        # events are in the ledger.
        try:
            async with asyncio.timeout(self._timeout_s * 2):
                while True:
                    if self._gathering is not None:  # no waiting for the window now
                        self._gathering.cancel()
                        self._send_next()
                    sending = self._sending
                    if sending is None:
                        break
                    await asyncio.wait([sending])
                    await asyncio.sleep(0)  # let `_sent` schedule what gathered meanwhile
        except TimeoutError:
            pass
        self._sender.shutdown(wait=False, cancel_futures=True)
        self._celery.close()
