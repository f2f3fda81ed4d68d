"""The one way to queue events: accept them in the ledger, then send them with Celery.

Every publisher goes through here: the receiver (`RedisEnqueuer`: batched, sent at once),
reconciliation (`publish`: accepted due at once, sent by the next sweep), the workers' sweep
of what is due (`send_or_leave`, from `workers.heartbeat_and_sweep`) and the replay of parked events
(`bot.store.deadletters.replay`).

**The ledger of accepted events**: the one mechanism that makes every accepted event run. An
event is accepted when the receiver answers 202 (or reconciliation, or a replay, queues it). In
the same atomic Redis step as its dedupe key (`ACCEPT_SCRIPT`), so two publishers racing on one
logical event accept it once, the event is written to the ledger: a hash
`evalbot:ledger:events` (task id -> the event's JSON) and a sorted set `evalbot:ledger` (task
id -> the Redis time by which it must be done or touched again).

A worker touches the entry when a run starts or schedules a retry (the due time moves to the
run's end, or the retry's, plus `GRACE_S`), and removes it when the event is finished: the
comment written, nothing to report, or parked. Every `SWEEP_EVERY_S` each worker asks the
ledger for the entries past their due time (`DUE_SCRIPT`: each is handed to one sweeper only,
its due time moved on by `GRACE_S`) and sends each again under the same task id, so the run
counts of `workers.tasks` carry over and a poison event is still parked.

So whatever happened to a message (a worker killed while holding it, a Redis restart between
kombu's pop and its bookkeeping, a publish that failed after the 202, a message Celery acked
without finishing the event), the event runs again within `GRACE_S + SWEEP_EVERY_S` of its
last sign of life, on Redis's clock. Running an event twice is safe: the pipeline finds its
own comment by its marker and the PR's lease orders concurrent runs (docs/reliability.md).

**Sending**: once accepted, a message goes out with Celery's public API (`send_task`, under
the ledger entry's task id, with the settings every worker and publisher share:
`celery_settings`).

**The receiver's batches** (`RedisEnqueuer`): each delivery is accepted by the ledger's script
and answered; its message is sent on one thread beside the event loop, not waited for: a Celery
publish costs a few hundred microseconds of Python, which would otherwise sit in every answer.
Deliveries that arrive while a script call is in flight are accepted together in the next call
(group commit): one round trip for the whole batch, while a lone delivery's call starts at
once (no timer, no added latency). Their messages go on a clock: a send starts at most once per
`SEND_GATHER_S`. Messages that find no send in the last window go at once (those of one script
call together); the others gather and go together when the window ends. So an idle receiver
adds no wait, and a busy one still shares each round trip among many messages. A 503 means
the script did not run (or ran whole, and the Hub's retry is then answered as a duplicate: the
event is queued once either way); a 202 means the event is in the ledger, so even a send that
failed after it runs within the ledger's grace.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

import redis
import redis.asyncio
import redis.exceptions
from celery import Celery
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.queue.events import DedupeKey, PrEvent
from bot.store import keys

#: Seconds an entry may go without a sign of life (acceptance, a run's start, a retry's
#: schedule) before it is sent again: above a normal queue wait and run (a burst of 500 PRs
#: drains in about 5 s, a run takes milliseconds to seconds), well under the two minutes a
#: dead worker's PR may wait for its report.
GRACE_S = 30
#: How often each worker looks for overdue entries.
SWEEP_EVERY_S = 10
#: At most this many entries are sent again per sweep (a sweep stays short; the rest wait).
SWEEP_BATCH = 100

# Accept events that were not seen yet. KEYS = [ledger, ledger events, dedupe 1..n];
# ARGV = [grace s, (ttl, delivery id, task id, event json) per event]. Returns 1 (accepted)
# or 0 (duplicate) per event, each due a millisecond after the one before (the sweep sends
# them in that order). Per event: the ledger entry, then the dedupe key; Redis does not
# roll back a script that fails half-way (out of memory), and an entry without its key is
# harmless (one more run), a key without its entry would lose the event.
ACCEPT_SCRIPT = """
local t = redis.call('TIME')
local due = tonumber(t[1]) + tonumber(t[2]) / 1000000 + tonumber(ARGV[1])
local accepted = {}
for i = 3, #KEYS do
  local at = (i - 3) * 4 + 1
  if redis.call('EXISTS', KEYS[i]) == 1 then
    accepted[i - 2] = 0
  else
    redis.call('HSET', KEYS[2], ARGV[at + 3], ARGV[at + 4])
    redis.call('ZADD', KEYS[1], due + (i - 3) / 1000, ARGV[at + 3])
    redis.call('SET', KEYS[i], ARGV[at + 2], 'EX', tonumber(ARGV[at + 1]))
    accepted[i - 2] = 1
  end
