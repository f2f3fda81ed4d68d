"""A bounded, expiring cache of the Hub's answers asking the Hub once per key at a time, under the
issuer's `whoami-v2` and benchmark caches; an answer that raised is not kept."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class FlightCache(Generic[K, V]):
    """Thread-safe; `heavy`, when given, marks answers of which at most `heavy_capacity` are
    kept (within `capacity`), the oldest dropped first."""

    def __init__(
        self,
        *,
        ttl_s: float,
        capacity: int,
        clock: Callable[[], float] = time.monotonic,
        heavy: Callable[[V], bool] | None = None,
        heavy_capacity: int = 0,
    ) -> None:
        self.ttl_s = ttl_s
        self.capacity = capacity
        self.clock = clock
        self._heavy = heavy
        self._heavy_capacity = heavy_capacity
        self._lock = threading.Lock()
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._pending: dict[K, threading.Lock] = {}

    def get(self, key: K, compute: Callable[[], V]) -> V:
        """The kept answer for `key`, else `compute()`'s, kept (unless it raised)."""
        found = self._cached(key)
        if found is not None:
            return found[0]
        with self._lock:
            pending = self._pending.setdefault(key, threading.Lock())
        try:
            with pending:  # one call per key at a time; the others find its answer
                found = self._cached(key)
                if found is not None:
                    return found[0]
                answer = compute()
                self._keep(key, answer)
                return answer
        finally:
            # Also when `compute` raised: else every key asked during an outage would leave
            # its lock behind, for good.
            with self._lock:
                if self._pending.get(key) is pending:
                    del self._pending[key]

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def _cached(self, key: K) -> tuple[V] | None:
        now = self.clock()
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if now - entry[0] >= self.ttl_s:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return (entry[1],)

    def _keep(self, key: K, answer: V) -> None:
        with self._lock:
            self._entries[key] = (self.clock(), answer)
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
            if self._heavy is not None:
                heavy = [k for k, (_, kept) in self._entries.items() if self._heavy(kept)]
                for oldest in heavy[: max(0, len(heavy) - self._heavy_capacity)]:
                    del self._entries[oldest]
