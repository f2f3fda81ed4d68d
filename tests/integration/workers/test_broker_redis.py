"""The workers' broker transport and options (workers/broker.py, workers/app.py) across a Redis
restart, on a real server: kombu's own redelivery of unacked messages must resume promptly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import kombu
import pytest
import redis
import redis.lock

import workers.app
from bot.settings import Settings
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from workers.app import celery_config
from workers.broker import TRANSPORT

pytestmark = pytest.mark.integration

QUEUE = "evalbot-broker-test"


def broker_options(visibility_timeout_s: int) -> dict[str, Any]:
    """The transport options the workers run with (`workers.app.celery_config`)."""
    settings = Settings.from_env(
        {
            "HF_TOKEN": "hf_x",
            "REDIS_URL": "redis://127.0.0.1:9/0",  # unused: the test passes its server's URL
            "EVALBOT_WEBHOOK_SECRET": "s",
            "EVALBOT_BOT_NAME": "evalbot-ci",
        }
    )
    with mock.patch.object(workers.app, "VISIBILITY_TIMEOUT_S", visibility_timeout_s):
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
