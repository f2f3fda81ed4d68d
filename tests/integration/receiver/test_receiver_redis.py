"""The receiver under uvicorn (`evalbot serve`) against a real redis-server."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from bot.queue.events import PrEvent
from bot.queue.publishing import TASK_NAME
from bot.store.keys import DEDUPE_PREFIX
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from tests.support.processes import TEST_SECRET, TEST_TUNING, ReceiverProcess, bot_environment
from tests.support.queued import decode_celery_message
from tests.support.samples import webhook_bytes
from tests.support.tuning import tuned

pytestmark = pytest.mark.integration

HEADERS = {"Content-Type": "application/json", "X-Webhook-Secret": TEST_SECRET}
PUSH = webhook_bytes("pr_push.repo_content_update")


def running_receiver(
    redis_server: RedisServer, tmp_path: Path, tuning: dict[str, float]
) -> Iterator[ReceiverProcess]:
    process = ReceiverProcess.create(bot_environment(redis_server.url, **tuned(tuning)), tmp_path)
    try:
        yield process.start()
    finally:
        process.stop()


@pytest.fixture
def receiver(redis_server: RedisServer, tmp_path: Path) -> Iterator[ReceiverProcess]:
    """A receiver that cuts off headers and bodies after 0.5 s, so a slow sender's test
    finishes in a second."""
    yield from running_receiver(
        redis_server, tmp_path, {**TEST_TUNING, "bot.httpguards.BODY_TIMEOUT_S": 0.5}
    )


@pytest.fixture
def patient_receiver(redis_server: RedisServer, tmp_path: Path) -> Iterator[ReceiverProcess]:
    """A receiver with production's 10 s for headers and bodies: a burst's connections wait
    their turn in the client while the machine is busy, and 0.5 s would cut them off."""
    yield from running_receiver(redis_server, tmp_path, dict(TEST_TUNING))


@pytest.fixture
def broker(redis_server: RedisServer) -> Iterator[redis.Redis]:
    client = redis_server.client()
    try:
        yield client
    finally:
        client.close()


def deliver(
    receiver: ReceiverProcess, body: bytes, webhook_id: str | None = None
) -> httpx.Response:
    headers = HEADERS | ({"Webhook-Id": webhook_id} if webhook_id else {})
    return httpx.post(f"{receiver.url}/webhooks/hub", content=body, headers=headers, timeout=10)


def test_delivery_is_queued_as_a_celery_message(
    receiver: ReceiverProcess, broker: redis.Redis
) -> None:
    response = deliver(receiver, PUSH, webhook_id="6651f00d00000001")
    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    # The 202 stands on the ledger; the message follows from the receiver's sending thread.
    [raw] = wait_until(lambda: broker.lrange("evalbot", 0, -1), timeout=10, what="the message")
    task, kwargs = decode_celery_message(raw)
    assert task == TASK_NAME
    event = PrEvent.from_json(kwargs["event"])
    assert (event.kind, event.repo_id, event.pr_num, event.delivery_id) == (
        "updated",
        "acme-labs/tiny-llm",
        7,
        "6651f00d00000001",
    )
    assert event.head_sha == "b4d6f8a0c2e4a6b8d0f2c4e6a8b0d2f4c6e8a0b2"
    key = f"{DEDUPE_PREFIX}wid:6651f00d00000001"
    assert 0 < broker.ttl(key) <= 24 * 3600
    assert deliver(receiver, PUSH, webhook_id="6651f00d00000001").json()["status"] == "duplicate"
    assert broker.llen("evalbot") == 1


def test_redis_down_is_503_then_the_retry_is_queued_exactly_once(
    receiver: ReceiverProcess, redis_server: RedisServer, broker: redis.Redis
) -> None:
    assert httpx.get(f"{receiver.url}/readyz").status_code == 200
    redis_server.stop()
    response = deliver(receiver, PUSH, webhook_id="retry-me")
    assert response.status_code == 503
    assert response.headers["retry-after"]
    assert httpx.get(f"{receiver.url}/readyz").status_code == 503
    assert httpx.get(f"{receiver.url}/healthz").status_code == 200

    redis_server.start()  # same port, same AOF directory: what was written survives
    assert broker.exists(f"{DEDUPE_PREFIX}wid:retry-me") == 0, "nothing recorded as seen"
    assert broker.llen("evalbot") == 0
    wait_until(
        lambda: httpx.get(f"{receiver.url}/readyz").status_code == 200,
        timeout=10,
        what="receiver ready again",
    )
    statuses = [deliver(receiver, PUSH, webhook_id="retry-me").json()["status"] for _ in range(3)]
    assert statuses == ["queued", "duplicate", "duplicate"]
    wait_until(lambda: broker.llen("evalbot") == 1, timeout=10, what="the one message")
    metrics = httpx.get(f"{receiver.url}/metrics").text
    assert 'evalbot_receiver_deliveries_total{outcome="unavailable"} 1.0' in metrics


def test_concurrent_burst_of_a_thousand_deliveries(
    patient_receiver: ReceiverProcess, broker: redis.Redis
) -> None:
    """500 distinct events, each delivered twice at once: 500 messages, no loss, no double."""
    receiver = patient_receiver

    async def burst() -> list[int]:
        # 50 connections at once; the semaphore keeps httpx's pool from queueing 1,000 waiters
        # (its pool gets slow with many), the load on the receiver is the same.
        in_flight = asyncio.Semaphore(50)
        async with httpx.AsyncClient(base_url=receiver.url, timeout=30) as client:

            async def one(index: int) -> int:
                async with in_flight:
                    response = await client.post(
                        "/webhooks/hub",
                        content=PUSH,
                        headers=HEADERS | {"Webhook-Id": f"burst-{index % 500}"},
                    )
                    return response.status_code

            return list(await asyncio.gather(*(one(index) for index in range(1000))))

    statuses = asyncio.run(burst())
    assert statuses == [202] * 1000
    assert broker.llen("evalbot") == 500
    ids = {
        PrEvent.from_json(decode_celery_message(raw)[1]["event"]).delivery_id
        for raw in broker.lrange("evalbot", 0, -1)
    }
    assert ids == {f"burst-{index}" for index in range(500)}


def raw_request(port: int, request: bytes, *, then_wait: bool = True) -> bytes:
    """Send bytes as they are (no client normalisation) and read the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request)
        chunks = []
        while then_wait:
            chunk = connection.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            if b"\r\n\r\n" in b"".join(chunks):
                break
        return b"".join(chunks)


