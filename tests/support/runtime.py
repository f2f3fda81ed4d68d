"""A worker `Runtime` around a real Redis and a given Hub client, for tests of worker code."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import redis

from bot.botconfig.sections import ReconcileConfig, ReconcileLimits
from bot.hub.client import DatasetRevision, HubClient, RepoCommit, Visibility
from bot.hub.client import OpenPullRequests as OpenPulls
from bot.hub.pulls import PullRequest
from bot.hub.sources import BenchmarkCache
from bot.tokens.issuers import IssuerRegistry
from bot.validation.policy import DEFAULT_POLICY
from workers.pr_lease import as_text
from workers.runtime import RedisJtiBinder, Runtime

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


def stats(client: redis.Redis) -> dict[str, int]:
    """The workers' counters (`evalbot:stats`) as plain ints."""
    return {as_text(k): int(v) for k, v in client.hgetall("evalbot:stats").items()}


class FailingHub:
    """A Hub whose every PR read raises `error` (and that nothing else may be asked of);
    counts the reads, each a Hub call spent."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls = 0

    def pull_request(self, repo_id: str, num: int) -> PullRequest:
        self.calls += 1
        raise self.error

    def read_file(
        self,
        repo_id: str,
        path: str,
        revision: str,
        *,
        repo_type: str = "model",
        max_bytes: int = 0,
    ) -> bytes:
        raise AssertionError

    def dataset_revision(self, dataset_id: str, revision: str | None) -> DatasetRevision:
        raise AssertionError

    def list_commits(self, repo_id: str, revision: str) -> list[RepoCommit]:
        raise AssertionError

    def post_comment(self, repo_id: str, num: int, body: str) -> str:
        raise AssertionError

    def edit_comment(self, repo_id: str, num: int, comment_id: str, body: str) -> None:
        raise AssertionError

    def repo_visibility(self, repo_id: str) -> Visibility:
        raise self.error

    def open_pull_requests(self, repo_id: str, *, limit: int) -> OpenPulls:
        raise AssertionError
