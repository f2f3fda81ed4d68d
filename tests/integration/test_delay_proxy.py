"""The fault suite's delaying TCP proxy, against a real redis-server."""

from __future__ import annotations

import time

import pytest
import redis

from evalbot_dev.devstack.redis import RedisServer
from tests.support.delay_proxy import running_delay_proxy

pytestmark = pytest.mark.integration


def test_only_the_reply_to_the_matching_request_is_held_and_only_once(
    redis_server: RedisServer,
) -> None:
    with running_delay_proxy(redis_server.port) as proxy:
        client = redis.Redis.from_url(proxy.url_for(redis_server.url), socket_timeout=10)
        try:
            proxy.delay_next_reply(1.0, after=b"GET")
            started = time.monotonic()
            client.set("k", "v")  # does not match: answered at once, the delay stays armed
            assert time.monotonic() - started < 0.5
            assert proxy.delays_applied == []
            started = time.monotonic()
            assert client.get("k") == b"v"
            assert time.monotonic() - started >= 1.0
            started = time.monotonic()
            assert client.get("k") == b"v"  # one-shot
            assert time.monotonic() - started < 0.5
            assert proxy.delays_applied == [1.0]
        finally:
            client.close()


def test_a_client_that_gives_up_on_a_held_reply_finds_its_command_executed(
    redis_server: RedisServer,
) -> None:
    with running_delay_proxy(redis_server.port) as proxy:
        impatient = redis.Redis.from_url(proxy.url_for(redis_server.url), socket_timeout=0.3)
        direct = redis.Redis.from_url(redis_server.url)
        try:
            proxy.delay_next_reply(2.0, after=b"INCR")
            with pytest.raises(redis.TimeoutError):
                impatient.incr("counter")
            assert direct.get("counter") == b"1"
        finally:
            impatient.close()
            direct.close()
