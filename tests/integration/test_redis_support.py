"""The redis-server fixture itself: real process, AOF survives a restart, a taken port is
replaced."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalbot_dev.devstack import redis as devstack_redis
from evalbot_dev.devstack.listening import listening_socket
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import free_port

pytestmark = pytest.mark.integration


def test_aof_keeps_data_across_restart(redis_server: RedisServer) -> None:
    client = redis_server.client()
    client.set("evalbot:probe", "kept")
    client.close()
    redis_server.restart()
    client = redis_server.client()
    assert client.get("evalbot:probe") == b"kept"
    client.close()


def test_a_picked_port_taken_before_redis_binds_it_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race a picked port runs (someone binds it before redis-server does) costs a retry
    on a fresh port, not a failed start."""
    taken = listening_socket()  # someone else's server, on the first port picked
    picks = iter([taken.getsockname()[1]])
    monkeypatch.setattr(devstack_redis, "free_port", lambda: next(picks, None) or free_port())
    server = RedisServer(directory=tmp_path / "redis").start()
    try:
        assert server.port != taken.getsockname()[1]
        client = server.client()
        assert client.ping()
        client.close()
    finally:
        server.stop(kill=True)
        taken.close()
