"""The redis-server fixture itself: real process, AOF survives a restart."""

from __future__ import annotations

import pytest

from bot.devstack.redis import RedisServer

pytestmark = pytest.mark.integration


def test_aof_keeps_data_across_restart(redis_server: RedisServer) -> None:
    client = redis_server.client()
    client.set("evalbot:probe", "kept")
    client.close()
    redis_server.restart()
    client = redis_server.client()
    assert client.get("evalbot:probe") == b"kept"
    client.close()
