"""Benchmarks for the playground: read from the Hub through `bot.hub`, cached, bounded.

The workers' `HubBenchmarkSource` resolves a benchmark's revision on every lookup (right for a
PR run: a moving benchmark must be seen at its new commit). A public page would turn every
paste into Hub calls, so the web process keeps each resolved lookup for `ttl_s` (one minute
by default) on top of the workers' SHA-keyed parse cache, and one paste may name at most
`max_benchmarks` distinct benchmarks: the rest are reported as not looked up, never fetched.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from bot.hub.client import HubClient
from bot.hub.sources import BenchmarkCache, HubBenchmarkSource
from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.model import BenchmarkLookup, BenchmarkNotFound

TOO_MANY = "not looked up: this paste names more than {limit} benchmarks"


class CachedHubBenchmarks:
    """Shared by every request of one web process (thread-safe: requests run in threads)."""

    def __init__(
        self,
        client: HubClient,
        *,
        ttl_s: float = 60.0,
        capacity: int = 256,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._ttl_s = ttl_s
        self._capacity = capacity
        self._clock = clock
        self._parsed = BenchmarkCache()
        self._lock = threading.Lock()
        self._resolved: OrderedDict[tuple[str, str | None], tuple[float, BenchmarkLookup]] = (
            OrderedDict()
        )

    def source(self, max_benchmarks: int) -> _BoundedSource:
        """A `BenchmarkSource` for one request."""
        return _BoundedSource(self, max_benchmarks)

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        key = (dataset_id.lower(), revision)
        now = self._clock()
        with self._lock:
            found = self._resolved.get(key)
            if found is not None and now - found[0] < self._ttl_s:
                return found[1]
        hub = HubBenchmarkSource(self._client, benchmark_from_eval_yaml, self._parsed)
        result = hub.lookup(dataset_id, revision)
        with self._lock:
            self._resolved[key] = (now, result)
            self._resolved.move_to_end(key)
            while len(self._resolved) > self._capacity:
                self._resolved.popitem(last=False)
        return result

    def known(self) -> list[str]:
        """Benchmarks looked up lately (the playground offers them to pick from)."""
        with self._lock:
            names = {
                lookup.repo_id
                for _at, lookup in self._resolved.values()
                if not isinstance(lookup, BenchmarkNotFound)
            }
        return sorted(names, key=str.lower)


class _BoundedSource:
    def __init__(self, shared: CachedHubBenchmarks, limit: int) -> None:
        self._shared = shared
        self._limit = limit
        self._seen: set[str] = set()

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        name = dataset_id.lower()
        if name not in self._seen and len(self._seen) >= self._limit:
            return BenchmarkNotFound(dataset_id, TOO_MANY.format(limit=self._limit))
        self._seen.add(name)
        return self._shared.lookup(dataset_id, revision)
