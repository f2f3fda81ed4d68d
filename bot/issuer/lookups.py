"""Benchmark lookups, found or not found, shared by every request of the issuer for minutes, so no
caller can make it ask the Hub again and again (docs/issuer.md, "Benchmark lookups")."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.issuer.flightcache import FlightCache
from bot.validation.model import Benchmark, BenchmarkLookup, BenchmarkNotFound

#: What the cache asks on a miss: one lookup against the Hub (`HubBenchmarkSource.lookup`).
Lookup = Callable[[str, str | None], BenchmarkLookup]
#: Seconds a lookup, found or not, is reused. Five minutes turns a flood of requests for
#: made-up benchmarks into one Hub call per id and revision every five minutes, while a new
#: benchmark or revision is usable within the time a CI job takes to retry.
BENCHMARK_CACHE_S = 300.0
DEFAULT_CAPACITY = 4096
#: Answers holding a read eval.yaml (a few MB at worst each), within `DEFAULT_CAPACITY`.
DEFAULT_READ_CAPACITY = 256
#: Revisions longer than this are no branch, tag or commit the issuer would sign.
MAX_REVISION_CHARS = 255
#: Longer than any Hub repo id (`owner/name`, each part a few dozen characters at most).
MAX_ID_CHARS = 200

_Key = tuple[str, str | None]


@dataclass
class CachedLookups:
    """A `BenchmarkSource` over `lookup`, shared by all requests (thread-safe)."""

    lookup_on_hub: Lookup
    ttl_s: float = BENCHMARK_CACHE_S
    capacity: int = DEFAULT_CAPACITY
    read_capacity: int = DEFAULT_READ_CAPACITY
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self._cache: FlightCache[_Key, BenchmarkLookup] = FlightCache(
            ttl_s=self.ttl_s,
            capacity=self.capacity,
            clock=self.clock,
            heavy=_holds_a_read,
            heavy_capacity=self.read_capacity,
        )

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        if len(dataset_id) > MAX_ID_CHARS:
            return BenchmarkNotFound(
                dataset_id[:MAX_ID_CHARS], f"id of {len(dataset_id)} characters: no such dataset"
            )
        if revision is not None and len(revision) > MAX_REVISION_CHARS:
            return BenchmarkNotFound(
                dataset_id, f"revision of {len(revision)} characters: no such revision"
            )
        # A HubError raised by the Hub's lookup is not kept: the next request asks again.
        return self._cache.get(
            (dataset_id.lower(), revision), lambda: self.lookup_on_hub(dataset_id, revision)
        )

    def __len__(self) -> int:
        return len(self._cache)


def _holds_a_read(found: BenchmarkLookup) -> bool:
    """Whether `found` holds what an eval.yaml was read into (a benchmark, or its problems)."""
    return isinstance(found, Benchmark) or bool(found.diagnostics)
