"""Benchmarks for the user's commands, read through the Hugging Face cache with the library's
public API, so a benchmark read once online is there offline; one the cache lacks is an error,
never absent (docs/validate.md, "Offline")."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from huggingface_hub import constants, hf_hub_download, try_to_load_from_cache
from huggingface_hub.errors import LocalEntryNotFoundError
from huggingface_hub.file_download import repo_folder_name

from bot.hub.client import DEFAULT_MAX_FILE_BYTES, HubClient, hub_errors
from bot.hub.errors import HubError, HubPermanentError, HubTransientError
from bot.hub.sources import EVAL_YAML, resolve_revision
from bot.validation.model import BenchmarkLookup, BenchmarkNotFound

#: (canonical dataset id, commit SHA, eval.yaml bytes) -> the parsed benchmark or why not.
ParseEvalYaml = Callable[[str, str, bytes], BenchmarkLookup]

_COMMIT = 40  # a full commit SHA's length: a revision of that shape is a commit, not a branch


class BenchmarkNotCached(HubError):
    """Offline, and the cache does not hold this benchmark at this revision."""

    def __init__(self, dataset_id: str, revision: str | None, cache_dir: str) -> None:
        at = f" at revision {revision}" if revision else ""
        super().__init__(f"{dataset_id}{at} is not in the Hugging Face cache ({cache_dir})")
        self.dataset_id = dataset_id
        self.revision = revision
        self.cache_dir = cache_dir


def cache_dir() -> str:
    """The cache `huggingface_hub` reads and writes (`HF_HUB_CACHE`, `HF_HOME`, the default)."""
    return str(constants.HF_HUB_CACHE)


class CachedBenchmarkSource:
    """`BenchmarkSource` over the Hub and its local cache (one per command run)."""

    def __init__(self, client: HubClient, api: Any, parse: ParseEvalYaml, *, offline: bool) -> None:
        self._client = client
        self._api = api  # HfApi: its endpoint and token go to the downloads
        self._parse = parse
        self.offline = offline or constants.is_offline_mode()
        self._memo: dict[tuple[str, str | None], BenchmarkLookup] = {}

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        key = (dataset_id.lower(), revision)
        if key not in self._memo:
            self._memo[key] = (
                self._from_cache(dataset_id, revision)
                if self.offline
                else self._from_hub(dataset_id, revision)
            )
        return self._memo[key]

    def _from_hub(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        resolved = resolve_revision(self._client, dataset_id, revision)
        if isinstance(resolved, BenchmarkNotFound):
            return resolved
        repo_id, sha = resolved.repo_id, resolved.sha
        # The branch or tag an offline run will look up (None: a commit, which names itself).
        ref = "main" if revision is None else None if len(revision) == _COMMIT else revision
        cached = try_to_load_from_cache(repo_id, EVAL_YAML, revision=sha, repo_type="dataset")
        if isinstance(cached, str):
            if ref is not None and self._ref_commit(repo_id, ref) != sha:
                self._download(repo_id, ref)  # 1 HEAD: the ref now names this commit
            return self._parsed(repo_id, cached)
        if cached is not None:  # the Hub said, at this commit, that there is no eval.yaml
            return BenchmarkNotFound(repo_id, "no eval.yaml")
        try:
            size = self._download(repo_id, ref or sha, dry_run=True)
            if size is not None and size > DEFAULT_MAX_FILE_BYTES:
                return BenchmarkNotFound(
                    repo_id,
                    f"eval.yaml is {size} bytes, over the {DEFAULT_MAX_FILE_BYTES} a benchmark"
                    " file may have",
                )
            path = self._download(repo_id, ref or sha)
        except HubPermanentError as error:
            if error.not_found:
                return BenchmarkNotFound(repo_id, "no eval.yaml")
            return BenchmarkNotFound(repo_id, f"eval.yaml unreadable: {error}")
        assert isinstance(path, str)
        return self._parsed(repo_id, path)

    def _download(self, repo_id: str, revision: str, *, dry_run: bool = False) -> Any:
        """`hf_hub_download` of the eval.yaml (`dry_run`: only its size); Hub errors mapped."""
        with hub_errors():
            try:
                found = hf_hub_download(
                    repo_id,
                    EVAL_YAML,
                    repo_type="dataset",
                    revision=revision,
                    endpoint=self._api.endpoint,
                    token=self._api.token,
                    dry_run=dry_run,
                )
                return found if isinstance(found, str) else found.file_size
            except LocalEntryNotFoundError as error:  # the Hub could not be reached
                raise HubTransientError(f"Hub unreachable: {error}") from error

    def _ref_commit(self, repo_id: str, ref: str) -> str | None:
        found = try_to_load_from_cache(repo_id, EVAL_YAML, revision=ref, repo_type="dataset")
        return Path(found).parent.name if isinstance(found, str) else None

    def _from_cache(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        repo_id = _cached_id(dataset_id)
        if repo_id is not None:
            found = try_to_load_from_cache(
                repo_id, EVAL_YAML, revision=revision or "main", repo_type="dataset"
            )
            if isinstance(found, str):
                return self._parsed(repo_id, found)
            if found is not None:
                return BenchmarkNotFound(repo_id, "no eval.yaml (as the Hub said when last read)")
        raise BenchmarkNotCached(dataset_id, revision, cache_dir())

    def _parsed(self, repo_id: str, path: str) -> BenchmarkLookup:
        """The cached file at `.../snapshots/<commit>/eval.yaml`, parsed at that commit."""
        with open(path, "rb") as handle:
            content = handle.read(DEFAULT_MAX_FILE_BYTES + 1)
        return self._parse(repo_id, Path(path).parent.name, content)


def _cached_id(dataset_id: str) -> str | None:
    """The id as the cache spells it, matched case-insensitively as the Hub matches ids."""
    if dataset_id.count("/") != 1:
        return None
    wanted = repo_folder_name(repo_id=dataset_id, repo_type="dataset")
    if os.path.isdir(os.path.join(cache_dir(), wanted)):
        return dataset_id
    try:
        names = os.listdir(cache_dir())
    except OSError:
        return None
    for name in names:
        if name.lower() == wanted.lower():
            owner, _, repo = name.removeprefix("datasets--").partition(constants.REPO_ID_SEPARATOR)
            return f"{owner}/{repo}"
    return None
