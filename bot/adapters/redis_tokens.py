"""Token verification's shared state in Redis: jti bindings and the JWKS cache of every worker.

The verifier (`bot.tokens`) sees these only through the `JtiBinder` and `KeyCache` protocols,
so it imports no client library; the worker runtime builds them over its Redis client. A Redis
error becomes `VerificationUnavailable`: an outage is not a property of a token, so the task
retries instead of publishing a verdict.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import redis

from bot.store import keys
from bot.tokens.keycache import CachedJwks
from bot.tokens.reasons import VerificationUnavailable
from bot.tokens.verify import (
    DEFAULT_RETENTION_S,
    BindOutcome,
    binding_key,
    binding_ttl_s,
    binding_value,
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
