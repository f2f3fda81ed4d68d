"""Trusted issuers: who may sign tokens, with which keys (inline or from the issuer's JWKS,
cached in a `KeyCache`), for which frameworks and repos (docs/security.md, "Issuer confusion"
and "JWKS caching").
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from bot.tokens import reasons
from bot.tokens.jwks import (
    JwksFetcher,
    JwksFetchError,
    KeyFormatError,
    check_jwks_url,
    parse_ed25519_jwk,
    parse_jwks,
)
from bot.tokens.keycache import CachedJwks, KeyCache, MemoryKeyCache
from bot.tokens.reasons import VerificationUnavailable

DEFAULT_MAX_LIFETIME_S = 3600
#: Seconds between two JWKS fetches per issuer, fleet-wide: a token with an unknown `kid` (an
#: issuer's key rotation, or a flood of made-up kids) triggers at most one fetch per interval,
#: so an attacker cannot make the bot hammer an issuer, while a rotated key is picked up within
#: a minute of its first token.
REFETCH_INTERVAL_S = 60.0
#: How long a fetched key set is used before it is refreshed (PyJWT's PyJWKClient: 300 s).
JWKS_MAX_AGE_S = 600.0


def no_fetcher(url: str) -> bytes:
    """The fetcher of a registry given none: no network, so a JWKS URL yields no keys
    (`keys-unavailable`). Callers that fetch pass `bot.adapters.jwks_http.HttpxJwksFetcher`."""
    raise JwksFetchError(f"no JWKS fetcher configured for {url}")


class IssuerConfigError(ValueError):
    """`issuers:` in `config/bot.yaml` is not a valid issuer list; the message says where."""


class KeyNotFound(LookupError):
    """No key for (issuer, kid); `reason` is the documented reason code."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@functools.lru_cache(maxsize=256)