end
return accepted
"""

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

# The entries past their due time, each handed to this caller only: its due time moves on by
# the grace. KEYS = [ledger, ledger events]; ARGV = [grace s, batch]. Returns [id, json, ...];
# an entry whose event is gone (never the case when written by ACCEPT_SCRIPT) is dropped.
DUE_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local due = {}
for _, id in ipairs(ids) do
  local event = redis.call('HGET', KEYS[2], id)
  if event then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), id)
    due[#due + 1] = id
    due[#due + 1] = event
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return due
"""

# Move an entry's due time to `seconds` from now, if it is still in the ledger.
# KEYS = [ledger]; ARGV = [task id, seconds].
TOUCH_SCRIPT = """
local t = redis.call('TIME')
return redis.call('ZADD', KEYS[1], 'XX', tonumber(t[1]) + tonumber(ARGV[2]), ARGV[1])
"""


def accept_call(
    items: Sequence[tuple[str, int, str, str, str]], *, grace_s: int = GRACE_S
) -> tuple[list[str], list[str | int]]:
    """KEYS and ARGV of one `ACCEPT_SCRIPT` run over `(dedupe key, ttl s, delivery id, task id,
    event json)` items, due `grace_s` from now (0: the next sweep sends them)."""
    script_keys = [keys.LEDGER, keys.LEDGER_EVENTS]
    args: list[str | int] = [grace_s]
    for dedupe, ttl_s, delivery_id, task_id, event in items:
        script_keys.append(dedupe)
        args += (max(1, ttl_s), delivery_id, task_id, event)
    return script_keys, args


def queue_done(pipe: Any, task_id: str) -> None:
    """Queue, on a redis-py pipeline, the removal of a finished event's entry."""
    pipe.zrem(keys.LEDGER, task_id)
    pipe.hdel(keys.LEDGER_EVENTS, task_id)


def queue_touch(pipe: Any, task_id: str, after_s: float) -> None:
    """Queue, on a redis-py pipeline, a sign of life: the entry (if still there) is due
    `after_s` (a retry's countdown, or 0 for a run starting now) plus the grace from now."""
    pipe.eval(TOUCH_SCRIPT, 1, keys.LEDGER, task_id, after_s + GRACE_S)


def due_pairs(reply: Sequence[Any]) -> list[tuple[str, str]]:
    """`DUE_SCRIPT`'s reply as `(task id, event json)` pairs."""
    texts = [item.decode("utf-8") if isinstance(item, bytes) else str(item) for item in reply]
    return list(zip(texts[::2], texts[1::2], strict=True))


log = logging.getLogger("evalbot.publish")

#: The Celery queue (a Redis list of that name) the receiver and the workers' sweep publish to
#: and the workers consume. One name: the bot's other keys are not named after it, so two
#: deployments could not share a Redis by choosing two queues (each needs its own database).
QUEUE = "evalbot"
#: The Celery task the workers register (`workers.tasks`); one kwarg, `event`.
TASK_NAME = "evalbot.process_pr_event"
#: Seconds a publish may take (connecting included) before it is given up; the ledger sends
#: the event again later.
SEND_TIMEOUT_S = 2.0


