"""The ledger of accepted events against a real redis-server (bot/py).

Its rules, one per test: an accepted event is in the ledger with its dedupe key, once; an
entry past its due time is handed to one sweeper only and sent again under its task id with
Celery's `send_task`; a run's start and a retry move the due time on, a finished or parked
event leaves the ledger; reconciliation and replay accept events due at once; a message lost
after acceptance (popped and gone, or never sent) comes back through the sweep.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis
from celery import Celery

from bot.queue.enqueuer import EnqueueOutcome, RedisEnqueuer
from bot.queue.events import DedupeKey, PrEvent
from bot.queue.publishing import GRACE_S, TASK_NAME, publish, sender_app
from bot.store import keys
from bot.store.deadletters import park, parked_events, replay
from bot.store.heartbeats import read_fleet_status
from bot.store.worker_counters import read_snapshot
from evalbot_dev.devstack.redis import RedisServer
from tests.support.queued import decode_celery_message, ledger_events, task_id_of
from workers.heartbeat_and_sweep import Heartbeat, sweep
from workers.tasks import Attempts

pytestmark = pytest.mark.integration

QUEUE = "evalbot"


def event(num: int, delivery: str = "") -> PrEvent:
    return PrEvent(
        kind="updated",
        repo_id="org/model",
        pr_num=num,
        delivery_id=delivery or f"d-{num}",
        received_at="2026-11-26T00:00:00.000Z",
    )


@pytest.fixture
def app(redis_server: RedisServer) -> Iterator[Celery]:
    sender = sender_app(redis_server.url, QUEUE)
    yield sender
    sender.close()


def accept(url: str, *events: PrEvent) -> list[EnqueueOutcome]:
    async def main() -> list[EnqueueOutcome]:
        enqueuer = RedisEnqueuer(url, queue=QUEUE)
        try:
            return list(
                await asyncio.gather(
                    *(enqueuer.enqueue(e, DedupeKey(e.delivery_id, 60)) for e in events)
                )
            )
        finally:
            await enqueuer.close()

    return asyncio.run(main())


def due_in(client: redis.Redis, task_id: str) -> float:
    """Seconds until the entry is due, on Redis's clock."""
    seconds, micros = client.time()
    score = client.zscore(keys.LEDGER, task_id)
    assert score is not None, f"{task_id} is not in the ledger"
    return float(score) - (seconds + micros / 1e6)


def make_overdue(client: redis.Redis, task_id: str) -> None:
    client.zadd(keys.LEDGER, {task_id: 1.0}, xx=True)


def queued_ids(client: redis.Redis) -> list[str]:
    return [task_id_of(raw) for raw in client.lrange(QUEUE, 0, -1)]


def test_an_accepted_event_is_in_the_ledger_once_and_its_message_in_the_queue(
    redis_server: RedisServer, client: redis.Redis
) -> None:
    outcomes = accept(redis_server.url, event(1), event(1), event(2))
    assert sorted(outcomes) == sorted(
        [EnqueueOutcome.QUEUED, EnqueueOutcome.DUPLICATE, EnqueueOutcome.QUEUED]
    )
    entries = ledger_events(client)
    assert sorted(e["pr_num"] for e in entries.values()) == [1, 2]
    assert sorted(queued_ids(client)) == sorted(entries)  # each message under its entry's id
    for raw in client.lrange(QUEUE, 0, -1):
        task, kwargs = decode_celery_message(raw)
        assert task == TASK_NAME
        assert PrEvent.from_json(kwargs["event"]).repo_id == "org/model"
    for task_id in entries:
        assert GRACE_S - 5 < due_in(client, task_id) <= GRACE_S
    assert read_snapshot(client, QUEUE).accepted == 2  # `evalbot_ledger_accepted` on /metrics