def _globs(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One regex for a policy's globs, as `fnmatch.fnmatchcase` reads each: shell-style and
    case-sensitive over canonical repo ids (docs/decisions.md#tokens). Compiled once per
    policy, so a verification matches once instead of once per pattern."""
    return re.compile("|".join(f"(?:{fnmatch.translate(pattern)})" for pattern in patterns))


def _glob_match(value: str, patterns: tuple[str, ...]) -> bool:
    return _globs(patterns).match(value) is not None


@dataclass(frozen=True)
class IssuerPolicy:
    """One trusted issuer as configured
    (docs/verification.md#for-operators-registering-an-issuer)."""

    issuer: str
    frameworks: tuple[str, ...]
    keys: Mapping[str, Ed25519PublicKey] = field(default_factory=dict)
    jwks_url: str | None = None
    audience: str | None = None
    benchmarks: tuple[str, ...] = ("*",)
    models: tuple[str, ...] = ("*",)
    max_lifetime_s: int = DEFAULT_MAX_LIFETIME_S

    def allows_framework(self, name: str) -> bool:
        return name in self.frameworks

    def allows_benchmark(self, repo_id: str) -> bool:
        return _glob_match(repo_id, self.benchmarks)

    def allows_model(self, repo_id: str) -> bool:
        return _glob_match(repo_id, self.models)


def _string_list(raw: Any, where: str, *, default: tuple[str, ...] | None) -> tuple[str, ...]:
    if raw is None and default is not None:
        return default
    if not isinstance(raw, list) or not all(isinstance(item, str) and item for item in raw):
        raise IssuerConfigError(f"{where}: expected a list of non-empty strings")
    return tuple(raw)


def _policy_from_mapping(raw: Any, position: int) -> IssuerPolicy:
    where = f"issuers[{position}]"
    if not isinstance(raw, dict):
        raise IssuerConfigError(f"{where}: expected a mapping")
    known = {
        "issuer",
        "audience",
        "keys",
        "jwks_url",
        "frameworks",
        "benchmarks",
        "models",
        "max_lifetime_s",
    }
    unknown = sorted(set(raw) - known)
    if unknown:
        raise IssuerConfigError(f"{where}: unknown keys {unknown}")
    issuer = raw.get("issuer")
    if not isinstance(issuer, str) or not issuer:
        raise IssuerConfigError(f"{where}.issuer: expected a non-empty string")
    audience = raw.get("audience")
    if audience is not None and (not isinstance(audience, str) or not audience):
        raise IssuerConfigError(f"{where}.audience: expected a non-empty string")
    keys: dict[str, Ed25519PublicKey] = {}
    raw_keys = raw.get("keys", [])
    if not isinstance(raw_keys, list):
        raise IssuerConfigError(f"{where}.keys: expected a list of public JWKs")
    for key_position, jwk in enumerate(raw_keys):
        try:
            kid, key = parse_ed25519_jwk(jwk)
        except KeyFormatError as error:
            raise IssuerConfigError(f"{where}.keys[{key_position}]: {error}") from error
        if kid in keys:
            raise IssuerConfigError(f"{where}.keys[{key_position}]: kid {kid!r} twice")
        keys[kid] = key
    jwks_url = raw.get("jwks_url")
    if jwks_url is not None:
        if not isinstance(jwks_url, str):
            raise IssuerConfigError(f"{where}.jwks_url: expected a URL")
        try:
            check_jwks_url(jwks_url)
        except JwksFetchError as error:
            raise IssuerConfigError(f"{where}.jwks_url: {error}") from error
    if not keys and jwks_url is None:
        raise IssuerConfigError(f"{where}: needs `keys`, `jwks_url` or both")
    lifetime = raw.get("max_lifetime_s", DEFAULT_MAX_LIFETIME_S)
    if isinstance(lifetime, bool) or not isinstance(lifetime, int) or lifetime <= 0:
        raise IssuerConfigError(f"{where}.max_lifetime_s: expected a positive integer")
    return IssuerPolicy(
        issuer=issuer,
        audience=audience,
        keys=keys,
        jwks_url=jwks_url,
        frameworks=_string_list(raw.get("frameworks"), f"{where}.frameworks", default=None),
        benchmarks=_string_list(raw.get("benchmarks"), f"{where}.benchmarks", default=("*",)),
        models=_string_list(raw.get("models"), f"{where}.models", default=("*",)),
        max_lifetime_s=lifetime,
    )


def policies_from_mapping(data: Any) -> list[IssuerPolicy]:
    """Parse the `issuers.yaml` document; raises `IssuerConfigError` on the first problem."""
    if data is None:
        return []
    if not isinstance(data, dict) or set(data) - {"issuers"}:
        raise IssuerConfigError("expected a mapping with one key, `issuers`")
    raw_issuers = data.get("issuers") or []
    if not isinstance(raw_issuers, list):
        raise IssuerConfigError("issuers: expected a list")
    policies = [_policy_from_mapping(raw, position) for position, raw in enumerate(raw_issuers)]
    seen: set[str] = set()
    for policy in policies:
        if policy.issuer in seen:
            raise IssuerConfigError(f"issuer {policy.issuer!r} is configured twice")
        seen.add(policy.issuer)
    return policies


class IssuerRegistry:
    """Issuer policies by exact `iss`, and their public keys by `kid`."""

    def __init__(
        self,
        policies: Sequence[IssuerPolicy],
        *,
        fetcher: JwksFetcher | None = None,
        cache: KeyCache | None = None,
        refetch_interval_s: float = REFETCH_INTERVAL_S,
        unavailable_keys_raise: bool = False,
        max_age_s: float = JWKS_MAX_AGE_S,
    ) -> None:
        self._policies = {policy.issuer: policy for policy in policies}
        self._max_age_s = max_age_s
        self._fetcher: JwksFetcher = fetcher if fetcher is not None else no_fetcher
        self._cache: KeyCache = cache if cache is not None else MemoryKeyCache()
        self._refetch_interval_s = refetch_interval_s
        # The bot sets this: with a shared cache, "no keys yet" may mean another worker is
        # fetching them right now, so it must not become a published `keys-unavailable`.
        self._unavailable_keys_raise = unavailable_keys_raise
        # Parsed keys per issuer, memoised on the digest of the cached body: parsing a JWK
        # costs more than verifying a signature, and the body rarely changes.
        self._parsed: dict[str, tuple[bytes, dict[str, Ed25519PublicKey]]] = {}
        self._lock = threading.Lock()

    @property
    def issuers(self) -> tuple[str, ...]:
        return tuple(self._policies)

    def policy(self, issuer: str) -> IssuerPolicy | None:
        """The policy for exactly this `iss` (no normalisation: case, slashes and all)."""
        return self._policies.get(issuer)

    def key(self, issuer: str, kid: str) -> Ed25519PublicKey:
        """The issuer's public key with this kid; raises `KeyNotFound` with a reason code.

        With `unavailable_keys_raise` (the bot), an issuer whose JWKS was never fetched
        successfully raises `VerificationUnavailable` instead of `keys-unavailable`, so the task
        retries rather than publishing a verdict that depends on an outage or a race.
        """
        policy = self._policies.get(issuer)
        if policy is None:
            raise KeyNotFound(reasons.ISSUER_UNTRUSTED)
        inline = policy.keys.get(kid)
        if inline is not None:
            return inline
        if policy.jwks_url is None:
            raise KeyNotFound(reasons.KID_UNKNOWN)
        cached = self._cache.load(issuer)
        fetched = self._keys_of(issuer, cached)
        stale = cached is not None and not cached.fresh
        if kid in fetched and not stale:
            return fetched[kid]
        # Unknown kid (the issuer may have rotated) or a set due for its refresh (a key may
        # have been revoked): refetch, within the per-issuer budget.
        failed = False
        if self._cache.claim_refetch(issuer, self._refetch_interval_s):
            try:
                body = self._fetcher(policy.jwks_url)
                parse_jwks(body)
            except JwksFetchError:
                body = None
                failed = True
                self._cache.note_refetch_failed(issuer, self._refetch_interval_s)
            if body is not None:
                self._cache.store(issuer, body, self._max_age_s)
                cached = CachedJwks(body, fresh=True)
                fetched = self._keys_of(issuer, cached)
        if kid in fetched:
            return fetched[kid]  # fresh, or stale while the endpoint is down: kept in use
        # A kid the last good set lacks, while the issuer's JWKS cannot be read: the key may
        # be one it has just published, so the answer is "unavailable", never "unknown".
        if (not fetched and cached is None) or failed or self._cache.refetch_failed(issuer):
            if self._unavailable_keys_raise:
                raise VerificationUnavailable(f"the keys of {issuer} could not be fetched")
            raise KeyNotFound(reasons.KEYS_UNAVAILABLE)
        raise KeyNotFound(reasons.KID_UNKNOWN)

    def _keys_of(self, issuer: str, cached: CachedJwks | None) -> dict[str, Ed25519PublicKey]:
        if cached is None:
            return {}
        fingerprint = hashlib.sha256(cached.body).digest()
        with self._lock:
            memo = self._parsed.get(issuer)
            if memo is not None and memo[0] == fingerprint:
                return memo[1]
        try:
            keys = parse_jwks(cached.body)
        except JwksFetchError:
            keys = {}
        with self._lock:
            self._parsed[issuer] = (fingerprint, keys)
        return keys
