"""A worker `Runtime` around a real Redis and a given Hub client, for tests of worker code."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import redis

from bot.hub.benchmarks import BenchmarkCache
from bot.hub.client import HubClient
from bot.spec.policy import DEFAULT_POLICY
from bot.tokens.binding import RedisJtiBinder
from bot.tokens.issuers import IssuerRegistry
from workers.catchup import ReconcileLimits
from workers.runtime import ReconcileConfig, Runtime

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def make_runtime(
    client: redis.Redis,
    hub: HubClient,
    *,
    watched: tuple[str, ...] = (),
    limits: ReconcileLimits | None = None,
    interval_s: int = 300,
    queue: str = "evalbot",
) -> Runtime:
    runtime = Runtime(
        bot_name="evalbot",
        hub_url="http://127.0.0.1:9",
        hub=hub,
        redis=client,
        registry=IssuerRegistry([]),
        binder=RedisJtiBinder(client),
        benchmark_cache=BenchmarkCache(),
        policy=DEFAULT_POLICY,
        maintainers=frozenset(),
        lease_ttl_s=30.0,
        clock=lambda: NOW,
        queue_name=queue,
    )
    return replace(
        runtime, reconcile=ReconcileConfig(watched, limits or ReconcileLimits(), interval_s)
    )