def test_an_accepted_event_whose_send_failed_is_sent_by_the_sweep(
    redis_server: RedisServer, client: redis.Redis, app: Celery, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 202 stands on the ledger alone: a publish that fails after acceptance (the broker
    gone that instant) loses nothing."""

    def broken(*args: object, **kwargs: object) -> None:
        raise ConnectionError("the broker went away")

    monkeypatch.setattr(Celery, "send_task", broken)
    assert accept(redis_server.url, event(3)) == [EnqueueOutcome.QUEUED]
    monkeypatch.undo()
    assert client.llen(QUEUE) == 0
    (task_id,) = ledger_events(client)
    make_overdue(client, task_id)
    assert sweep(Heartbeat(client, worker_id="w"), app) == 1
    assert queued_ids(client) == [task_id]
    assert client.hget(keys.STATS, "recovered:overdue") == b"1"


def test_a_message_lost_after_acceptance_comes_back_once_overdue_to_one_sweeper(
    redis_server: RedisServer, client: redis.Redis, app: Celery
) -> None:
    """A worker killed holding the message, or kombu's pop lost in a Redis restart: the queue
    no longer has it, the ledger does. Two workers sweep at once: one sends it."""
    accept(redis_server.url, event(4))
    (task_id,) = ledger_events(client)
    client.delete(QUEUE)  # the message is gone, whatever took it
    first, second = Heartbeat(client, worker_id="a"), Heartbeat(client, worker_id="b")
    assert first.overdue() == []  # not due yet: a queued event is not sent twice
    make_overdue(client, task_id)
    handed = [first.overdue(), second.overdue()]
    assert sorted(len(h) for h in handed) == [0, 1]
    (pair,) = handed[0] or handed[1]
    assert pair[0] == task_id
    assert GRACE_S - 5 < due_in(client, task_id) <= GRACE_S  # due again later


def test_a_run_touches_its_entry_and_a_finished_or_parked_event_leaves_the_ledger(
    client: redis.Redis,
) -> None:
    accepted = publish(client, [(event(5), DedupeKey("d-5", 60)), (event(6), DedupeKey("d-6", 60))])
    assert accepted == [True, True]
    ids = {e["pr_num"]: task_id for task_id, e in ledger_events(client).items()}
    assert due_in(client, ids[5]) <= 0  # reconciliation's events: due at once
    attempts = Attempts(client, ids[5])
    attempts.begin()
    assert GRACE_S - 5 < due_in(client, ids[5]) <= GRACE_S
    attempts.ended(False, next_run_in=100.0)  # a retry in 100 s
    assert 100 + GRACE_S - 5 < due_in(client, ids[5]) <= 100 + GRACE_S
    attempts.begin()
    attempts.ended(True, "posted")
    assert ids[5] not in ledger_events(client)
    assert client.zscore(keys.LEDGER, ids[5]) is None
    park(client, event(6).to_json(), "crashed", "boom", task_id=ids[6])
    assert ledger_events(client) == {}
    assert client.zcard(keys.LEDGER) == 0


def test_a_replayed_event_enters_the_ledger_due_at_once_and_is_sent_by_the_sweep(
    client: redis.Redis, app: Celery
) -> None:
    park(client, event(7).to_json(), "crashed", "boom")
    (parked,) = parked_events(client)
    assert replay(client, parked).value == "replayed"
    assert parked_events(client) == []
    (task_id,) = ledger_events(client)
    assert due_in(client, task_id) <= 0
    assert sweep(Heartbeat(client, worker_id="w"), app) == 1
    ((task, kwargs),) = [decode_celery_message(raw) for raw in client.lrange(QUEUE, 0, -1)]
    assert (task, kwargs["event"]["pr_num"]) == (TASK_NAME, 7)


def test_a_heartbeat_is_what_the_fleet_status_reads(client: redis.Redis) -> None:
    heartbeat = Heartbeat(client, worker_id="w1@host:1", concurrency=2)
    heartbeat.beat(held=1)
    status = read_fleet_status(client, QUEUE)
    (worker,) = status.workers
    assert (worker.id, worker.alive, worker.held, worker.concurrency) == ("w1@host:1", True, 1, 2)
    heartbeat.leave()
    assert read_fleet_status(client, QUEUE).workers == ()
