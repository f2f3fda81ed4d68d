"""What a worker process builds once at start-up and reuses for every task.

Clients are built once per process (a Redis pool, one `HfApi`, the issuer registry with its
key cache, the benchmark cache), never per call: a client per call would pay its connection
set-up on every task. Settings come in as an argument; nothing here reads the
environment.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import redis
from huggingface_hub import HfApi

from bot.adapters.issuers_file import bot_config_issuers
from bot.adapters.jwks_http import HttpxJwksFetcher
from bot.adapters.policy_file import load_policy
from bot.adapters.redis_tokens import RedisJtiBinder, RedisKeyCache
from bot.configfiles import ConfigError
from bot.contract.publish import QUEUE
from bot.eee.submission import DatastorePolicy
from bot.hub.benchmarks import BenchmarkCache
from bot.hub.client import HfHubClient, HubClient
from bot.hub.datastore import HubDatastore
from bot.hub.identity import HubIdentity
from bot.hub.standing import DatasetPrClient, ResultsReader
from bot.hub.timeouts import use_hub_timeout
from bot.settings import Settings
from bot.spec.validate import Policy
from bot.store import REDIS_TIMEOUT_S
from bot.tokens.issuers import (
    REFETCH_INTERVAL_S,
    IssuerPolicy,
    IssuerRegistry,
)
from bot.tokens.verify import JtiBinder
from workers.app import TASK_TIME_LIMIT_S, VISIBILITY_TIMEOUT_S
from workers.botconfig import BotConfig, ReconcileConfig, load_bot_config
from workers.campaign import CampaignConfig
from workers.retry_policy import HUB_THROTTLE_BUDGET_S

__all__ = [
    "ConfigError",
    "ConfigFiles",
    "ReconcileConfig",
    "Runtime",
    "build_runtime",
    "countdown_cap_s",
    "load_config_files",
]


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
    #: Every Eval Ever datastores by lower-cased repo id, and the Hub reads their PRs need
    #: (`workers.datastore_pr`; None: datastore PRs are not checked).
    datastores: Mapping[str, DatastorePolicy] = field(default_factory=dict)
    datastore_hub: HubDatastore | None = None
    #: The web pages' public address (`EVALBOT_WEB_PUBLIC_URL`): the comment links each PR's
    #: details page there; None: no link.
    public_url: str | None = None


@dataclass(frozen=True, slots=True)
class ConfigFiles:
    """The operator's files, loaded and checked: what `load_config_files` returns."""

    issuers: tuple[IssuerPolicy, ...]
    policy: Policy
    bot: BotConfig


def load_config_files(settings: Settings) -> ConfigFiles:
    """Load and check `bot.yaml`, its `issuers:` and `policy:` sections included; raises
    `ConfigError` (one line: file, line, problem, fix) on the first problem. A file at its
    default place that does not exist means "none" (no trusted issuers, the default policy,
    no maintainers); a path set in the environment that does not exist is refused by
    `Settings.from_env`."""
    bot = load_bot_config(settings.bot_config_file, settings.reconcile_interval_s)
    return ConfigFiles(
        issuers=bot_config_issuers(settings.bot_config_file),
        policy=load_policy(settings.bot_config_file),
        bot=bot,
    )


def countdown_cap_s(settings: Settings) -> float:
    """The longest retry countdown: the visibility timeout minus the hard time limit. kombu's
    Redis transport hands a message a worker holds (an ETA retry included) to another worker
    once the visibility timeout has passed; a retry held this long, then run to the limit, is
    acknowledged before that. The settings guarantee at least 1 s."""
    return float(VISIBILITY_TIMEOUT_S - TASK_TIME_LIMIT_S)


def build_runtime(
    settings: Settings, identity: HubIdentity | None = None, files: ConfigFiles | None = None
) -> Runtime:
    """Everything a worker needs, from `settings`; raises `ConfigError` on broken config files
    (fail fast). `identity`: the account the Hub says owns the token (`workers.startup`),
    whose spelling of its name finds the bot's own comments; without it, `bot_name`."""
    files = files if files is not None else load_config_files(settings)
    client = redis.Redis.from_url(
        settings.redis_url,
        socket_timeout=REDIS_TIMEOUT_S * 5,
        socket_connect_timeout=REDIS_TIMEOUT_S,
        health_check_interval=30,
    )
    use_hub_timeout(settings.hub_timeout_s)
    api = HfApi(endpoint=settings.hf_endpoint, token=settings.hf_token.reveal())
    registry = IssuerRegistry(
        files.issuers,
        fetcher=HttpxJwksFetcher(),
        cache=RedisKeyCache(client),
        refetch_interval_s=REFETCH_INTERVAL_S,
        unavailable_keys_raise=True,
    )
    hub = HfHubClient(api)
    return Runtime(
        bot_name=identity.name if identity is not None else settings.bot_name,
        hub_url=settings.hf_endpoint.rstrip("/"),
        hub=hub,
        redis=client,
        registry=registry,
        binder=RedisJtiBinder(client),
        benchmark_cache=BenchmarkCache(),
        policy=files.policy,
        maintainers=files.bot.maintainers,
        lease_ttl_s=float(TASK_TIME_LIMIT_S),
        clock=lambda: datetime.now(UTC),
        queue_name=QUEUE,
        reconcile=files.bot.reconcile,
        max_countdown_s=countdown_cap_s(settings),
        throttle_budget_s=HUB_THROTTLE_BUDGET_S,
        campaign=files.bot.campaign,
        repo_reader=hub,
        datasets=hub,
        datastores=files.bot.datastores,
        datastore_hub=HubDatastore(hub, api),
        public_url=settings.public_url,
    )