def test_slow_body_is_cut_off(receiver: ReceiverProcess, broker: redis.Redis) -> None:
    head = (
        b"POST /webhooks/hub HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"X-Webhook-Secret: " + TEST_SECRET.encode() + b"\r\n"
        b"Content-Length: " + str(len(PUSH)).encode() + b"\r\n\r\n"
    )
    answer = raw_request(receiver.port, head + PUSH[:50])  # ... and the rest never comes
    assert answer.startswith(b"HTTP/1.1 408")
    assert broker.llen("evalbot") == 0


def test_chunked_body_over_the_cap_is_413(receiver: ReceiverProcess) -> None:
    piece = b"x" * 65536
    chunk = hex(len(piece))[2:].encode() + b"\r\n" + piece + b"\r\n"
    request = (
        b"POST /webhooks/hub HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"X-Webhook-Secret: "
        + TEST_SECRET.encode()
        + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunk * 20  # 1.25 MiB, no Content-Length anywhere
        + b"0\r\n\r\n"
    )
    assert raw_request(receiver.port, request).startswith(b"HTTP/1.1 413")


def test_declared_oversize_body_is_refused_unread(receiver: ReceiverProcess) -> None:
    head = (
        b"POST /webhooks/hub HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 10485760\r\n\r\n"
    )
    assert raw_request(receiver.port, head).startswith(b"HTTP/1.1 413")


def test_sender_leaving_mid_body_is_logged_not_a_crash(receiver: ReceiverProcess) -> None:
    head = (
        b"POST /webhooks/hub HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"X-Webhook-Secret: " + TEST_SECRET.encode() + b"\r\nWebhook-Id: gone-mid-body\r\n"
        b"Content-Length: " + str(len(PUSH)).encode() + b"\r\n\r\n"
    )
    raw_request(receiver.port, head + PUSH[:50], then_wait=False)  # closes right away
    line = wait_until(
        lambda: next(
            (line for line in receiver.output().splitlines() if "gone-mid-body" in line), None
        ),
        timeout=10,
        what="the delivery's log line",
    )
    assert '"outcome": "bad_request"' in line
    assert "Traceback" not in receiver.output()
    assert httpx.get(f"{receiver.url}/healthz").status_code == 200


def test_a_secret_in_the_query_string_is_never_logged(receiver: ReceiverProcess) -> None:
    """uvicorn's access log would record `?secret=...` from a sender that puts the secret in
    the URL; `evalbot serve` runs without it and logs its own line per delivery."""
    leaked = "query-secret-3c1d"
    for secret, webhook_id in ((TEST_SECRET, "query-ok"), (leaked, "query-bad")):
        response = httpx.post(
            f"{receiver.url}/webhooks/hub?secret={secret}&token={secret}",
            content=PUSH,
            headers=HEADERS | {"Webhook-Id": webhook_id},
            timeout=10,
        )
        assert response.status_code == 202
    wait_until(
        lambda: "query-bad" in receiver.output(), timeout=10, what="the deliveries' log lines"
    )
    output = receiver.output()
    assert TEST_SECRET not in output
    assert leaked not in output
    assert "?secret" not in output
