"""What a worker process builds once at start-up and reuses for every task: its Redis, Hub and
issuer clients, and the Redis-backed jti binder and key cache the verifier sees only through its
protocols (a Redis error is `VerificationUnavailable`, retried)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import redis
from huggingface_hub import HfApi

from bot.adapters.jwks_http import HttpxJwksFetcher
from bot.botconfig.sections import CampaignConfig, ReconcileConfig
from bot.eee.submission import DatastorePolicy
from bot.hub.client import HfHubClient, HubClient
from bot.hub.datastore import HubDatastore
from bot.hub.identity import HubIdentity
from bot.hub.repo_results import DatasetPrClient, ResultsReader
from bot.hub.sources import BenchmarkCache
from bot.hub.timeouts import use_hub_timeout
from bot.queue.publishing import QUEUE
from bot.settings import Settings
from bot.store import REDIS_TIMEOUT_S, keys
from bot.store.history import VISIBILITY_FRESH_S
from bot.tokens.binding import (
    DEFAULT_RETENTION_S,
    BindOutcome,
    JtiBinder,
    binding_key,
    binding_ttl_s,
    binding_value,
)
from bot.tokens.issuers import REFETCH_INTERVAL_S, IssuerRegistry
from bot.tokens.keycache import CachedJwks
from bot.tokens.reasons import VerificationUnavailable
from bot.validation.policy import Policy
from workers.app import TASK_TIME_LIMIT_S, VISIBILITY_TIMEOUT_S
from workers.hub_pause import HUB_THROTTLE_BUDGET_S

__all__ = ["Runtime", "build_runtime", "countdown_cap_s"]


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
    #: Collection standing and cross-PR claims in the comment (`workers.standing_and_clashes`), and
    #: the Hub reads they need beyond `hub` (either None: both are off).
    campaign: CampaignConfig | None = None
    repo_reader: ResultsReader | None = None
    #: PRs on benchmark datasets (`workers.benchmark_pr`); None: they are not checked.
    datasets: DatasetPrClient | None = None
    #: Every Eval Ever datastores by lower-cased repo id, and the Hub reads their PRs need
    #: (`workers.datastore_pr`; None: datastore PRs are not checked).
    datastores: Mapping[str, DatastorePolicy] = field(default_factory=dict)
    datastore_hub: HubDatastore | None = None
    #: Datastores whose records a result's `source.url` is checked against (docs/comment.md).
    source_datastores: tuple[str, ...] = ()
    #: The web pages' public address (`EVALBOT_WEB_PUBLIC_URL`): the comment links each PR's
    #: details page there; None: no link.
    public_url: str | None = None
    #: Repos' visibility as this process last learned it (`workers.model_history.repo_visibility`).
    visibilities: TimedMemo = field(default_factory=lambda: TimedMemo(VISIBILITY_FRESH_S))


class TimedMemo:
    """What this process learned lately, by key, each for `ttl_s` (monotonic clock), at most
    `limit` keys (the oldest go first): a read saved, never a truth kept."""

    def __init__(self, ttl_s: float, limit: int = 4096) -> None:
        self._ttl_s = ttl_s
        self._limit = limit
        self._values: dict[str, tuple[float, str]] = {}

    def get(self, key: str) -> str | None:
        found = self._values.get(key)
        if found is None or found[0] < time.monotonic():
            return None
        return found[1]

    def put(self, key: str, value: str) -> None:
        self._values.pop(key, None)
        if len(self._values) >= self._limit:
            del self._values[next(iter(self._values))]
        self._values[key] = (time.monotonic() + self._ttl_s, value)


def countdown_cap_s(settings: Settings) -> float:
    """The longest retry countdown: the visibility timeout minus the hard time limit. kombu's
    Redis transport hands a message a worker holds (an ETA retry included) to another worker
    once the visibility timeout has passed; a retry held this long, then run to the limit, is
    acknowledged before that. The settings guarantee at least 1 s."""
    return float(VISIBILITY_TIMEOUT_S - TASK_TIME_LIMIT_S)


def build_runtime(settings: Settings, identity: HubIdentity | None = None) -> Runtime:
    """Everything a worker needs, from `settings` and the bot config read with them.
    `identity`: the account the Hub says owns the token (`workers.startup`), whose spelling
    of its name finds the bot's own comments; without it, `bot_name`."""
    bot = settings.bot
    client = redis.Redis.from_url(
        settings.redis_url,
        socket_timeout=REDIS_TIMEOUT_S * 5,
        socket_connect_timeout=REDIS_TIMEOUT_S,
        health_check_interval=30,
    )
    use_hub_timeout(settings.hub_timeout_s)
    api = HfApi(endpoint=settings.hf_endpoint, token=settings.hf_token.reveal())
    registry = IssuerRegistry(
        bot.issuers,
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
        policy=bot.policy,
        maintainers=bot.maintainers,
        lease_ttl_s=float(TASK_TIME_LIMIT_S),
        clock=lambda: datetime.now(UTC),
        queue_name=QUEUE,
        reconcile=bot.reconcile,
        max_countdown_s=countdown_cap_s(settings),
        throttle_budget_s=HUB_THROTTLE_BUDGET_S,
        campaign=bot.campaign if bot.campaign.enabled else None,
        repo_reader=hub,
        datasets=hub,
        datastores=bot.datastores,
        datastore_hub=HubDatastore(hub, api),
        source_datastores=bot.source_datastores,
        public_url=settings.public_url,
    )


