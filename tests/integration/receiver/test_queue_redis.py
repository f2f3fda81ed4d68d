"""`RedisEnqueuer` against a real redis-server: batching, atomicity, failures."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterator, Sequence

import pytest
import redis

from bot.queue import enqueuer as enqueuer_module
from bot.queue.enqueuer import EnqueueOutcome, QueueUnavailable, RedisEnqueuer
from bot.queue.events import DedupeKey, PrEvent
from bot.queue.publishing import Outgoing, send_or_leave
from bot.store.keys import DEDUPE_PREFIX
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from tests.support.queued import decode_celery_message

pytestmark = pytest.mark.integration


def event(num: int, delivery: str) -> PrEvent:
    return PrEvent(
        kind="updated",
        repo_id="acme-labs/tiny-llm",
        pr_num=num,
        delivery_id=delivery,
        received_at="2026-11-22T08:00:00.000Z",
        head_sha="b" * 40,
    )


@pytest.fixture
def broker(redis_server: RedisServer) -> Iterator[redis.Redis]:
    client = redis_server.client()
    try:
        yield client
    finally:
        client.close()


def run_enqueues(url: str, items: list[tuple[PrEvent, DedupeKey]]) -> list[object]:
    """Enqueue all items concurrently from one enqueuer; outcomes or exceptions, in order."""

    async def main() -> list[object]:
        enqueuer = RedisEnqueuer(url, queue="evalbot", timeout_s=1.0)
        try:
            return list(
                await asyncio.gather(
                    *(enqueuer.enqueue(item, key) for item, key in items), return_exceptions=True
                )
            )
        finally:
            await enqueuer.close()

    return asyncio.run(main())


def test_concurrent_enqueues_are_batched_and_deduplicated(
    redis_server: RedisServer, broker: redis.Redis
) -> None:
    items = [
        (event(n % 150 + 1, f"id-{n % 150}"), DedupeKey(f"k{n % 150}", 60)) for n in range(300)
    ]
    outcomes = run_enqueues(redis_server.url, items)
    assert outcomes.count(EnqueueOutcome.QUEUED) == 150
    assert outcomes.count(EnqueueOutcome.DUPLICATE) == 150
    assert outcomes[:150] == [EnqueueOutcome.QUEUED] * 150  # first come, first queued
    messages = [decode_celery_message(raw) for raw in broker.lrange("evalbot", 0, -1)]
    assert sorted(kwargs["event"]["pr_num"] for _, kwargs in messages) == list(range(1, 151))
    assert broker.get(f"{DEDUPE_PREFIX}k7") == b"id-7"
    assert 0 < broker.ttl(f"{DEDUPE_PREFIX}k7") <= 60
    # LPUSH + BRPOP: the oldest message is consumed first.
    assert PrEvent.from_json(messages[-1][1]["event"]).pr_num == 1


def test_broker_down_fails_every_waiter_and_writes_nothing(
    redis_server: RedisServer, broker: redis.Redis
) -> None:
    redis_server.stop()
    outcomes = run_enqueues(
        redis_server.url, [(event(n, f"d{n}"), DedupeKey(f"down{n}", 60)) for n in range(1, 21)]
    )
    assert all(isinstance(outcome, QueueUnavailable) for outcome in outcomes)
    redis_server.start()
    assert broker.keys(f"{DEDUPE_PREFIX}*") == []
    assert broker.llen("evalbot") == 0


def test_full_broker_is_unavailable_not_accepted(
    redis_server: RedisServer, broker: redis.Redis
) -> None:
    """docs/security.md#fault-injection item 14: maxmemory reached with noeviction must give 503,
    never a 2xx."""
    broker.config_set("maxmemory-policy", "noeviction")
    broker.config_set("maxmemory", 1)
    [outcome] = run_enqueues(redis_server.url, [(event(1, "full"), DedupeKey("full", 60))])
    assert isinstance(outcome, QueueUnavailable)
    assert "OOM" in str(outcome) or "memory" in str(outcome).lower()
    broker.config_set("maxmemory", 0)
    assert broker.exists(f"{DEDUPE_PREFIX}full") == 0
    assert broker.llen("evalbot") == 0
    [retry] = run_enqueues(redis_server.url, [(event(1, "full"), DedupeKey("full", 60))])
    assert retry is EnqueueOutcome.QUEUED


def test_script_is_reloaded_after_a_restart_without_persistence(
    redis_server: RedisServer, broker: redis.Redis
) -> None:
    async def main() -> list[EnqueueOutcome]:
        enqueuer = RedisEnqueuer(redis_server.url, queue="evalbot", timeout_s=1.0)
        try:
            first = await enqueuer.enqueue(event(1, "a"), DedupeKey("a", 60))
            broker.script_flush()  # what a restart does to the script cache
            second = await enqueuer.enqueue(event(2, "b"), DedupeKey("b", 60))
            return [first, second]
        finally:
            await enqueuer.close()

    assert asyncio.run(main()) == [EnqueueOutcome.QUEUED, EnqueueOutcome.QUEUED]
    assert broker.llen("evalbot") == 2


def test_password_and_database_from_the_url(redis_server: RedisServer, broker: redis.Redis) -> None:
    broker.config_set("requirepass", "broker-password")
    url = f"redis://:broker-password@127.0.0.1:{redis_server.port}/2"
    [outcome] = run_enqueues(url, [(event(1, "auth"), DedupeKey("auth", 60))])
    assert outcome is EnqueueOutcome.QUEUED
    db2 = redis.Redis.from_url(url)
    try:
        assert db2.llen("evalbot") == 1
        assert db2.exists(f"{DEDUPE_PREFIX}auth") == 1
    finally:
        db2.close()
    [wrong] = run_enqueues(
        f"redis://:wrong@127.0.0.1:{redis_server.port}/2", [(event(2, "x"), DedupeKey("x", 60))]
    )
    assert isinstance(wrong, QueueUnavailable)


@pytest.fixture
def sent_batches(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The PR numbers of each batch of messages the enqueuer sends, in order (sent for real)."""
    batches: list[list[int]] = []

    def recording(app: object, messages: Sequence[Outgoing]) -> bool:
        batches.append([int(event["pr_num"]) for _, event, _ in messages])
        return send_or_leave(app, messages)  # type: ignore[arg-type]

    monkeypatch.setattr(enqueuer_module, "send_or_leave", recording)
    return batches


