"""What the checks look up on the Hub beyond the PR itself: the benchmarks its entries name,
cached by commit, and the Hub time of the commit that introduced a token (docs/hub.md,
"Benchmarks", "Token time")."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime

from bot.hub.client import DatasetRevision, HubClient, RepoCommit
from bot.hub.errors import HubPermanentError
from bot.hub.pulls import PullRequest
from bot.validation.model import BenchmarkLookup, BenchmarkNotFound

EVAL_YAML = "eval.yaml"

#: (canonical dataset id, eval.yaml bytes, commit SHA) -> the parsed benchmark or why not.
ParseEvalYaml = Callable[[str, bytes, str], BenchmarkLookup]


def resolve_revision(
    client: HubClient, dataset_id: str, revision: str | None
) -> DatasetRevision | BenchmarkNotFound:
    """The dataset's canonical id and commit at `revision`, or `BenchmarkNotFound` when the
    Hub's own answer is that the dataset or the revision does not exist (1 call). Any other
    refusal or failure is raised: it says nothing of the dataset."""
    try:
        return client.dataset_revision(dataset_id, revision)
    except HubPermanentError as error:
        if not error.not_found:
            raise
        if error.code == "RevisionNotFound":
            return BenchmarkNotFound(dataset_id, f"revision {revision!r} not found")
        return BenchmarkNotFound(dataset_id, "dataset not found on the Hub")


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
        resolved = resolve_revision(self._client, dataset_id, revision)
        if isinstance(resolved, BenchmarkNotFound):
            return resolved
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
            result = self._parse(resolved.repo_id, content, resolved.sha)
        self._cache.put(key, result)
        return result


def _squeeze(text: str) -> str:
    return "".join(text.split())


def _first_holding(candidates: Sequence[RepoCommit], holds: Callable[[str], bool]) -> int | None:
    """Index of the oldest candidate that holds the token, given the newest one does."""
    if not candidates or not holds(candidates[-1].oid):
        return None
    low, high = 0, len(candidates) - 1  # candidates[high] holds it
    while low < high:
        middle = (low + high) // 2
        if holds(candidates[middle].oid):
            high = middle
        else:
            low = middle + 1
    return high


def token_commit_time(client: HubClient, pr: PullRequest, path: str, token: str) -> datetime | None:
    """The Hub time of the commit that introduced `token` into `path`; None if none is found."""
    wanted = _squeeze(token)
    if not wanted or not pr.commits:
        return None

    def holds(oid: str) -> bool:
        try:
            content = client.read_file(pr.repo_id, path, oid)
        except HubPermanentError as error:
            if error.not_found:
                return False  # the file did not exist yet at that commit
            raise
        return wanted in _squeeze(content.decode("utf-8", errors="replace"))

    added = pr.added_text(path)
    if added is None or wanted in _squeeze(added):
        pr_commits = [RepoCommit(c.oid, c.created_at) for c in pr.commits]
        if len(pr_commits) == 1:
            return pr_commits[0].created_at
        index = _first_holding(pr_commits, holds)
        return None if index is None else pr_commits[index].created_at

    first = pr.commits[0]
    base = first.parents[0] if first.parents else None
    pr_oids = {c.oid for c in pr.commits}
    history = [
        c for c in client.list_commits(pr.repo_id, base or first.oid) if c.oid not in pr_oids
    ]
    oldest_first = list(reversed(history))
    index = _first_holding(oldest_first, holds)
    return None if index is None else oldest_first[index].created_at