_CLAIM_SCRIPT = """
local previous = redis.call('GET', KEYS[1])
if previous then
    return previous
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
"""


class RedisJtiBinder:
    """Bindings shared by every worker: one atomic script claims and compares.

    The TTL is relative (`EX`) and computed from the worker's clock, so a skewed Redis clock
    cannot shorten it (docs/security.md#fault-injection item 9).
    """

    def __init__(
        self,
        client: redis.Redis,
        *,
        prefix: str = keys.JTI_PREFIX,
        retention_s: int = DEFAULT_RETENTION_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._claim = client.register_script(_CLAIM_SCRIPT)
        self._prefix = prefix
        self._retention_s = retention_s
        self._clock = clock

    def bind(self, *, issuer: str, jti: str, model_repo: str, digest: str, expires_at: int) -> bool:
        outcome = self.claim(
            issuer=issuer, jti=jti, model_repo=model_repo, digest=digest, expires_at=expires_at
        )
        return outcome is not BindOutcome.OTHER

    def claim(
        self, *, issuer: str, jti: str, model_repo: str, digest: str, expires_at: int
    ) -> BindOutcome:
        """Bind or compare atomically; `NEW` for exactly one of any number of racing callers."""
        value = binding_value(model_repo, digest)
        ttl = binding_ttl_s(expires_at, now=self._clock(), retention_s=self._retention_s)
        # One Lua script: returns nil when it set the key, else the value already bound; it
        # runs atomically, so two workers racing cannot both claim. (`SET NX GET` would do
        # the same but needs Redis >= 7.0; managed and bundled Redis 6.2 are still common.)
        try:
            previous = self._claim(keys=[binding_key(self._prefix, issuer, jti)], args=[value, ttl])
        except redis.RedisError as error:
            raise VerificationUnavailable(f"jti bindings unavailable: {error}") from error
        if previous is None:
            return BindOutcome.NEW
        if isinstance(previous, str):  # a client built with decode_responses=True
            previous = previous.encode()
        return BindOutcome.SAME if previous == value else BindOutcome.OTHER


class RedisKeyCache:
    """JWKS bodies in Redis without expiry (a stale key set beats none), freshness as a
    marker key with a TTL, cooldown by `SET NX EX`."""

    def __init__(self, client: redis.Redis, *, prefix: str = keys.JWKS_PREFIX) -> None:
        self._client = client
        self._prefix = prefix

    def load(self, issuer: str) -> CachedJwks | None:
        try:
            body, fresh = self._client.mget(
                [f"{self._prefix}body:{issuer}", f"{self._prefix}fresh:{issuer}"]
            )
        except redis.RedisError as error:
            raise VerificationUnavailable(f"key cache unavailable: {error}") from error
        if isinstance(body, str):  # a client built with decode_responses=True
            body = body.encode()
        if not isinstance(body, bytes):
            return None
        return CachedJwks(body, fresh is not None)

    def store(self, issuer: str, body: bytes, fresh_for_s: float) -> None:
        try:
            with self._client.pipeline(transaction=True) as pipe:
                pipe.set(f"{self._prefix}body:{issuer}", body)
                pipe.set(f"{self._prefix}fresh:{issuer}", b"1", ex=max(1, math.ceil(fresh_for_s)))
                pipe.execute()
        except redis.RedisError as error:
            raise VerificationUnavailable(f"key cache unavailable: {error}") from error

    def claim_refetch(self, issuer: str, interval_s: float) -> bool:
        try:
            claimed = self._client.set(
                f"{self._prefix}refetch:{issuer}", b"1", nx=True, ex=max(1, math.ceil(interval_s))
            )
        except redis.RedisError as error:
            raise VerificationUnavailable(f"key cache unavailable: {error}") from error
        return bool(claimed)

    def note_refetch_failed(self, issuer: str, interval_s: float) -> None:
        try:
            self._client.set(
                f"{self._prefix}refetch:{issuer}",
                b"failed",
                xx=True,
                ex=max(1, math.ceil(interval_s)),
            )
        except redis.RedisError as error:
            raise VerificationUnavailable(f"key cache unavailable: {error}") from error

    def refetch_failed(self, issuer: str) -> bool:
        try:
            claim = self._client.get(f"{self._prefix}refetch:{issuer}")
        except redis.RedisError as error:
            raise VerificationUnavailable(f"key cache unavailable: {error}") from error
        return claim in (b"failed", "failed")
