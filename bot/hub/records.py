"""Every Eval Ever records that results link as their source, read through the Hub seam: merged
records of public datastores only, cached by commit, bounded in requests per run; a failed
read is never a finding (docs/hub.md, "Source records")."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.eee import source_reasons
from bot.eee.links import RecordLink
from bot.eee.records import MAX_RECORD_BYTES
from bot.eee.sourcecheck import RecordMissing, RecordNotMerged, RecordNotPublic, RecordUnreadable
from bot.hub.budget import Allowance, current
from bot.hub.datastore import PATHS_INFO_BATCH, MainCommit, git_blob_id
from bot.hub.errors import HubError, HubPermanentError
from bot.validation.model import is_sha40

#: Hub requests a run may spend on source records (datastores' main commits, revision checks,
#: content ids and record reads): a PR of 100 entries that each link another record stays
#: within it.
SOURCE_CALLS_PER_RUN = 200
#: How long a branch or tag's commit, and a datastore's main commit and visibility, are taken
#: as known (seconds).
REVISION_TTL_S = 300
#: Hub requests one file read may cost: the resolve and, for a file in LFS, the CDN hop.
READ_REQUESTS = 2
#: The branch that holds what a datastore's maintainers merged (the Hub's default branch).
MAIN = "main"
#: A path main does not hold, as the cache keeps it.
ABSENT = ""


class RecordHub(Protocol):
    """The Hub reads of a datastore the reader makes (`bot.hub.datastore.HubDatastore`)."""

    def main(self, repo_id: str) -> MainCommit: ...

    def revision_sha(self, repo_id: str, revision: str) -> str: ...

    def blob_ids(self, repo_id: str, revision: str, paths: Sequence[str]) -> dict[str, str]: ...

    def read(self, repo_id: str, path: str, revision: str) -> bytes: ...


@dataclass(frozen=True, slots=True)
class DatastoreMain:
    """A datastore's main commit and who may see the datastore, as the Hub said lately
    (any word but `public` reads as not public)."""

    sha: str
    visibility: str


class RecordCache(Protocol):
    """Records by datastore, commit and path; branches' commits and datastores' main for a
    while; main's content ids by main's commit."""

    def record(self, repo_id: str, commit: str, path: str) -> bytes | None: ...

    def keep_record(self, repo_id: str, commit: str, path: str, content: bytes) -> None: ...

    def commit(self, repo_id: str, revision: str) -> str | None: ...

    def keep_commit(self, repo_id: str, revision: str, commit: str, ttl_s: int) -> None: ...

    def main(self, repo_id: str) -> tuple[str, str] | None:
        """Main's commit and the datastore's visibility, while they are kept."""
        ...

    def keep_main(self, repo_id: str, sha: str, visibility: str, ttl_s: int) -> None: ...

    def main_ids(self, repo_id: str, main_sha: str, paths: Iterable[str]) -> dict[str, str]: ...

    def keep_main_ids(self, repo_id: str, main_sha: str, ids: Mapping[str, str]) -> None: ...


class MemoryRecordCache:
    """A `RecordCache` for one process (`evalbot validate` online)."""

    def __init__(self) -> None:
        self._records: dict[tuple[str, str, str], bytes] = {}
        self._commits: dict[tuple[str, str], str] = {}
        self._mains: dict[str, tuple[str, str]] = {}
        self._ids: dict[tuple[str, str, str], str] = {}

    def record(self, repo_id: str, commit: str, path: str) -> bytes | None:
        return self._records.get((repo_id.lower(), commit, path))

    def keep_record(self, repo_id: str, commit: str, path: str, content: bytes) -> None:
        self._records[(repo_id.lower(), commit, path)] = content

    def commit(self, repo_id: str, revision: str) -> str | None:
        return self._commits.get((repo_id.lower(), revision))

    def keep_commit(self, repo_id: str, revision: str, commit: str, ttl_s: int) -> None:
        self._commits[(repo_id.lower(), revision)] = commit

    def main(self, repo_id: str) -> tuple[str, str] | None:
        return self._mains.get(repo_id.lower())

    def keep_main(self, repo_id: str, sha: str, visibility: str, ttl_s: int) -> None:
        self._mains[repo_id.lower()] = (sha, visibility)

    def main_ids(self, repo_id: str, main_sha: str, paths: Iterable[str]) -> dict[str, str]:
        found = {p: self._ids.get((repo_id.lower(), main_sha, p)) for p in paths}
        return {p: v for p, v in found.items() if v is not None}

    def keep_main_ids(self, repo_id: str, main_sha: str, ids: Mapping[str, str]) -> None:
        for path, content_id in ids.items():
            self._ids[(repo_id.lower(), main_sha, path)] = content_id


def content_ids(content: bytes) -> frozenset[str]:
    """The ids the Hub may give `content` in a tree or `paths-info`: its git blob id, or the
    sha256 of its LFS object."""
    return frozenset({git_blob_id(content), hashlib.sha256(content).hexdigest()})


class HubRecordReader:
    """`RecordReader` over the Hub: public datastores only, merged records only, cached,
    size-capped, within `limit` requests of the run's count from the first one it makes."""

    def __init__(
        self, hub: RecordHub, cache: RecordCache, *, limit: int = SOURCE_CALLS_PER_RUN
    ) -> None:
        self.hub = hub
        self.cache = cache
        self.limit = limit
        self._budget: Allowance | None = None
        self._mains: dict[str, DatastoreMain | Exception] = {}
        #: Datastores whose main this reader asked the Hub for (not taken from the cache).
        self._asked: set[str] = set()

    @property
    def spent(self) -> int:
        """Hub requests this reader's reads made so far."""
        return self._budget.spent if self._budget is not None else 0

    def prepare(self, links: Sequence[RecordLink]) -> None:
        """Ask main for the content ids of every path linked at another revision, together
        (1 call per `PATHS_INFO_BATCH` paths). A failure here is left for `read` to name."""
        wanted: dict[str, tuple[str, set[str]]] = {}
        for link in links:
            if link.revision != MAIN:
                wanted.setdefault(link.repo_id.lower(), (link.repo_id, set()))[1].add(link.path)
        for repo_id, paths in wanted.values():
            try:
                main = self._main(repo_id)
                self._main_ids(repo_id, main.sha, sorted(paths))
            except (RecordUnreadable, RecordNotPublic):
                continue

    def read(self, link: RecordLink) -> bytes:
        main = self._main(link.repo_id)
        commit = main.sha if link.revision == MAIN else self._commit(link)
        content = self._read_at(link, commit)
        if commit != main.sha and not self._on_main(link, main.sha, content):
            if link.repo_id.lower() not in self._asked:  # main as kept may be minutes old
                main = self._main(link.repo_id, ask=True)
            if commit != main.sha and not self._on_main(link, main.sha, content):
                raise RecordNotMerged(
                    source_reasons.SOURCE_NOT_MERGED.format(
                        revision=link.short_revision, datastore=link.repo_id
                    )
                )
        return content

    def _on_main(self, link: RecordLink, main_sha: str, content: bytes) -> bool:
        """Whether main holds `content` at the link's path."""
        held = self._main_ids(link.repo_id, main_sha, [link.path]).get(link.path)
        return bool(held) and held in content_ids(content)

    def _main(self, repo_id: str, *, ask: bool = False) -> DatastoreMain:
        """The datastore's main commit, when it is public (`RecordNotPublic` otherwise);
        `ask`: from the Hub, whatever is kept."""
        key = repo_id.lower()
        known = None if ask else self._mains.get(key)
        if known is None and not ask:
            kept = self.cache.main(repo_id)
            known = DatastoreMain(*kept) if kept is not None else None
        if known is None:
            self._asked.add(key)
            try:
                self._spend(1)
                answer = self.hub.main(repo_id)
                known = DatastoreMain(answer.sha, answer.visibility)
                self.cache.keep_main(repo_id, answer.sha, answer.visibility, REVISION_TTL_S)
            except HubPermanentError as error:
                # A datastore the Hub does not show is no public one: nothing to say of it.
                known = RecordNotPublic(str(error)) if error.not_found else _unread(error)
            except HubError as error:
                known = _unread(error)
            except RecordUnreadable as error:
                known = error
        self._mains[key] = known
        if isinstance(known, Exception):
            raise known
        if known.visibility != "public":
            raise RecordNotPublic(f"{repo_id} is {known.visibility}")
        return known

    def _main_ids(self, repo_id: str, main_sha: str, paths: Sequence[str]) -> dict[str, str]:
        found = self.cache.main_ids(repo_id, main_sha, paths)
        missing = [p for p in paths if p not in found]
        for start in range(0, len(missing), PATHS_INFO_BATCH):
            batch = missing[start : start + PATHS_INFO_BATCH]
            self._spend(1)
            try:
                ids = self.hub.blob_ids(repo_id, main_sha, batch)
            except HubError as error:
                raise _unread(error, merged=True) from error
            learned = {path: ids.get(path, ABSENT) for path in batch}
            self.cache.keep_main_ids(repo_id, main_sha, learned)
            found.update(learned)
        return found

    def _read_at(self, link: RecordLink, commit: str) -> bytes:
        cached = self.cache.record(link.repo_id, commit, link.path)
        if cached is not None:
            return cached
        self._spend(READ_REQUESTS)
        try:
            content = self.hub.read(link.repo_id, link.path, commit)
        except HubError as error:
            raise _unread(error, link) from error
        if len(content) <= MAX_RECORD_BYTES:
            self.cache.keep_record(link.repo_id, commit, link.path, content)
        return content

    def _commit(self, link: RecordLink) -> str:
        if is_sha40(link.revision):
            return link.revision
        known = self.cache.commit(link.repo_id, link.revision)
        if known is not None:
            return known
        self._spend(1)
        try:
            commit = self.hub.revision_sha(link.repo_id, link.revision)
        except HubError as error:
            raise _unread(error, link) from error
        self.cache.keep_commit(link.repo_id, link.revision, commit, REVISION_TTL_S)
        return commit

    def _spend(self, requests: int) -> None:
        if self._budget is None:
            self._budget = current().allowance(self.limit)
        if not self._budget.affords(requests):
            raise RecordUnreadable(source_reasons.SOURCE_BUDGET_SPENT.format(limit=self.limit))


def _unread(error: HubError, link: RecordLink | None = None, *, merged: bool = False) -> Exception:
    if link is not None and isinstance(error, HubPermanentError) and error.not_found:
        return RecordMissing(f"{link.repo_id}@{link.revision}: {link.path}: {error}")
    if merged:
        return RecordUnreadable(source_reasons.SOURCE_MERGE_UNKNOWN.format(error=error))
    return RecordUnreadable(source_reasons.SOURCE_UNREAD.format(error=error))
