"""The Celery message that carries a `PrEvent`: built once here for every publisher.

The receiver publishes without Celery's producer machinery (see `bot.contract.publish`), so it
needs the message as kombu's Redis transport stores it; reconciliation and replay use the same
bytes, and `workers.tasks` registers the task under `TASK_NAME`. Tests prove a real worker
consumes what this builds (tests/integration/receiver/test_celery_consumes.py).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import uuid
from datetime import datetime
from typing import Any

from bot.contract.events import PrEvent

#: The Celery task the workers register (`workers.tasks`); one kwarg, `event`.
TASK_NAME = "evalbot.process_pr_event"


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
