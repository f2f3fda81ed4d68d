"""The Hub calls an Every Eval Ever datastore PR needs beyond a benchmark PR's: records read
capped, samples files streamed (docs/hub.md, "Every Eval Ever datastore PRs")."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from huggingface_hub import get_session, hf_hub_url

from bot.eee.records import MAX_RECORD_BYTES
from bot.hub.capped_read import stream_capped
from bot.hub.client import DISCUSSIONS_PAGE, HfHubClient, Visibility, hub_errors
from bot.hub.errors import HubPermanentError
from bot.hub.pulls import Change, DiffFile

#: A samples file: the instance scan's own cap decides; the stream stops one byte past it.
SAMPLES_MAX_BYTES = 4 * 1024 * 1024 * 1024
#: Paths asked about in one `paths-info` request (the Hub answers up to 1,000 per page).
PATHS_INFO_BATCH = 1000


@dataclass(frozen=True, slots=True)
class MainCommit:
    """Main's commit and the datastore's visibility, read together."""

    sha: str
    visibility: Visibility
    #: The repo id as the Hub spells it (ids match case-insensitively).
    repo_id: str


def git_blob_id(content: bytes) -> str:
    """The git blob id of `content` (what the Hub's tree and paths-info name a regular file
    by), so a file read whole can be found again by the id the Hub gives for it."""
    return hashlib.sha1(b"blob %d\x00" % len(content) + content, usedforsecurity=False).hexdigest()


class HubDatastore:
    """Reads of one kind of repo, a datastore, over the client's `HfApi`."""

    def __init__(self, client: HfHubClient, api: Any) -> None:
        self.client = client
        self._api = api

    def tree(self, repo_id: str, revision: str) -> dict[str, str]:
        """Every file's path -> git blob id (or LFS oid) at `revision`."""

        def listing() -> dict[str, str]:
            entries = self._api.list_repo_tree(
                repo_id, revision=revision, recursive=True, repo_type="dataset"
            )
            found: dict[str, str] = {}
            for entry in entries:
                blob = getattr(entry, "blob_id", None)
                if blob is not None:
                    lfs = getattr(entry, "lfs", None)
                    found[entry.path] = str(getattr(lfs, "sha256", None) or blob)
            return found

        with hub_errors():
            return listing()

    def main_sha(self, repo_id: str) -> str:
        return self.main(repo_id).sha

    def main(self, repo_id: str) -> MainCommit:
        """Main's commit, with the repo's visibility from the same answer (1 call)."""
        with hub_errors():
            info = self._api.dataset_info(repo_id, revision="main")
        if not info.sha:
            raise HubPermanentError(f"the Hub gave no commit for dataset {repo_id}")
        # `private` unless the Hub says plainly it is not (what is unknown is not shown).
        if getattr(info, "private", None) is not False:
            visibility: Visibility = "private"
        else:
            visibility = "gated" if getattr(info, "gated", False) else "public"
        return MainCommit(str(info.sha), visibility, str(getattr(info, "id", None) or repo_id))

    def blob_ids(self, repo_id: str, revision: str, paths: Sequence[str]) -> dict[str, str]:
        """Each of `paths` present at `revision` -> its content's id: the LFS object's sha256
        for a file in LFS, else the git blob id (1 call for at most `PATHS_INFO_BATCH`)."""
        if not paths:
            return {}
        if len(paths) > PATHS_INFO_BATCH:
            raise ValueError(f"at most {PATHS_INFO_BATCH} paths per call")
        with hub_errors():
            entries = self._api.get_paths_info(
                repo_id, list(paths), revision=revision, repo_type="dataset"
            )
        found: dict[str, str] = {}
        for entry in entries:
            blob = getattr(entry, "blob_id", None)
            if blob is None:
                continue  # a folder
            lfs = getattr(entry, "lfs", None)
            found[str(entry.path)] = str(getattr(lfs, "sha256", None) or blob)
        return found

    def read(self, repo_id: str, path: str, revision: str) -> bytes:
        return self.client.read_file(
            repo_id, path, revision, repo_type="dataset", max_bytes=MAX_RECORD_BYTES
        )

    def chunks(self, repo_id: str, path: str, revision: str) -> Iterator[bytes]:
        if any(segment in ("", ".", "..") for segment in path.split("/")):
            raise HubPermanentError(
                f"refusing to read a path with an empty, . or .. part: {path!r}"
            )
        url = hf_hub_url(
            repo_id, path, repo_type="dataset", revision=revision, endpoint=self._api.endpoint
        )
        headers = self.client.request_headers()
        with hub_errors():
            yield from stream_capped(get_session(), url, headers, SAMPLES_MAX_BYTES)

    def open_pull_requests(self, repo_id: str, *, limit: int) -> dict[int, str | None]:
        """The open (and draft) PRs, lowest numbers first, at most `limit`, with the head
        commit the repo's refs name for each (2 calls: the discussions, the refs)."""

        def listing() -> list[int]:
            nums: list[int] = []
            for discussion in self._api.get_repo_discussions(
                repo_id,
                discussion_type="pull_request",
                discussion_status="open",
                repo_type="dataset",
            ):
                if discussion.is_pull_request and discussion.status in ("open", "draft"):
                    nums.append(int(discussion.num))
                if len(nums) >= limit or len(nums) >= DISCUSSIONS_PAGE * 10:
                    break
            return sorted(nums)

        with hub_errors():
            nums = listing()
            if not nums:
                return {}
            refs = self._api.list_repo_refs(
                repo_id, repo_type="dataset", include_pull_requests=True
            )
        heads = {
            ref.ref: str(ref.target_commit)
            for ref in (refs.pull_requests or ())
            if ref.target_commit
        }
        return {num: heads.get(f"refs/pr/{num}") for num in nums}


def tree_changes(before: dict[str, str], after: dict[str, str]) -> list[DiffFile]:
    """A PR's changes from the trees at its base and head, when the Hub gave no diff."""
    files = [
        DiffFile(None, path, Change.ADDED)
        if path not in before
        else DiffFile(path, path, Change.MODIFIED)
        for path, oid in sorted(after.items())
        if before.get(path) != oid
    ]
    files.extend(DiffFile(path, None, Change.REMOVED) for path in sorted(before.keys() - after))
    return files
