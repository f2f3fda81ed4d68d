"""Benchmarks for the playground, read from the Hub, cached and capped per paste
(docs/web.md, "Validation playground")."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from bot.hub.cached_benchmarks import BenchmarkNotCached
from bot.hub.client import HubClient
from bot.hub.errors import HubError, HubTransientError
from bot.hub.sources import BenchmarkCache, HubBenchmarkSource
from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.model import BenchmarkLookup, BenchmarkNotFound, BenchmarkSource

TOO_MANY = "not looked up: this paste names more than {limit} benchmarks"
#: What the pages say when a benchmark could not be read from the Hub: (title, text).
HUB_DID_NOT_ANSWER = ("The Hub did not answer", "A benchmark could not be read; retry shortly.")
HUB_REFUSED = ("The Hub refused", "A benchmark could not be read: the Hub refused to give it.")


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

    def unreadable(self, error: HubError) -> tuple[str, str]:
        """(title, text) of the page when a lookup raised `error`: a retry can help only when
        the Hub did not answer."""
        return HUB_DID_NOT_ANSWER if isinstance(error, HubTransientError) else HUB_REFUSED


class LocalBenchmarks:
    """The benchmarks of `evalbot playground`: the source `evalbot validate` reads
    (`bot.cli.sources.benchmark_source`: `--benchmarks DIR`, else the Hub through the Hugging
    Face cache, the cache alone with `--offline` or `HF_HUB_OFFLINE=1`), one lookup at a time.
    A failed read says how to go on from the command line, since the user started it."""

    def __init__(self, source: BenchmarkSource, *, hub_url: str) -> None:
        self._source = source
        self._hub_url = hub_url
        self._lock = threading.Lock()
        self._found: dict[str, str] = {}

    def source(self, max_benchmarks: int) -> _BoundedSource:
        return _BoundedSource(self, max_benchmarks)

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        with self._lock:
            result = self._source.lookup(dataset_id, revision)
            if not isinstance(result, BenchmarkNotFound):
                self._found[result.repo_id.lower()] = result.repo_id
        return result

    def known(self) -> list[str]:
        with self._lock:
            return sorted(self._found.values(), key=str.lower)

    def unreadable(self, error: HubError) -> tuple[str, str]:
        if isinstance(error, BenchmarkNotCached):
            return (
                "A benchmark is not cached",
                f"Offline, {error}. Run `evalbot validate` once with the Hub reachable to cache"
                " it, or start `evalbot playground --benchmarks DIR` to read benchmarks from a"
                " folder.",
            )
        if isinstance(error, HubTransientError):
            return (
                "The Hub did not answer",
                f"A benchmark could not be read from {self._hub_url} ({error}). Start `evalbot"
                " playground --offline` to read the benchmarks earlier runs cached, or"
                " `--benchmarks DIR` to read them from a folder.",
            )
        return (
            "The Hub refused",
            f"A benchmark could not be read from {self._hub_url} ({error}). Check HF_ENDPOINT,"
            " or start `evalbot playground --benchmarks DIR` to read benchmarks from a folder.",
        )


class _BoundedSource:
    def __init__(self, shared: CachedHubBenchmarks | LocalBenchmarks, limit: int) -> None:
        self._shared = shared
        self._limit = limit
        self._seen: set[str] = set()

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        name = dataset_id.lower()
        if name not in self._seen and len(self._seen) >= self._limit:
            return BenchmarkNotFound(dataset_id, TOO_MANY.format(limit=self._limit))
        self._seen.add(name)
        return self._shared.lookup(dataset_id, revision)
