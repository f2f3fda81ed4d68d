"""Where fetched JWKS documents are kept: in memory for the CLI, in Redis for the bot's workers.

Shared by every worker when in Redis, so one refetch serves them all and the refetch budget
(at most one per issuer per interval) holds across the fleet, as in Warehouse
(docs/security.md#jwks-caching). Only documents that parsed into at least one usable key are ever
stored: a failed or garbage fetch never replaces a good cache.

A stored set is *fresh* for a while (`fresh_for_s`, the registry's refresh interval); after
that it still verifies, but the registry refreshes it at its next use, so a key the issuer
removed (revoked) stops verifying within that interval, not never.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import NamedTuple, Protocol

import redis

from bot.tokens.binding import VerificationUnavailable


class CachedJwks(NamedTuple):
    """The last good JWKS body of an issuer, and whether it is still within its refresh
    interval (read together: one round trip)."""

    body: bytes
    fresh: bool


class KeyCache(Protocol):
    """The last good JWKS body per issuer, and the refetch budget per issuer."""

    def load(self, issuer: str) -> CachedJwks | None:
        """The last JWKS body stored for the issuer, None if none was ever stored."""
        ...

    def store(self, issuer: str, body: bytes, fresh_for_s: float) -> None:
        """Keep `body` (already known to hold usable keys) as the issuer's JWKS, fresh for
        `fresh_for_s` seconds from now."""
        ...

    def claim_refetch(self, issuer: str, interval_s: float) -> bool:
        """True when a fetch for the issuer may start now; then False for `interval_s`."""
        ...


class MemoryKeyCache:
    """A process-local cache; the clock is injectable so tests can step through cooldowns."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._bodies: dict[str, tuple[bytes, float]] = {}  # body, fresh until
        self._next_fetch: dict[str, float] = {}
        self._lock = threading.Lock()

    def load(self, issuer: str) -> CachedJwks | None:
        with self._lock:
            stored = self._bodies.get(issuer)
            if stored is None:
                return None
            return CachedJwks(stored[0], self._clock() < stored[1])

    def store(self, issuer: str, body: bytes, fresh_for_s: float) -> None:
        with self._lock:
            self._bodies[issuer] = (body, self._clock() + fresh_for_s)

    def claim_refetch(self, issuer: str, interval_s: float) -> bool:
        with self._lock:
            now = self._clock()
            if now < self._next_fetch.get(issuer, -math.inf):
                return False
            self._next_fetch[issuer] = now + interval_s
            return True


class RedisKeyCache:
    """JWKS bodies in Redis without expiry (a stale key set beats none), freshness as a
    marker key with a TTL, cooldown by `SET NX EX`."""

    def __init__(self, client: redis.Redis, *, prefix: str = "evalbot:jwks:") -> None:
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
