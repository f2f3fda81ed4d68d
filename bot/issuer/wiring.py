"""Build a running issuer from its settings: every file loaded and checked before it serves, a
broken one stopping the start with its file and line (`StartupError`)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

import redis
from huggingface_hub import HfApi
from starlette.applications import Starlette

from bot.hub.client import HfHubClient
from bot.hub.identity import HubIdentity, whoami
from bot.hub.sources import BenchmarkCache, HubBenchmarkSource
from bot.hub.timeouts import use_hub_timeout
from bot.issuer.app import create_app
from bot.issuer.audit import AuditLog
from bot.issuer.authenticators import Authenticators
from bot.issuer.clientauth import ClientAuthenticator
from bot.issuer.configfile import ConfigError
from bot.issuer.hubauth import HubTokenAuthenticator
from bot.issuer.integrations import load_integrations
from bot.issuer.keyring import KeyringError, KeyringHolder
from bot.issuer.limits import AuthFailureLimits, RedisLimits
from bot.issuer.lookups import CachedLookups
from bot.issuer.oidc import OidcVerifier, ProviderKeys
from bot.issuer.service import Issuer
from bot.issuer.settings import IssuerSettings
from bot.issuer.whoamicache import CachedWhoAmI
from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.model import BenchmarkLookup, BenchmarkSource

log = logging.getLogger("evalbot.issuer")


class StartupError(RuntimeError):
    """The issuer cannot start; the message names what to fix."""


class LockedBenchmarkCache(BenchmarkCache):
    """`BenchmarkCache` shared by the request threads of one process."""

    def __init__(self, capacity: int = 512) -> None:
        super().__init__(capacity)
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> BenchmarkLookup | None:
        with self._lock:
            return super().get(key)

    def put(self, key: tuple[str, str], value: BenchmarkLookup) -> None:
        with self._lock:
            super().put(key, value)


@dataclass
class RunningIssuer:
    app: Starlette
    issuer: Issuer
    audit: AuditLog


def build(settings: IssuerSettings) -> RunningIssuer:
    try:
        config = load_integrations(settings.integrations_file)
    except ConfigError as error:
        raise StartupError(str(error)) from error
    keyring = KeyringHolder(
        settings.keyring_dir,
        on_error=lambda error: log.error("keyring reload failed, keeping the last good: %s", error),
    )
    try:
        keyring.load()
    except KeyringError as error:
        raise StartupError(str(error)) from error
    client = redis.Redis.from_url(settings.redis_url, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as error:
        raise StartupError(f"REDIS_URL: cannot reach Redis: {error}") from error
    use_hub_timeout(settings.hub_timeout_s)
    reading_token: Any = settings.hf_token.reveal() if settings.hf_token else False
    reader = HfHubClient(HfApi(endpoint=settings.hf_endpoint, token=reading_token))
    cache = LockedBenchmarkCache()

    def lookup_on_hub(dataset_id: str, revision: str | None) -> BenchmarkLookup:
        return HubBenchmarkSource(reader, benchmark_from_eval_yaml, cache).lookup(
            dataset_id, revision
        )

    lookups = CachedLookups(lookup_on_hub)

    def benchmarks() -> BenchmarkSource:
        return lookups

    identity_api = HfApi(endpoint=settings.hf_endpoint, token=False)

    def ask_hub(token: str) -> HubIdentity:
        return whoami(identity_api, token)

    limits = RedisLimits(
        client,
        auth_failures=AuthFailureLimits(settings.auth_failures),
    )
    audit = AuditLog(settings.audit_log).open()
    issuer = Issuer(
        issuer_url=settings.issuer_url,
        config=config,
        keyring=keyring,
        limiter=limits,
        benchmarks=benchmarks,
        audit=audit,
        token_audience=settings.token_audience,
    )
    oidc = OidcVerifier(config, settings.audience, ProviderKeys(), limits)
    authenticators = Authenticators(
        oidc=oidc.verify,
        hub=HubTokenAuthenticator(
            CachedWhoAmI(ask_hub, ttl_s=settings.whoami_cache_s)
        ).authenticate,
        client=ClientAuthenticator(config).authenticate,
    )
    app = create_app(
        issuer,
        authenticators,
        redis_client=client,
        audience=settings.audience,
        auth_failures=limits,
    )
    return RunningIssuer(app=app, issuer=issuer, audit=audit)
