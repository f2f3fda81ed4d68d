"""The fault suite's delaying TCP proxy, against a real redis-server and the Hub emulator."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import httpx2
import pytest
import redis

from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.delay_proxy import running_delay_proxy
from tests.support.emulator import emulated_hub, hub_env

pytestmark = pytest.mark.integration
__all__ = ["emulated_hub", "hub_env"]  # fixtures


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


def test_dropped_http_requests_fail_and_the_others_pass_on_one_connection(
    emulated_hub: EmulatorServer,
) -> None:
    """`drop_requests`: a matching request's connection closes unanswered (or after the
    proxy's own status); requests before and after it, kept alive, pass."""
    with running_delay_proxy(urlsplit(emulated_hub.url).port or 80) as proxy:
        base = f"http://127.0.0.1:{proxy.port}"
        with httpx2.Client(base_url=base, timeout=10) as http:
            assert http.get("/api/models/alice/model").status_code == 200
            proxy.drop_requests(b"/resolve/")
            with pytest.raises(httpx2.RemoteProtocolError):
                http.get("/alice/model/resolve/main/README.md")
            assert http.get("/api/models/alice/model").status_code == 200
            proxy.drop_requests(b"/resolve/", answer=503)
            assert http.get("/alice/model/resolve/main/README.md").status_code == 503
            proxy.drop_requests(None)
            assert http.get("/alice/model/resolve/main/README.md").status_code == 200
        assert [line.split()[0] for line in proxy.dropped] == [b"GET", b"GET"]
