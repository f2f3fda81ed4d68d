"""Where fetched JWKS documents are kept: in memory for the CLI, in Redis for the bot's workers
(`RedisKeyCache`, in `workers.runtime`).

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

    def note_refetch_failed(self, issuer: str, interval_s: float) -> None:
        """The fetch just claimed failed: `refetch_failed` says so until the next may start."""
        ...

    def refetch_failed(self, issuer: str) -> bool:
        """True while the last claimed fetch for the issuer failed and no other may start."""
        ...


class MemoryKeyCache:
    """A process-local cache; the clock is injectable so tests can step through cooldowns."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._bodies: dict[str, tuple[bytes, float]] = {}  # body, fresh until
        self._next_fetch: dict[str, float] = {}
        self._failed_until: dict[str, float] = {}
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
            self._failed_until.pop(issuer, None)
            return True

    def note_refetch_failed(self, issuer: str, interval_s: float) -> None:
        with self._lock:
            self._failed_until[issuer] = self._clock() + interval_s

    def refetch_failed(self, issuer: str) -> bool:
        with self._lock:
            return self._clock() < self._failed_until.get(issuer, -math.inf)
