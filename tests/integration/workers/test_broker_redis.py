"""The workers' broker transport (workers/broker.py) across Redis restarts, on a real server.

Each test takes a message as a worker does (kombu's Redis channel, late ack), restarts Redis
(AOF on, as in production) at the moment the fault needs, and checks that the message comes
back on the queue promptly (not after the visibility timeout, 900 s in production), and is
never lost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import kombu
import pytest
import redis
import redis.lock
from kombu.transport import redis as kombu_redis

from bot.settings import Settings
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from workers.app import celery_config
from workers.broker import TRANSPORT, requeue_unrecorded, unrecorded
from workers.liveness import Heartbeat, held_tags, restore

pytestmark = pytest.mark.integration

QUEUE = "evalbot-broker-test"
#: Heartbeat interval of the sweep in these tests (production: 10 s).
INTERVAL_S = 0.2


def broker_options(visibility_timeout_s: int) -> dict[str, Any]:
    """The transport options the workers run with (`workers.app.celery_config`)."""
    settings = Settings.from_env(
        {
            "HF_TOKEN": "hf_x",
            "REDIS_URL": "redis://127.0.0.1:9/0",  # unused: the test passes its server's URL
            "EVALBOT_WEBHOOK_SECRET": "s",
            "EVALBOT_BOT_NAME": "evalbot-ci",
            "EVALBOT_TASK_SOFT_TIME_LIMIT": "4",
            "EVALBOT_TASK_TIME_LIMIT": "5",
            "EVALBOT_VISIBILITY_TIMEOUT": str(visibility_timeout_s),
        }
    )
    options: dict[str, Any] = celery_config(settings)["broker_transport_options"]
    return options


@pytest.fixture
def connect(redis_server: RedisServer) -> Iterator[Callable[[int], kombu.Connection]]:
    """Opens a kombu connection with the workers' transport and options."""
    opened: list[kombu.Connection] = []

    def open_one(visibility_timeout_s: int) -> kombu.Connection:
        connection = kombu.Connection(
            redis_server.url,
            transport=TRANSPORT,
            transport_options=broker_options(visibility_timeout_s),
        )
        opened.append(connection)
        return connection

    yield open_one
    for connection in opened:
        connection.release()


def take_one(connection: kombu.Connection, body: str) -> tuple[kombu.Message, str]:
    """Publish `body` and take it back unacknowledged, as a worker with late ack holds it;
    returns the message and its delivery tag."""
    queue = kombu.Queue(QUEUE, routing_key=QUEUE)
    with connection.Producer() as producer:
        producer.publish(body, routing_key=QUEUE, declare=[queue], serializer="json")
    message = queue(connection.default_channel).get(no_ack=False)
    assert message is not None
    assert message.delivery_tag is not None
    return message, str(message.delivery_tag)


def qos_of(connection: kombu.Connection) -> Any:
    """kombu's QoS of the connection's channel: the messages it holds."""
    channel: Any = connection.default_channel
    return channel.qos


def drain(connection: kombu.Connection) -> list[str]:
    """Take (and ack) every message waiting on the test queue; their bodies, oldest first."""
    queue = kombu.Queue(QUEUE, routing_key=QUEUE)(connection.default_channel)
    bodies: list[str] = []
    while (message := queue.get(no_ack=True)) is not None:
        bodies.append(message.payload)
    return bodies


