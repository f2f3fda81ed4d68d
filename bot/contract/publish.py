"""The one way to queue events: accept them in the ledger, then send them with Celery.

Accepting is one atomic Redis script (`bot.contract.ledger`): the dedupe key and the ledger
entry, so two publishers racing on one logical event accept it once, and an accepted event is
never lost whatever happens to its message. The message is sent with Celery's public API
(`send_task`, under the ledger entry's task id, with the settings every worker and publisher
share: `celery_settings`): by the receiver at once (`bot.receiver.queue`), and by the workers'
sweep for what is due (`workers.liveness`: reconciliation's catch-ups, accepted due at once by
`publish`, and the replay of parked events, `bot.store.deadletters.replay`).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import redis
from celery import Celery

from bot.contract.events import DedupeKey, PrEvent
from bot.contract.ledger import ACCEPT_SCRIPT, accept_call
from bot.store.keys import DEDUPE_PREFIX

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
    return DEDUPE_PREFIX + dedupe.key


def publish(client: redis.Redis, events: Sequence[tuple[PrEvent, DedupeKey]]) -> list[bool]:
    """Accept each event unless its dedupe key is set, due at once: the next sweep of any
    worker sends it (`workers.liveness`). For publishers to whom ten seconds do not matter
    (reconciliation); True where accepted. Raises `redis.RedisError` when Redis is
    unreachable: nothing was accepted then, or the script ran whole."""
    if not events:
        return []
    script_keys, args = accept_call(
        [
            (dedupe_key(dedupe), dedupe.ttl_s, event.delivery_id, new_task_id(), event_json(event))
            for event, dedupe in events
        ],
        grace_s=0,
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
