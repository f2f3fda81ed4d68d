"""What a worker process builds once at start-up and reuses for every task.

Clients are built once per process (a Redis pool, one `HfApi`, the issuer registry with its
key cache, the benchmark cache), never per call: warehouse's habit of a client per call is the
one STYLE.md tells us to avoid. Settings come in as an argument; nothing here reads the
environment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path

import redis
import yaml
from huggingface_hub import HfApi

from bot.adapters.issuers_file import load_issuers
from bot.adapters.redis_tokens import RedisJtiBinder, RedisKeyCache
from bot.hub.benchmarks import BenchmarkCache
from bot.hub.client import HfHubClient, HubClient
from bot.hub.standing import DatasetPrClient, ResultsReader
from bot.hub.timeouts import use_hub_timeout
from bot.settings import Settings
from bot.spec.policy import DEFAULT_POLICY, Policy, policy_from_yaml
from bot.tokens.binding import JtiBinder
from bot.tokens.issuers import IssuerRegistry
from workers.campaign import CampaignConfig, load_campaign_config
from workers.catchup import ReconcileLimits


class BotConfigError(ValueError):
    """`config/bot.yaml` is unreadable or malformed; the message names the field."""


@dataclass(frozen=True, slots=True)
class ReconcileConfig:
    """`watched_repos:` and `reconcile:` of `config/bot.yaml` (docs/operating.md)."""

    watched_repos: tuple[str, ...] = ()
    limits: ReconcileLimits = field(default_factory=ReconcileLimits)
    #: Seconds between runs (`EVALBOT_RECONCILE_INTERVAL`); also the catch-up dedupe window.
    interval_s: int = 300


@dataclass(frozen=True, slots=True)
class Runtime:
    """The long-lived collaborators of the pipeline, passed in (never imported) by tasks."""

    bot_name: str
    hub_url: str
    hub: HubClient
    redis: redis.Redis
    registry: IssuerRegistry
    binder: JtiBinder
    benchmark_cache: BenchmarkCache
    policy: Policy
    maintainers: frozenset[str]  # the allow-list for comment commands, besides owners
    lease_ttl_s: float
    clock: Callable[[], datetime]
    #: The Celery queue (Redis list) events are published to; reconciliation pushes there.
    queue_name: str = "evalbot"
    reconcile: ReconcileConfig = field(default_factory=ReconcileConfig)
    #: Longest retry countdown: the visibility timeout minus the task time limit (a message
    #: a worker holds for longer than the visibility timeout is redelivered to another one).
    max_countdown_s: float = 600.0
    #: How long an event may be held back by the Hub's rate limit before it is parked.
    throttle_budget_s: float = 6 * 3600.0
    #: Collection standing and cross-PR claims in the comment (`workers.campaign`), and the
    #: Hub reads they need beyond `hub` (None: both are off).
    campaign: CampaignConfig = field(default_factory=CampaignConfig)
    repo_reader: ResultsReader | None = None
    #: PRs on benchmark datasets (`workers.benchmark_pr`); None: they are not checked.
    datasets: DatasetPrClient | None = None


def _bot_config(path: Path) -> dict[str, object]:
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise BotConfigError(f"{path}: cannot read the bot config: {error}") from error
    if not isinstance(data, dict):
        raise BotConfigError(f"{path}: the bot config must be a mapping")
    return data


def load_reconcile_config(path: Path, interval_s: int) -> ReconcileConfig:
    """`watched_repos: [owner/name, ...]` and the optional `reconcile:` limits (positive
    integers named like `ReconcileLimits` fields); no file means no configured repos."""
    data = _bot_config(path)
    repos = data.get("watched_repos", [])
    if not isinstance(repos, list) or not all(
        isinstance(repo, str) and repo.count("/") == 1 for repo in repos
    ):
        raise BotConfigError(f"{path}: `watched_repos` must be a list of owner/name repo ids")
    raw_limits = data.get("reconcile", {})
    if not isinstance(raw_limits, dict):
        raise BotConfigError(f"{path}: `reconcile` must be a mapping")
    names = {f.name for f in fields(ReconcileLimits)}
    for name, value in raw_limits.items():
        if name not in names:
            raise BotConfigError(f"{path}: unknown `reconcile` setting {name!r}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise BotConfigError(f"{path}: `reconcile.{name}` must be a positive integer")
    return ReconcileConfig(tuple(repos), ReconcileLimits(**raw_limits), interval_s)


def load_maintainers(path: Path) -> frozenset[str]:
    """The `maintainers:` allow-list of `config/bot.yaml`; no file means an empty list."""
    data = _bot_config(path)
    names = data.get("maintainers", [])
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise BotConfigError(f"{path}: `maintainers` must be a list of Hub user names")
    return frozenset(names)


def load_policy(path: Path) -> Policy:
    return policy_from_yaml(path.read_bytes()) if path.is_file() else DEFAULT_POLICY


def countdown_cap_s(settings: Settings) -> float:
    """The longest retry countdown: the visibility timeout minus the hard time limit. kombu's
    Redis transport hands a message a worker holds (an ETA retry included) to another worker
    once the visibility timeout has passed; a retry held this long, then run to the limit, is
    acknowledged before that. The settings guarantee at least 1 s."""
    return float(settings.visibility_timeout_s - settings.task_time_limit_s)


def build_runtime(settings: Settings) -> Runtime:
    """Everything a worker needs, from `settings`; raises on broken config files (fail fast)."""
    client = redis.Redis.from_url(
        settings.redis_url,
        socket_timeout=settings.redis_timeout_s * 5,
        socket_connect_timeout=settings.redis_timeout_s,
        health_check_interval=30,
    )
    use_hub_timeout(settings.hub_timeout_s)
    api = HfApi(endpoint=settings.hf_endpoint, token=settings.hf_token.reveal())
    registry = (
        load_issuers(
            settings.issuers_file,
            cache=RedisKeyCache(client),
            refetch_interval_s=float(settings.jwks_refetch_interval_s),
            unavailable_keys_raise=True,
        )
        if settings.issuers_file.is_file()
        else IssuerRegistry([])
    )
    hub = HfHubClient(api)
    return Runtime(
        bot_name=settings.bot_name,
        hub_url=settings.hf_endpoint.rstrip("/"),
        hub=hub,
        redis=client,
        registry=registry,
        binder=RedisJtiBinder(client),
        benchmark_cache=BenchmarkCache(),
        policy=load_policy(settings.policy_file),
        maintainers=load_maintainers(settings.bot_config_file),
        lease_ttl_s=float(settings.task_time_limit_s),
        clock=lambda: datetime.now(UTC),
        queue_name=settings.queue_name,
        reconcile=load_reconcile_config(settings.bot_config_file, settings.reconcile_interval_s),
        max_countdown_s=countdown_cap_s(settings),
        throttle_budget_s=float(settings.hub_throttle_budget_s),
        campaign=load_campaign_config(settings.bot_config_file),
        repo_reader=hub,
        datasets=hub,
    )