@pytest.mark.parametrize("finish", ["ack", "requeue"])
def test_a_message_whose_ack_failed_during_a_redis_restart_is_swept_back(
    redis_server: RedisServer,
    client: redis.Redis,
    connect: Callable[[int], kombu.Connection],
    finish: str,
) -> None:
    """The task ends while Redis restarts: the ack (or the requeue) fails, the message stays in
    `unacked`. The worker no longer holds it, so its heartbeat must not list it: the sweep takes
    it back after its grace (before the fix the tag stayed held until the visibility timeout)."""
    connection = connect(3600)
    message, tag = take_one(connection, "pr-5")
    qos = qos_of(connection)
    assert held_tags(qos) == [tag]
    redis_server.stop()
    end = message.ack if finish == "ack" else partial(message.reject, requeue=True)
    with pytest.raises(redis.ConnectionError):
        end()
    redis_server.start()
    assert client.hexists("unacked", tag)  # kept: nothing is lost
    assert held_tags(qos) == []
    assert qos.can_consume()  # and the prefetch slot is free again
    heartbeat = Heartbeat(client, worker_id="w", interval_s=INTERVAL_S)
    due = wait_until(
        lambda: heartbeat.beat(held_tags(qos)), timeout=10, what="the sweep to hand it out"
    )
    assert due == [tag]
    restore(client, qos, tag)
    assert not client.hexists("unacked", tag)
    assert drain(connection) == ["pr-5"]


def test_a_sweep_lock_left_by_a_redis_restart_holds_kombus_sweep_back_one_interval_only(
    redis_server: RedisServer,
    client: redis.Redis,
    connect: Callable[[int], kombu.Connection],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redis goes down while a worker's visibility sweep holds kombu's lock: the release fails
    and AOF keeps the lock. Sweeps must resume after one sweep interval (2 s here), not after
    kombu's default expiry of 300 s, so a message past its visibility timeout comes back."""
    connection = connect(8)  # a sweep every 2 s
    qos = qos_of(connection)
    _, tag = take_one(connection, "pr-5")
    real_release = redis.lock.Lock.release

    def release_after_a_restart(lock: redis.lock.Lock) -> None:
        monkeypatch.setattr(redis.lock.Lock, "release", real_release)
        redis_server.stop()  # the restart lands between the sweep's acquire and release
        try:
            real_release(lock)
        finally:
            redis_server.start()

    monkeypatch.setattr(redis.lock.Lock, "release", release_after_a_restart)
    with pytest.raises(redis.ConnectionError):
        qos.restore_visible(num=10, interval=1)
    assert client.exists(qos.unacked_mutex_key)  # left behind
    # The message was delivered long ago: past its visibility timeout, due for the sweep.
    client.zadd(qos.unacked_index_key, {tag: 1.0})

    def swept() -> list[str]:
        qos.restore_visible(num=10, interval=1)
        return drain(connection)

    assert wait_until(swept, timeout=15, interval=0.2, what="kombu's sweep to resume") == ["pr-5"]


def test_a_message_taken_as_redis_goes_down_is_put_back_not_lost(
    redis_server: RedisServer,
    client: redis.Redis,
    connect: Callable[[int], kombu.Connection],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """kombu pops a message, then records it as unacked in a second command. Redis going down
    between the two used to lose the event (in neither the queue nor `unacked`): the worker
    now keeps it and puts it back once Redis answers (its heartbeat step does, at once after
    the reconnect)."""
    connection = connect(3600)
    queue = kombu.Queue(QUEUE, routing_key=QUEUE)
    with connection.Producer() as producer:
        producer.publish("pr-5", routing_key=QUEUE, declare=[queue], serializer="json")
    real_append = kombu_redis.QoS.append

    def append_after_a_restart(qos: Any, message: Any, delivery_tag: Any) -> None:
        monkeypatch.setattr(kombu_redis.QoS, "append", real_append)
        redis_server.stop()  # the restart lands between the pop and the unacked record
        try:
            real_append(qos, message, delivery_tag)
        finally:
            redis_server.start()

    monkeypatch.setattr(kombu_redis.QoS, "append", append_after_a_restart)
    with pytest.raises(redis.ConnectionError):
        queue(connection.default_channel).get(no_ack=False)
    assert client.llen(QUEUE) == 0  # popped before the restart (AOF kept the pop) ...
    assert client.hlen("unacked") == 0  # ... and never recorded: only the worker has it
    assert len(unrecorded) == 1
    fresh = connect(3600)  # the worker's channel after its reconnect
    assert requeue_unrecorded(fresh.default_channel) == 1
    assert unrecorded == []
    assert drain(fresh) == ["pr-5"]
