"""OIDC ID tokens from CI providers, checked the way PyPI trusted publishing does (Warehouse
`warehouse/oidc/`); each check: docs/issuer.md, "Authentication"."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import jwt

from bot.adapters.jwks_http import HttpxJwksFetcher
from bot.issuer.identity import Identity
from bot.issuer.integrations import IntegrationsConfig, Provider
from bot.issuer.refusals import Refusal, Unauthenticated, Unavailable
from bot.tokens.jwks import JwksFetchError, check_jwks_url

LEEWAY_S = 30
REQUIRED_CLAIMS = ("iss", "sub", "aud", "exp", "iat", "jti")
MAX_ID_TOKEN_BYTES = 16 * 1024

#: GETs a URL and returns its body (size and time bounded), or raises `JwksFetchError`.
Fetch = Callable[[str], bytes]


class ReplayGuard(Protocol):
    def first_use(self, key: str, ttl_s: int) -> bool:
        """True the first time `key` is claimed within `ttl_s`; False for every later claim."""


@dataclass
class _Cached:
    keys: dict[str, jwt.PyJWK]
    fetched_at: float


@dataclass
class ProviderKeys:
    """Each provider's signing keys: discovery -> `jwks_uri` -> keys, cached in memory.

    An unknown `kid` refetches at most once per `refetch_interval_s` (a provider rotating its
    keys is seen within a minute; a flood of made-up kids costs one fetch a minute); a set
    older than `max_age_s` is refreshed at its next use; a failed fetch keeps the cached set.
    A provider that cannot be reached is also asked at most once per interval (an ID token
    naming its `iss` costs nothing to forge), and each provider has its own lock, so a slow
    provider holds up only the tokens that name it.
    """

    fetch: Fetch = field(default_factory=HttpxJwksFetcher)
    max_age_s: float = 600.0
    refetch_interval_s: float = 60.0
    clock: Callable[[], float] = time.monotonic
    _cache: dict[str, _Cached] = field(default_factory=dict)
    _attempts: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _provider_locks: dict[str, threading.Lock] = field(default_factory=dict)

    def _lock_for(self, provider: Provider) -> threading.Lock:
        with self._lock:
            return self._provider_locks.setdefault(provider.issuer, threading.Lock())

    def key(self, provider: Provider, kid: str) -> jwt.PyJWK:
        with self._lock_for(provider):
            cached = self._cache.get(provider.issuer)
            now = self.clock()
            stale = cached is None or now - cached.fetched_at > self.max_age_s
            if cached is not None and kid in cached.keys and not stale:
                return cached.keys[kid]
            last = self._attempts.get(provider.issuer)
            if last is None or now - last >= self.refetch_interval_s:
                self._attempts[provider.issuer] = now
                try:
                    cached = _Cached(self._load(provider), now)
                    self._cache[provider.issuer] = cached
                except JwksFetchError as error:
                    if cached is None:
                        raise Unavailable("provider-keys-unavailable") from error
            if cached is None:  # the last attempt failed, within the interval
                raise Unavailable("provider-keys-unavailable")
            if kid in cached.keys:
                return cached.keys[kid]
        raise Refusal("kid-unknown", 401)

    def _load(self, provider: Provider) -> dict[str, jwt.PyJWK]:
        discovery_url = provider.issuer.rstrip("/") + "/.well-known/openid-configuration"
        check_jwks_url(discovery_url)
        try:
            discovery = json.loads(self.fetch(discovery_url))
        except ValueError as error:
            raise JwksFetchError("the discovery document is not JSON") from error
        jwks_uri = discovery.get("jwks_uri") if isinstance(discovery, dict) else None
        if not isinstance(jwks_uri, str) or discovery.get("issuer") != provider.issuer:
            raise JwksFetchError("the discovery document names no jwks_uri for this issuer")
        check_jwks_url(jwks_uri)
        try:
            document = json.loads(self.fetch(jwks_uri))
            key_set = jwt.PyJWKSet.from_dict(document)
        except (ValueError, jwt.PyJWTError) as error:
            raise JwksFetchError(f"the provider JWKS is unusable: {error}") from error
        return {key.key_id: key for key in key_set.keys if key.key_id}


@dataclass
class OidcVerifier:
    """Turns an ID token into an `Identity`, or refuses it with the reason."""

    config: IntegrationsConfig
    audience: str
    keys: ProviderKeys
    replay: ReplayGuard
    now: Callable[[], float] = time.time

    def verify(self, token: str) -> Identity:
        if len(token) > MAX_ID_TOKEN_BYTES:
            raise Unauthenticated("id-token-malformed")
        try:
            header = jwt.get_unverified_header(token)
            unverified = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError as error:
            raise Unauthenticated("id-token-malformed") from error
        issuer = unverified.get("iss")
        provider = self.config.provider_for_issuer(issuer) if isinstance(issuer, str) else None
        if provider is None:
            raise Unauthenticated("issuer-unknown")
        algorithm = header.get("alg")
        if algorithm not in provider.algorithms:
            raise Unauthenticated("alg-not-allowed")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise Unauthenticated("kid-missing")
        key = self.keys.key(provider, kid)
        if key.algorithm_name != algorithm:
            # Each key verifies with its one algorithm (RFC 8725 §3.1): its JWK's `alg`, else
            # its type's (RSA: RS256, EC: by curve); a header naming another is refused here,
            # before PyJWT would choke (TypeError) on a key of the wrong type.
            raise Unauthenticated("alg-key-mismatch")
        claims = self._decode(token, key, provider, str(algorithm))
        jti, expires = claims.get("jti"), claims.get("exp")
        if not isinstance(jti, str) or not jti or not isinstance(expires, int):
            raise Unauthenticated("claim-invalid")
        ttl = max(1, int(expires - self.now()) + LEEWAY_S + 1)
        if not self.replay.first_use(f"{provider.issuer}\n{jti}", ttl):
            raise Unauthenticated("id-token-reused")
        subject = claims["sub"]
        if not isinstance(subject, str) or not subject:
            raise Unauthenticated("claim-invalid")
        return Identity(kind="oidc", name=subject, provider=provider.name, claims=claims)

    def _decode(
        self, token: str, key: jwt.PyJWK, provider: Provider, algorithm: str
    ) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=[algorithm],
                audience=self.audience,
                issuer=provider.issuer,
                leeway=LEEWAY_S,
                options={"require": list(REQUIRED_CLAIMS), "strict_aud": True},
            )
        except jwt.ExpiredSignatureError as error:
            raise Unauthenticated("id-token-expired") from error
        except jwt.ImmatureSignatureError as error:
            raise Unauthenticated("id-token-not-yet-valid") from error
        except jwt.InvalidAudienceError as error:
            raise Unauthenticated("audience-mismatch") from error
        except jwt.InvalidSignatureError as error:
            raise Unauthenticated("bad-signature") from error
        except jwt.MissingRequiredClaimError as error:
            raise Unauthenticated(f"claim-missing:{error.claim}") from error
        except jwt.PyJWTError as error:
            raise Unauthenticated("id-token-invalid") from error
        return claims
