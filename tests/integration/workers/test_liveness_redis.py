"""Worker heartbeats and the orphan sweep against a real redis-server (workers/liveness.py).

The sweep's rules, one per test: a message held by a live worker is never handed out; one held
by nobody is handed out only after it stayed so for the grace (two intervals), and to one
sweeper only; a worker silent for three intervals is dead, its messages become orphans; the
reader (`read_fleet_status`) sees the same workers the sweep does.
"""

from __future__ import annotations

import time

import pytest
import redis

from bot.store.workerbeats import ORPHANS_KEY, read_fleet_status
from evalbot_dev.devstack.waiting import wait_until
from workers.liveness import Heartbeat

pytestmark = pytest.mark.integration

#: Short intervals so a test waits fractions of a second (production: 10 s).
INTERVAL_S = 0.2


def unacked(client: redis.Redis, *tags: str) -> None:
    for tag in tags:
        client.hset("unacked", tag, '[{"body": "x"}, "", "evalbot"]')


def test_a_message_held_by_a_live_worker_is_never_handed_out(client: redis.Redis) -> None:
    holder = Heartbeat(client, worker_id="a", interval_s=INTERVAL_S)
    sweeper = Heartbeat(client, worker_id="b", interval_s=INTERVAL_S)
    unacked(client, "t1")
    holder.beat(["t1"])
    started = time.monotonic()
    while time.monotonic() - started < 4 * INTERVAL_S:  # twice the grace, both beating
        assert sweeper.beat([]) == []
        holder.beat(["t1"])
    assert client.hget(ORPHANS_KEY, "t1") is None


def test_an_unheld_message_is_handed_out_after_the_grace_to_one_sweeper(
    client: redis.Redis,
) -> None:
    first = Heartbeat(client, worker_id="a", interval_s=INTERVAL_S)
    second = Heartbeat(client, worker_id="b", interval_s=INTERVAL_S)
    unacked(client, "t1")
    assert first.beat([]) == []  # seen unheld: the grace starts
    assert client.hget(ORPHANS_KEY, "t1") is not None
    handed = wait_until(lambda: first.beat([]), timeout=5, what="the orphan to be due")
    assert handed == ["t1"]
    assert second.beat([]) == []  # handed to one sweeper only (it starts a new grace)


def test_a_silent_worker_is_dead_and_its_messages_become_orphans(client: redis.Redis) -> None:
    dying = Heartbeat(client, worker_id="dying", interval_s=INTERVAL_S)
    survivor = Heartbeat(client, worker_id="survivor", interval_s=INTERVAL_S)
    unacked(client, "t1", "t2")
    dying.beat(["t1", "t2"])
    assert survivor.beat([]) == []
    status = read_fleet_status(client, "evalbot")
    assert {w.id for w in status.alive} == {"dying", "survivor"}
    handed = wait_until(
        lambda: survivor.beat([]), timeout=5, what="the dead worker's messages to be due"
    )
    while len(handed) < 2:
        handed += wait_until(lambda: survivor.beat([]), timeout=5, what="the other message")
    assert sorted(handed) == ["t1", "t2"]
    status = read_fleet_status(client, "evalbot")
    assert [w.id for w in status.alive] == ["survivor"]
    assert [w.id for w in status.workers if not w.alive] == ["dying"]
    assert status.unacked == 2  # the sweep only names them; the worker restores them


def test_an_orderly_stop_removes_the_worker_and_orphans_of_acked_messages_are_forgotten(
    client: redis.Redis,
) -> None:
    worker = Heartbeat(client, worker_id="w", interval_s=INTERVAL_S, concurrency=2)
    unacked(client, "gone")
    worker.beat([])
    assert client.hget(ORPHANS_KEY, "gone") is not None
    client.hdel("unacked", "gone")  # acked meanwhile
    worker.beat([])
    assert client.hget(ORPHANS_KEY, "gone") is None
    (seen,) = read_fleet_status(client, "evalbot").workers
    assert (seen.concurrency, seen.alive, seen.held) == (2, True, 0)
    worker.leave()
    assert read_fleet_status(client, "evalbot").workers == ()
