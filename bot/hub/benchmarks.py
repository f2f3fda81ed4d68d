"""Benchmarks read from the Hub: a dataset's `eval.yaml` at the entry's revision.

The id is resolved to its canonical spelling and commit with `dataset_info`, and parsed
eval.yaml files are cached by (lower-cased id, commit sha): a commit never changes, so a cached
answer is never stale, and many entries on one benchmark cost one download. The cache keeps the
`cache_size` most recently used answers, so a long-running worker stays bounded. A repo, revision or
file that does not exist is a permanent answer (`BenchmarkNotFound`); anything else (network,
5xx, rate limits) propagates for the caller to retry or report.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

import huggingface_hub.errors
from huggingface_hub.errors import (
    EntryNotFoundError,
    GatedRepoError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from bot.spec.benchmark import benchmark_from_eval_yaml
from bot.spec.model import BenchmarkLookup, BenchmarkNotFound

EVAL_YAML = "eval.yaml"

#: What a Hub call raises when the Hub is unreachable or fails (connection errors, 5xx, 429):
#: huggingface_hub's HTTP errors (its HTTP client's base error) and OS-level errors.
#: (huggingface_hub 2.x names its client's base error `errors.HTTPError` without exporting it.)
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    getattr(huggingface_hub.errors, "HTTPError", OSError),
    OSError,
)


class DatasetReader(Protocol):
    """The two `huggingface_hub.HfApi` calls this source makes (HfApi satisfies it)."""

    def dataset_info(self, repo_id: str, *, revision: str | None = None) -> Any: ...

    def hf_hub_download(
        self,
        repo_id: str,
        filename: str,
        *,
        repo_type: str | None = None,
        revision: str | None = None,
    ) -> Any: ...


class HubBenchmarkSource:
    """A `BenchmarkSource` over the Hub (or the emulator: whatever `api.endpoint` points at)."""

    def __init__(self, api: DatasetReader, *, cache_size: int = 512) -> None:
        self.api = api
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str], BenchmarkLookup] = OrderedDict()

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        try:
            info = self.api.dataset_info(dataset_id, revision=revision)
        except GatedRepoError:
            return BenchmarkNotFound(dataset_id, "the dataset is gated; evalbot cannot read it")
        except RevisionNotFoundError:
            return BenchmarkNotFound(dataset_id, f"the dataset has no revision {revision!r}")
        except RepositoryNotFoundError:
            return BenchmarkNotFound(dataset_id, "no such dataset on the Hub")
        canonical = info.id
        sha = info.sha or revision or "main"
        key = (canonical.lower(), sha)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        try:
            local = self.api.hf_hub_download(
                repo_id=canonical, filename=EVAL_YAML, repo_type="dataset", revision=sha
            )
        except EntryNotFoundError:
            found: BenchmarkLookup = BenchmarkNotFound(
                canonical, "the dataset has no eval.yaml, so it is not a benchmark"
            )
        else:
            content = Path(str(local)).read_bytes()
            found = benchmark_from_eval_yaml(canonical, content, info.sha)
        self._cache[key] = found
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)  # least recently used
        return found
