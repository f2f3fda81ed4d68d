"""Shared fixtures of the worker tests: a client of the session's real redis-server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from evalbot_dev.devstack.redis import RedisServer


@pytest.fixture
def client(redis_server: RedisServer) -> Iterator[redis.Redis]:
    connection = redis.Redis.from_url(redis_server.url)
    try:
        yield connection
    finally:
        connection.close()
