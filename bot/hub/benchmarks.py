"""Benchmarks read from the Hub, cached by (dataset, commit SHA): `BenchmarkSource` for workers.

Per lookup: one `dataset_info` call resolves the requested revision to a SHA and gives the
canonical id (ids are matched case-insensitively, like the Hub). The eval.yaml is then read at
that SHA only on a cache miss: a SHA names immutable content, so a cached parse never goes
stale, and a benchmark that moves on simply gets a new key. Within one run (one source
instance) the revision check itself is memoised, so ten entries on one benchmark cost one call.

Parsing is injected (`parse`, from `bot.spec`): this module only moves bytes. Transient Hub
errors propagate (the worker retries the whole run); a missing dataset, revision or eval.yaml
becomes a `BenchmarkNotFound` the validator reports on the entry.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from bot.hub.client import HubClient
from bot.hub.errors import HubPermanentError
from bot.spec.model import BenchmarkLookup, BenchmarkNotFound

EVAL_YAML = "eval.yaml"

#: (canonical dataset id, commit SHA, eval.yaml bytes) -> the parsed benchmark or why not.
ParseEvalYaml = Callable[[str, str, bytes], BenchmarkLookup]


class BenchmarkCache:
    """A small LRU of parsed benchmarks keyed by (lower-cased id, SHA); one per worker process."""

    def __init__(self, capacity: int = 512) -> None:
        self.capacity = capacity
        self._items: OrderedDict[tuple[str, str], BenchmarkLookup] = OrderedDict()

    def get(self, key: tuple[str, str]) -> BenchmarkLookup | None:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: tuple[str, str], value: BenchmarkLookup) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class HubBenchmarkSource:
    """`BenchmarkSource` over the Hub. Build one per run; share the `cache` across runs."""

    def __init__(self, client: HubClient, parse: ParseEvalYaml, cache: BenchmarkCache) -> None:
        self._client = client
        self._parse = parse
        self._cache = cache
        self._resolved: dict[tuple[str, str | None], BenchmarkLookup] = {}

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        memo_key = (dataset_id.lower(), revision)
        if memo_key in self._resolved:
            return self._resolved[memo_key]
        result = self._lookup(dataset_id, revision)
        self._resolved[memo_key] = result
        return result

    def _lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        try:
            resolved = self._client.dataset_revision(dataset_id, revision)
        except HubPermanentError as error:
            if error.code == "RevisionNotFound":
                return BenchmarkNotFound(dataset_id, f"revision {revision!r} not found")
            return BenchmarkNotFound(dataset_id, "dataset not found on the Hub")
        key = (resolved.repo_id.lower(), resolved.sha)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        try:
            content = self._client.read_file(
                resolved.repo_id, EVAL_YAML, resolved.sha, repo_type="dataset"
            )
        except HubPermanentError as error:
            if not error.not_found:
                return BenchmarkNotFound(resolved.repo_id, f"eval.yaml unreadable: {error}")
            result: BenchmarkLookup = BenchmarkNotFound(resolved.repo_id, "no eval.yaml")
        else:
            result = self._parse(resolved.repo_id, resolved.sha, content)
        self._cache.put(key, result)
        return result
