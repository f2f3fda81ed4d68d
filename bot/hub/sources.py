"""What the checks look up on the Hub beyond the PR itself: the benchmarks its entries name and
when a token was first recorded.

**Benchmarks** (`HubBenchmarkSource`, the core's `BenchmarkSource` for workers), cached by
(dataset, commit SHA).
Per lookup: one `dataset_info` call resolves the requested revision to a SHA and gives the
canonical id (ids are matched case-insensitively, like the Hub). The eval.yaml is then read at
that SHA only on a cache miss: a SHA names immutable content, so a cached parse never goes
stale, and a benchmark that moves on simply gets a new key. Within one run (one source
instance) the revision check itself is memoised, so ten entries on one benchmark cost one call.

Parsing is injected (`parse`, from `bot.validation`): this module only moves bytes. Only the Hub's
"not found" (docs/hub.md#errors) for a dataset, revision or eval.yaml becomes a
`BenchmarkNotFound` the validator reports on the entry; transient errors and refusals of the
dataset lookup propagate (the worker retries the whole run, a command stops).

**A token's commit time** (`token_commit_time`): freshness is judged at the time the Hub first
recorded the token (docs/decisions.md#tokens).
A token is judged at the Hub time of the commit that introduced it, so a re-run a week later
reaches the same verdict. The cheapest correct way to find that commit, in calls:

1. The PR's diff (already fetched with the details) tells whether the token was added by the
   PR at all: it is then on a `+` line of that file.
2. Added by a PR with one commit: that commit's `createdAt` in the PR timeline. 0 calls. This
   is the common case (a framework opens the PR with one commit).
3. Added by a PR with several commits: bisect the PR's commits for the first one whose file
   holds the token. log2(n) file reads.
4. Not added by the PR (it was on the base branch already): bisect the base history
   (`list_commits` from the PR's base, 1 call per 50 commits) the same way, using the commits'
   dates as the Hub lists them.

The timeline's `createdAt` is the time the Hub recorded the push: a `git push` cannot set it,
unlike a git committer date. Step 4 must fall back on the listed commit dates; they are the
Hub's own for commits made through its API (the way frameworks publish).

Bisecting assumes that once introduced, the token stays until the head (true unless a PR
removes it and adds it back; then a later introduction is found, which only makes the check
stricter). Whitespace is ignored when looking for the token, so a YAML folded scalar still
matches.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime

from bot.hub.client import HubClient, RepoCommit
from bot.hub.errors import HubPermanentError
from bot.hub.pulls import PullRequest
from bot.validation.model import BenchmarkLookup, BenchmarkNotFound

EVAL_YAML = "eval.yaml"

#: (canonical dataset id, eval.yaml bytes, commit SHA) -> the parsed benchmark or why not.
ParseEvalYaml = Callable[[str, bytes, str], BenchmarkLookup]


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
            if not error.not_found:
                raise  # a refusal (a rejected token, a bad endpoint) says nothing of the dataset
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
