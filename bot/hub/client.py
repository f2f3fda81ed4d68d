"""The one seam between the bot and the Hub: `HubClient`, the Protocol the workers code against,
and `HfHubClient` over `huggingface_hub`, each call bounded in time and size, every exception
leaving as a `bot.hub.errors` kind (calls and their budget: docs/hub.md, "Calls")."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, Protocol, TypeVar

from huggingface_hub import get_session, hf_hub_url, hf_raise_for_status
from huggingface_hub.errors import RemoteEntryNotFoundError
from huggingface_hub.utils._headers import build_hf_headers

from bot.hub.capped_read import read_capped
from bot.hub.errors import HubError, HubPermanentError, to_hub_error
from bot.hub.pulls import (
    RESULTS_DIR,
    Change,
    DiffFile,
    PrCommit,
    PullRequest,
    parse_pull_request,
    with_files,
)

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "DatasetRevision",
    "HfHubClient",
    "HubClient",
    "LeaderboardEntry",
    "OpenPullRequest",
    "OpenPullRequests",
    "RepoCommit",
    "hub_errors",
]

#: The validator's file size cap (docs/decisions.md#yaml); `read_file` reads one byte past it.
DEFAULT_MAX_FILE_BYTES = 1024 * 1024

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class DatasetRevision:
    """A dataset at a revision: its canonical id (the Hub's spelling) and the commit SHA."""

    repo_id: str
    sha: str
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RepoCommit:
    """A commit of a branch's history, newest first as the Hub lists them."""

    oid: str
    created_at: datetime | None


@dataclass(frozen=True, slots=True)
class OpenPullRequest:
    """An open PR (drafts included) and the commit its `refs/pr/N` points at (None: no ref)."""

    num: int
    head_sha: str | None


@dataclass(frozen=True, slots=True)
class OpenPullRequests:
    """The open PRs of a repo, lowest number first, and the Hub calls the listing cost."""

    prs: tuple[OpenPullRequest, ...]
    hub_calls: int


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """One ranked result of a benchmark's leaderboard: which model and file it comes from."""

    model_id: str
    filename: str
    value: object
    pull_request: int | None = None
    notes: str | None = None


#: Discussions per page of `GET …/discussions` (huggingface_hub pages by 50).
DISCUSSIONS_PAGE = 50


#: Who may see a repo on the Hub: everyone (`public`), only those it was shared with
#: (`private`), or everyone once granted access (`gated`). Pages show only `public` repos.
Visibility = Literal["public", "private", "gated"]


class HubClient(Protocol):
    """Exactly the Hub calls the pipeline makes. Each raises only `HubError` subclasses."""

    def pull_request(self, repo_id: str, num: int) -> PullRequest:
        """The PR with head SHA, files and comments (1 call; see the module's budget)."""
        ...

    def read_file(
        self,
        repo_id: str,
        path: str,
        revision: str,
        *,
        repo_type: str = "model",
        max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> bytes:
        """The file's bytes at `revision` (a SHA), at most `max_bytes + 1` of them (1 call; an
        LFS file 2, the second to the CDN). `HubFileUnreadable` (`HubFileTooLarge`) when the
        Hub's answer for this one file cannot be followed (or declares it over `max_bytes`)."""
        ...

    def dataset_revision(self, dataset_id: str, revision: str | None) -> DatasetRevision:
        """Canonical id and SHA of a dataset at `revision` (None: default branch) (1 call)."""
        ...

    def list_commits(self, repo_id: str, revision: str) -> list[RepoCommit]:
        """The history reachable from `revision`, newest first (1 call per 50 commits)."""
        ...

    def post_comment(self, repo_id: str, num: int, body: str) -> str:
        """Post a new comment; returns its id (1 call)."""
        ...

    def open_pull_requests(self, repo_id: str, *, limit: int) -> OpenPullRequests:
        """At most `limit` open PRs of a model repo with their heads (1 call per 50 open PRs,
        plus 1 for the refs)."""
        ...

    def edit_comment(self, repo_id: str, num: int, comment_id: str, body: str) -> None:
        """Replace a comment's content (1 call)."""
        ...

    def repo_visibility(self, repo_id: str) -> Visibility:
        """Whether a model repo is public, private or gated (1 call)."""
        ...


@contextmanager
def hub_errors() -> Iterator[None]:
    """Turn any Hub or transport exception raised inside into a `HubError`."""
    try:
        yield
    except HubError:
        raise
    except Exception as exc:
        mapped = to_hub_error(exc)
        if mapped is None:
            raise
        raise mapped from exc


class HfHubClient:
    """`HubClient` over `huggingface_hub.HfApi` (endpoint and token come from the `HfApi`)."""

    def __init__(self, api: Any) -> None:
        # `Any`: HfApi's own annotations are partial; this class is the typed face of it.
        self._api = api

    def _call(self, function: Callable[[], T]) -> T:
        with hub_errors():
            return function()

    def _discussion(self, kind: str, repo_id: str, num: int) -> PullRequest:
        """`GET /api/{kind}/{repo}/discussions/{num}?diff=1`, parsed leniently (1 call)."""
        url = f"{self._api.endpoint}/api/{kind}/{repo_id}/discussions/{num}"

        def fetch() -> object:
            response = get_session().get(url, params={"diff": "1"}, headers=self.request_headers())
            hf_raise_for_status(response)
            return response.json()

        details = self._call(fetch)
        try:
            return parse_pull_request(repo_id, num, details)
        except ValueError as error:
            raise HubPermanentError(f"unreadable discussion details: {error}") from error

    def pull_request(self, repo_id: str, num: int) -> PullRequest:
        pr = self._discussion("models", repo_id, num)
        if not pr.is_pull_request:
            return pr
        if pr.head_sha is None:
            pr = replace(pr, head_sha=self._ref_sha(repo_id, f"refs/pr/{num}"))
        if not pr.has_diff:
            assert pr.head_sha is not None
            pr = with_files(
                pr, self._tree_changes(repo_id, pr.commits, pr.target_branch, pr.head_sha)
            )
        return pr

    def request_headers(self) -> dict[str, str]:
        """The headers of the client's own requests (token, user agent), for a raw read."""
        return build_hf_headers(
            token=self._api.token,
            library_name=self._api.library_name,
            library_version=self._api.library_version,
            user_agent=self._api.user_agent,
            headers=self._api.headers,
        )

    def _ref_sha(self, repo_id: str, revision: str) -> str:
        info = self._call(lambda: self._api.model_info(repo_id, revision=revision))
        if not info.sha:
            raise HubPermanentError(f"the Hub gave no commit for {repo_id}@{revision}")
        return str(info.sha)

    def _tree_changes(
        self, repo_id: str, commits: Sequence[PrCommit], target: str | None, head_sha: str
    ) -> list[DiffFile]:
        """Fallback when the details carry no diff: compare `.eval_results` at base and head.

        The base is the parent of the PR's first commit when the timeline names it (so changes
        merged into main since do not count as the PR's), else the target branch.
        """
        base = commits[0].parents[0] if commits and commits[0].parents else target or "main"
        before = self.results_tree(repo_id, base)
        after = self.results_tree(repo_id, head_sha)
        files: list[DiffFile] = []
        for path, oid in sorted(after.items()):
            if path not in before:
                files.append(DiffFile(None, path, Change.ADDED))
            elif before[path] != oid:
                files.append(DiffFile(path, path, Change.MODIFIED))
        files.extend(
            DiffFile(path, None, Change.REMOVED) for path in sorted(before.keys() - after.keys())
        )
        return files

    def results_tree(self, repo_id: str, revision: str) -> dict[str, str]:
        """The `.eval_results/` files at `revision` with their git blob ids (1 call)."""

        def listing() -> dict[str, str]:
            try:
                entries = list(
                    self._api.list_repo_tree(
                        repo_id, path_in_repo=RESULTS_DIR, revision=revision, recursive=True
                    )
                )
            except RemoteEntryNotFoundError:
                return {}  # no .eval_results folder at this revision
            return {
                e.path: str(getattr(e, "blob_id", "")) for e in entries if hasattr(e, "blob_id")
            }

        return self._call(listing)

    def read_file(
        self,
        repo_id: str,
        path: str,
        revision: str,
        *,
        repo_type: str = "model",
        max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> bytes:
        if any(segment in ("", ".", "..") for segment in path.split("/")):
            raise HubPermanentError(
                f"refusing to read a path with an empty, . or .. part: {path!r}"
            )
        url = hf_hub_url(
            repo_id,
            path,
            repo_type=None if repo_type == "model" else repo_type,
            revision=revision,
            endpoint=self._api.endpoint,
        )
        headers = self.request_headers()
        return self._call(lambda: read_capped(get_session(), url, headers, max_bytes))

    def repo_visibility(self, repo_id: str) -> Visibility:
        """`private` unless the Hub says plainly that the repo is not: an answer without the
        field is read as private (what is unknown is not shown)."""
        info = self._call(lambda: self._api.model_info(repo_id))
        if getattr(info, "private", None) is not False:
            return "private"
        return "gated" if getattr(info, "gated", False) else "public"

    def dataset_revision(self, dataset_id: str, revision: str | None) -> DatasetRevision:
        info = self._call(lambda: self._api.dataset_info(dataset_id, revision=revision))
        if not info.sha:
            raise HubPermanentError(f"the Hub gave no commit for dataset {dataset_id}")
        return DatasetRevision(repo_id=str(info.id), sha=str(info.sha), tags=tuple(info.tags or ()))

    def list_commits(self, repo_id: str, revision: str) -> list[RepoCommit]:
        commits = self._call(lambda: list(self._api.list_repo_commits(repo_id, revision=revision)))
        return [RepoCommit(oid=c.commit_id, created_at=c.created_at) for c in commits]

    def open_pull_requests(self, repo_id: str, *, limit: int) -> OpenPullRequests:
        def listing() -> tuple[list[int], int]:
            nums: list[int] = []
            for discussion in self._api.get_repo_discussions(
                repo_id, discussion_type="pull_request", discussion_status="open"
            ):
                if discussion.is_pull_request and discussion.status in ("open", "draft"):
                    nums.append(int(discussion.num))
                if len(nums) >= limit:
                    break
            # The client pages lazily, 50 a page; an empty listing still took one call.
            return nums, max(1, -(-len(nums) // DISCUSSIONS_PAGE))

        nums, calls = self._call(listing)
        if not nums:
            return OpenPullRequests((), calls)
        refs = self._call(lambda: self._api.list_repo_refs(repo_id, include_pull_requests=True))
        heads = {
            ref.ref: str(ref.target_commit)
            for ref in (refs.pull_requests or ())
            if ref.target_commit
        }
        prs = tuple(OpenPullRequest(num, heads.get(f"refs/pr/{num}")) for num in sorted(set(nums)))
        return OpenPullRequests(prs, calls + 1)

    def post_comment(self, repo_id: str, num: int, body: str, *, repo_type: str = "model") -> str:
        posted = self._call(
            lambda: self._api.comment_discussion(repo_id, num, body, repo_type=repo_type)
        )
        return str(posted.id)

    def edit_comment(
        self, repo_id: str, num: int, comment_id: str, body: str, *, repo_type: str = "model"
    ) -> None:
        self._call(
            lambda: self._api.edit_discussion_comment(
                repo_id, num, comment_id, body, repo_type=repo_type
            )
        )

    def dataset_pull_request(self, repo_id: str, num: int) -> PullRequest:
        """A PR on a dataset repo (a benchmark's `eval.yaml`): 1 call, 2 for an empty draft."""
        pr = self._discussion("datasets", repo_id, num)
        if pr.is_pull_request and pr.head_sha is None:
            info = self._call(lambda: self._api.dataset_info(repo_id, revision=f"refs/pr/{num}"))
            if not info.sha:
                raise HubPermanentError(f"the Hub gave no commit for {repo_id}@refs/pr/{num}")
            pr = replace(pr, head_sha=str(info.sha))
        return pr

    def leaderboard(self, dataset_id: str) -> list[LeaderboardEntry]:
        """Every result the Hub ranks on a benchmark, derivative models included (1 call)."""
        rows = self._call(
            lambda: self._api.get_dataset_leaderboard(dataset_id, base_model_only=False)
        )
        return [
            LeaderboardEntry(
                model_id=str(row.model_id),
                filename=str(row.filename),
                value=row.value,
                pull_request=row.pull_request,
                notes=row.notes,
            )
            for row in rows
        ]