def celery_settings(broker_url: str, queue: str) -> dict[str, Any]:
    """What a publisher and the workers must agree on: the broker, the queue, JSON only."""
    return {
        "broker_url": broker_url,
        "task_default_queue": queue,
        "task_default_exchange": queue,
        "task_default_routing_key": queue,
        # JSON only: a pickle message from anyone who can write to Redis would be code execution.
        "task_serializer": "json",
        "accept_content": ["json"],
        "result_backend": None,
        "task_ignore_result": True,
        # A publish never hangs: one try within the timeout; a failed one is the ledger's to
        # send again.
        "broker_connection_timeout": SEND_TIMEOUT_S,
        "broker_transport_options": {
            "socket_timeout": SEND_TIMEOUT_S,
            "socket_connect_timeout": SEND_TIMEOUT_S,
        },
        "task_publish_retry": False,
        "enable_utc": True,
    }


def sender_app(broker_url: str, queue: str) -> Celery:
    """A Celery app that only sends (the receiver's, reconciliation's, the CLI's)."""
    app = Celery("evalbot-publisher", set_as_current=False)
    app.conf.update(celery_settings(broker_url, queue))
    return app


def new_task_id() -> str:
    return str(uuid.uuid4())


def event_json(event: PrEvent) -> str:
    return json.dumps(event.to_json(), separators=(",", ":"), ensure_ascii=False)


#: One accepted event's message: `(task id, event, countdown seconds)`.
Outgoing = tuple[str, Mapping[str, Any], float]


def send(app: Celery, messages: Sequence[Outgoing]) -> None:
    """Send the messages of accepted events, each under its task id, in one Redis round trip
    (kombu's `Producer.batch`, through Celery's producer pool). Raises kombu's
    `OperationalError` or a Redis error when the broker cannot take them."""
    with app.producer_or_acquire() as producer, producer.batch():
        for task_id, event, countdown in messages:
            delivery = str(event.get("delivery_id"))[:200]
            app.send_task(
                TASK_NAME,
                kwargs={"event": dict(event)},
                task_id=task_id,
                countdown=countdown or None,
                producer=producer,
                # For display only (Celery's `saferepr` of the arguments would cost more than
                # the rest of the send): the task's log lines name the delivery.
                argsrepr="()",
                kwargsrepr=f"{{'event': {{'delivery_id': {delivery!r}}}}}",
            )


def dedupe_key(dedupe: DedupeKey) -> str:
    """The Redis key that marks `dedupe` as seen."""
    return keys.DEDUPE_PREFIX + dedupe.key


def publish(
    client: redis.Redis, events: Sequence[tuple[PrEvent, DedupeKey]], *, after_s: int = 0
) -> list[bool]:
    """Accept each event unless its dedupe key is set, due `after_s` from now (0: at once):
    the next sweep of any worker once due sends it (`workers.heartbeat_and_sweep`). For publishers
    to whom ten seconds do not matter (reconciliation, a follow-up run); True where accepted. Raises
    `redis.RedisError` when Redis is unreachable: nothing was accepted then, or the script ran
    whole."""
    if not events:
        return []
    script_keys, args = accept_call(
        [
            (dedupe_key(dedupe), dedupe.ttl_s, event.delivery_id, new_task_id(), event_json(event))
            for event, dedupe in events
        ],
        grace_s=after_s,
    )
    accepted = client.eval(ACCEPT_SCRIPT, len(script_keys), *script_keys, *args)
    return [int(flag) == 1 for flag in accepted]


def send_or_leave(app: Celery, messages: Sequence[Outgoing]) -> bool:
    """`send`, reporting failure instead of raising: the events are in the ledger, which sends
    them again once due. True when sent."""
    try:
        send(app, messages)
    except Exception as error:  # kombu's OperationalError, Redis errors, timeouts: the ledger's
        log.warning(
            "could not send %d accepted event(s); the ledger sends them again: %s",
            len(messages),
            error,
        )
        return False
    return True


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
