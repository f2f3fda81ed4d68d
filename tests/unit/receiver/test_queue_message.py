"""The Celery message the receiver writes: the same as the reference dict, decodable, unique."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.contract.events import PrEvent
from bot.contract.messages import (
    TASK_NAME,
    celery_message,
    decode_celery_message,
    encode_celery_message,
)

TEXT = st.text(max_size=60) | st.sampled_from(
    ["@evalbot-id@", "@evalbot-repr@", '"\\\n', "é\u2028"]
)


@settings(max_examples=200, deadline=None)
@given(repo=TEXT, delivery=TEXT.filter(bool), comment=st.none() | TEXT)
def test_fast_encoding_equals_the_reference_message(
    repo: str, delivery: str, comment: str | None
) -> None:
    event = PrEvent(
        kind="command",
        repo_id=repo or "a/b",
        pr_num=12,
        delivery_id=delivery,
        received_at="2026-11-22T08:00:00.000Z",
        command="recheck",
        comment_id=comment,
    )
    ids = {"task_id": "11111111-2222-4333-8444-555555555555", "delivery_tag": "tag-1"}
    encoded = encode_celery_message(
        event, queue="evalbot", origin="receiver@host", task_id=ids["task_id"], delivery_tag="tag-1"
    )
    assert json.loads(encoded) == celery_message(
        event, queue="evalbot", origin="receiver@host", **ids
    )
    task, kwargs = decode_celery_message(encoded)
    assert task == TASK_NAME
    assert PrEvent.from_json(kwargs["event"]) == event


def test_ids_are_fresh_uuid4_per_message() -> None:
    event = PrEvent(
        kind="opened", repo_id="a/b", pr_num=1, delivery_id="d", received_at="2026-01-01T00:00:00Z"
    )
    messages = [json.loads(encode_celery_message(event, queue="q", origin="o")) for _ in range(50)]
    ids = {m["headers"]["id"] for m in messages} | {
        m["properties"]["delivery_tag"] for m in messages
    }
    assert len(ids) == 100
    first = messages[0]
    assert (
        first["headers"]["id"]
        == first["headers"]["root_id"]
        == first["properties"]["correlation_id"]
    )
    assert first["headers"]["id"][14] == "4"  # a version-4 UUID, as Celery makes
    assert first["properties"]["delivery_info"] == {"exchange": "", "routing_key": "q"}


def test_a_deferred_message_carries_its_eta_and_is_otherwise_the_same() -> None:
    """A coalesced recheck's deferred run is the same message with Celery's `eta` header."""
    from datetime import UTC, datetime

    event = PrEvent(
        kind="command",
        repo_id="a/b",
        pr_num=3,
        delivery_id="d-1",
        received_at="2026-11-22T08:00:00.000Z",
        command="recheck",
        comment_id="c1",
    )
    at = datetime(2026, 11, 24, 18, 0, 11, tzinfo=UTC)
    task_id = "11111111-2222-4333-8444-555555555555"
    now = json.loads(
        encode_celery_message(event, queue="q", origin="o", task_id=task_id, delivery_tag="t")
    )
    later = json.loads(
        encode_celery_message(
            event, queue="q", origin="o", task_id=task_id, delivery_tag="t", eta=at
        )
    )
    assert later["headers"].pop("eta") == "2026-11-24T18:00:11+00:00"
    assert now["headers"].pop("eta") is None
    assert later == now


def test_the_message_is_what_celerys_own_builder_makes() -> None:
    """The envelope is built by hand for speed (bench/enqueue.py: Celery's `as_task_v2` plus
    kombu's serialiser cost more CPU per delivery than the whole batched enqueue); this holds
    it to Celery's own protocol-2 builder, so an upgrade that changes the protocol fails here."""
    import base64

    from celery import Celery

    event = PrEvent(
        kind="updated",
        repo_id="acme/llama-9b",
        pr_num=3,
        delivery_id="d-1",
        received_at="2026-11-24T00:00:00.000Z",
        head_sha="0" * 40,
    )
    task_id = "11111111-2222-4333-8444-555555555555"
    ours = celery_message(
        event, queue="evalbot", origin="receiver@host", task_id=task_id, delivery_tag="t"
    )
    reference = Celery("evalbot", set_as_current=False).amqp.as_task_v2(
        task_id,
        TASK_NAME,
        args=(),
        kwargs={"event": event.to_json()},
        origin="receiver@host",
        ignore_result=True,
    )
    expected_headers = dict(reference.headers)
    # Display-only reprs: Celery writes saferepr, ours the JSON (docs/operating.md).
    for name in ("argsrepr", "kwargsrepr"):
        expected_headers[name] = ours["headers"][name]
    assert ours["headers"] == expected_headers
    assert json.loads(base64.b64decode(ours["body"])) == json.loads(json.dumps(reference.body))
    assert ours["properties"]["correlation_id"] == reference.properties["correlation_id"]
    assert ours["properties"]["reply_to"] == reference.properties["reply_to"]
