"""The one way to queue events, for every publisher: accept them in the ledger, in one atomic
script with their dedupe key, then send them with Celery; and the workers' side of the ledger
(docs/reliability.md, "The ledger")."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import redis
import redis.asyncio
import redis.exceptions
from celery import Celery

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
