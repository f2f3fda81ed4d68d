"""Commands at the receiver against a real redis-server: rechecks coalesced per PR, commands
from known strangers dropped, all in one atomic script with the dedupe key (publishing.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis

from bot.queue.enqueuer import EnqueueOutcome
from bot.queue.events import DedupeKey, PrEvent
from bot.store import keys
from evalbot_dev.devstack.redis import RedisServer
from tests.integration.receiver.test_queue_redis import run_enqueues

pytestmark = pytest.mark.integration

REPO = "alice/model"


def ask(num: int, index: int, author: str = "id-alice", command: str = "recheck") -> PrEvent:
    return PrEvent(
        kind="command",
        repo_id=REPO,
        pr_num=num,
        delivery_id=f"d-{num}-{index}",
        received_at="2026-11-24T18:00:00.000Z",
        command=command,  # type: ignore[arg-type]
        comment_id=f"c{index}",
        comment_author_id=author,
    )


@pytest.fixture
def broker(redis_server: RedisServer) -> Iterator[redis.Redis]:
    with redis_server.client() as client:
        yield client


def enqueue_all(url: str, events: list[PrEvent]) -> list[object]:
    """Concurrently, from one enqueuer (a 10 s recheck window, the default)."""
    return run_enqueues(url, [(e, DedupeKey(f"wid:{e.delivery_id}", 60)) for e in events])


def etas(broker: redis.Redis) -> list[str | None]:
    return [json.loads(raw)["headers"]["eta"] for raw in reversed(broker.lrange("evalbot", 0, -1))]


def test_a_burst_of_rechecks_queues_one_run_now_and_one_deferred(
    redis_server: RedisServer, broker: redis.Redis
) -> None:
    outcomes = enqueue_all(redis_server.url, [ask(3, i) for i in range(50)])
    assert outcomes.count(EnqueueOutcome.QUEUED) == 2
    assert outcomes.count(EnqueueOutcome.COALESCED) == 48
    # One at once, one at the window's end (sent in the order their scripts answered).
    queued = sorted(etas(broker), key=lambda eta: eta is not None)
    assert queued[0] is None
    assert queued[1] is not None
    window, followup = keys.recheck(REPO, 3)
    assert 10_000 < broker.pttl(window) <= 21_000  # stretched past the deferred run
    assert 0 < broker.pttl(followup) <= 10_000
    # Every ask is claimed: the Hub's retry of a coalesced one is a duplicate, not a new ask.
    assert enqueue_all(redis_server.url, [ask(3, 7)]) == [EnqueueOutcome.DUPLICATE]
    # Another PR has its own window.
    assert enqueue_all(redis_server.url, [ask(4, 0)]) == [EnqueueOutcome.QUEUED]


def test_commands_of_a_known_stranger_are_dropped_while_the_allow_list_is_the_same(
    redis_server: RedisServer, broker: redis.Redis
) -> None:
    broker.set(keys.MAINTAINERS_DIGEST, "digest-1")
    broker.set(keys.stranger(REPO, "id-bob"), "digest-1")
    bob = [ask(3, i, author="id-bob", command=("help", "recheck")[i % 2]) for i in range(10)]
    assert enqueue_all(redis_server.url, bob) == [EnqueueOutcome.STRANGER] * 10
    assert broker.llen("evalbot") == 0
    # A worker with another allow-list has run since: bob is decided by a worker again.
    broker.set(keys.MAINTAINERS_DIGEST, "digest-2")
    assert enqueue_all(redis_server.url, [ask(3, 99, author="id-bob")]) == [EnqueueOutcome.QUEUED]
    # Anyone else is queued as before.
    assert enqueue_all(redis_server.url, [ask(5, 0, command="help")]) == [EnqueueOutcome.QUEUED]