async def wait_for_messages(broker: redis.Redis, count: int, what: str) -> None:
    await asyncio.to_thread(
        wait_until, lambda: broker.llen("evalbot") == count, timeout=10, what=what
    )


def enqueue_all(enqueuer: RedisEnqueuer, numbers: range) -> Awaitable[list[EnqueueOutcome]]:
    """Deliveries of the PRs `numbers`, all at once (one script call), each a new event."""
    return asyncio.gather(
        *(enqueuer.enqueue(event(n, f"d{n}"), DedupeKey(f"d{n}", 60)) for n in numbers)
    )


def test_a_lone_delivery_is_sent_at_once_and_those_after_it_gather(
    redis_server: RedisServer,
    broker: redis.Redis,
    sent_batches: list[list[int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An idle receiver adds no wait: a message that finds no send in the last window goes out
    at once, however long the window. Those accepted within the window after it gather and go
    in one send; a receiver that stops sends them without waiting for the window."""
    monkeypatch.setattr(enqueuer_module, "SEND_GATHER_S", 60.0)

    async def main() -> None:
        enqueuer = RedisEnqueuer(redis_server.url, queue="evalbot", timeout_s=1.0)
        try:
            first = await enqueuer.enqueue(event(1, "d1"), DedupeKey("d1", 60))
            assert first is EnqueueOutcome.QUEUED
            await wait_for_messages(broker, 1, "the lone message, long before the window ends")
            for number in (2, 3):  # one after the other, each answered before the next
                outcome = await enqueuer.enqueue(
                    event(number, f"d{number}"), DedupeKey(f"d{number}", 60)
                )
                assert outcome is EnqueueOutcome.QUEUED
            assert sent_batches == [[1]]  # 2 and 3 wait for the window
        finally:
            await enqueuer.close()

    asyncio.run(main())
    assert broker.llen("evalbot") == 3
    assert sent_batches == [[1], [2, 3]]


def test_a_burst_goes_in_one_send_and_the_next_burst_waits_for_the_window(
    redis_server: RedisServer,
    broker: redis.Redis,
    sent_batches: list[list[int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under load deliveries still share sends: the messages accepted by one script call go
    together, and those that come within the window after a send gather into one more (a
    Celery publish alone costs about three times its share of a batch, docs/reliability.md)."""
    monkeypatch.setattr(enqueuer_module, "SEND_GATHER_S", 60.0)

    async def main() -> None:
        enqueuer = RedisEnqueuer(redis_server.url, queue="evalbot", timeout_s=1.0)
        try:
            assert await enqueue_all(enqueuer, range(1, 11)) == [EnqueueOutcome.QUEUED] * 10
            await wait_for_messages(broker, 10, "the first burst, long before the window ends")
            assert await enqueue_all(enqueuer, range(11, 21)) == [EnqueueOutcome.QUEUED] * 10
            assert await enqueue_all(enqueuer, range(21, 31)) == [EnqueueOutcome.QUEUED] * 10
            assert sent_batches == [list(range(1, 11))]
        finally:
            await enqueuer.close()

    asyncio.run(main())
    assert broker.llen("evalbot") == 30
    assert sent_batches == [list(range(1, 11)), list(range(11, 31))]


def test_gathered_messages_go_when_the_window_ends(
    redis_server: RedisServer,
    broker: redis.Redis,
    sent_batches: list[list[int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The window's end sends what gathered, with no further delivery to start a send."""
    monkeypatch.setattr(enqueuer_module, "SEND_GATHER_S", 0.2)

    async def main() -> None:
        enqueuer = RedisEnqueuer(redis_server.url, queue="evalbot", timeout_s=1.0)
        try:
            await enqueuer.enqueue(event(1, "d1"), DedupeKey("d1", 60))
            await wait_for_messages(broker, 1, "the first message")
            assert await enqueue_all(enqueuer, range(2, 6)) == [EnqueueOutcome.QUEUED] * 4
            await wait_for_messages(broker, 5, "the gathered messages, at the window's end")
        finally:
            await enqueuer.close()

    asyncio.run(main())
    assert sent_batches == [[1], [2, 3, 4, 5]]
