"""Every Eval Ever records that results link as their source, read through the Hub seam, cached
by commit and bounded per run; a failed read is never a finding (docs/hub.md, "Source records")."""

from __future__ import annotations

from typing import Protocol

from bot.eee.links import RecordLink
from bot.eee.records import MAX_RECORD_BYTES
from bot.eee.sourcecheck import RecordMissing, RecordUnreadable
from bot.hub.client import HubClient
from bot.hub.errors import HubError, HubPermanentError
from bot.validation.model import is_sha40

#: Hub calls a run may spend on source records (revision checks and record reads): a PR of
#: 100 entries that each link another record stays within it.
SOURCE_CALLS_PER_RUN = 200
#: How long a branch or tag's commit is taken as known (seconds).
REVISION_TTL_S = 300


class ReadBudget:
    """Hub calls a run may still spend on one kind of read; `spent` says how many it did."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0

    def take(self) -> bool:
        """Count one call; False (nothing counted) when the budget is spent."""
        if self.spent >= self.limit:
            return False
        self.spent += 1
        return True


class RecordCache(Protocol):
    """Records by datastore, commit and path, and branches' commits for a while."""

    def record(self, repo_id: str, commit: str, path: str) -> bytes | None: ...

    def keep_record(self, repo_id: str, commit: str, path: str, content: bytes) -> None: ...

    def commit(self, repo_id: str, revision: str) -> str | None: ...

    def keep_commit(self, repo_id: str, revision: str, commit: str, ttl_s: int) -> None: ...


class MemoryRecordCache:
    """A `RecordCache` for one process (`evalbot validate` online)."""

    def __init__(self) -> None:
        self._records: dict[tuple[str, str, str], bytes] = {}
        self._commits: dict[tuple[str, str], str] = {}

    def record(self, repo_id: str, commit: str, path: str) -> bytes | None:
        return self._records.get((repo_id.lower(), commit, path))

    def keep_record(self, repo_id: str, commit: str, path: str, content: bytes) -> None:
        self._records[(repo_id.lower(), commit, path)] = content

    def commit(self, repo_id: str, revision: str) -> str | None:
        return self._commits.get((repo_id.lower(), revision))

    def keep_commit(self, repo_id: str, revision: str, commit: str, ttl_s: int) -> None:
        self._commits[(repo_id.lower(), revision)] = commit


class HubRecordReader:
    """`RecordReader` over the Hub: cached, size-capped, within `budget`."""

    def __init__(self, client: HubClient, budget: ReadBudget, cache: RecordCache) -> None:
        self.client = client
        self.budget = budget
        self.cache = cache

    def read(self, link: RecordLink) -> bytes:
        commit = self._commit(link)
        cached = self.cache.record(link.repo_id, commit, link.path)
        if cached is not None:
            return cached
        self._spend()
        try:
            content = self.client.read_file(
                link.repo_id, link.path, commit, repo_type="dataset", max_bytes=MAX_RECORD_BYTES
            )
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
        self._spend()
        try:
            commit = self.client.dataset_revision(link.repo_id, link.revision).sha
        except HubError as error:
            raise _unread(error, link) from error
        self.cache.keep_commit(link.repo_id, link.revision, commit, REVISION_TTL_S)
        return commit

    def _spend(self) -> None:
        if not self.budget.take():
            raise RecordUnreadable(
                f"this run's Hub budget for source records ({self.budget.limit} calls) is "
                "spent; the next run goes on from here"
            )


def _unread(error: HubError, link: RecordLink) -> Exception:
    if isinstance(error, HubPermanentError) and error.not_found:
        return RecordMissing(f"{link.repo_id}@{link.revision}: {link.path}: {error}")
    return RecordUnreadable(f"the Hub did not serve the record: {error}")
