"""The one seam between the bot and the Hub: the calls the pipeline makes, and nothing else.

`HubClient` is the Protocol the workers code against; `HfHubClient` implements it over the real
`huggingface_hub` client (2.x, HTTP through `httpx2`). Every exception leaves this module as a
`HubTransientError` or a `HubPermanentError` (`bot.hub.errors`).

Call budget for one PR event (Hub HTTP requests; the benchmark target is at most 4 for a PR
with one results file whose benchmark is cached):

- PR status, is-PR, head SHA, changed and removed files, comments with author flags:
  `GET /api/models/{repo}/discussions/{n}?diff=1`: 1.
- each results file at the head SHA: `GET /{repo}/resolve/{sha}/{path}` (resolver bucket,
  cheaper than `/api`): 1 per file.
- each benchmark, canonical id and SHA of the requested revision:
  `GET /api/datasets/{id}/revision/{rev}`: 1 per benchmark.
- eval.yaml, only on a cache miss for (dataset, SHA):
  `GET /datasets/{id}/resolve/{sha}/eval.yaml`: 0 when cached.
- post the report, or edit the existing one: `POST …/discussions/{n}/comment[/{id}/edit]`: 1.

So a one-file PR costs 1 + 1 + 1 + 1 = 4 once its benchmark is cached. Extra calls happen only
in rare cases: `model_info(refs/pr/N)` when the details list no commit (an empty draft PR), two
tree listings when the Hub sends no diff, and the token provenance lookups of
`bot.hub.provenance` (none for a single-commit PR).

Why these choices:
- The head SHA is the `oid` of the last `commit` event of the details, so the files are read at
  exactly the commit the diff and the comment list describe, with no second call; a push landing
  mid-run changes neither. Files are read by SHA, never by `refs/pr/N`.
- Files come through one plain GET on the resolve URL, not `hf_hub_download`, which would add a
  HEAD and write a disk cache for a file the bot reads once. The body is capped (the validator
  rejects files over 1 MiB; reading one byte more is enough for it to say so).
- Comment author flags (`isOwner`, `isOrgMember`) are only in the raw events
  (`DiscussionEvent._event`), which the details call already returns (hub-api.md §3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from huggingface_hub import get_session, hf_hub_url, hf_raise_for_status
from huggingface_hub.errors import RemoteEntryNotFoundError
from huggingface_hub.utils._headers import build_hf_headers

from bot.hub.diff import Change, DiffFile, parse_diff
from bot.hub.errors import HubError, HubPermanentError, to_hub_error
from bot.hub.paths import RESULTS_DIR, PathKind, classify_path

#: The validator's file size cap (DESIGN.md, edge cases); `read_file` reads one byte past it.
DEFAULT_MAX_FILE_BYTES = 1024 * 1024

T = TypeVar("T")


class PrStatus(StrEnum):
    OPEN = "open"
    DRAFT = "draft"
    MERGED = "merged"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class PrCommit:
    """A `commit` event of the PR timeline: `created_at` is when the Hub recorded the push."""

    oid: str
    created_at: datetime
    parents: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PrComment:
    """A comment of the PR timeline, with the author flags the Hub computes for this repo."""

    id: str
    author: str
    created_at: datetime
    raw: str
    hidden: bool = False
    edited: bool = False
    is_owner: bool = False
    is_org_member: bool = False


@dataclass(frozen=True, slots=True)
class PullRequest:
    """One PR (or discussion) as read at one moment, with its files classified.

    `head_sha` is None only for a discussion (not a PR). `result_files` are the
    `.eval_results/*.yaml` files present at the head that the PR adds, changes or renames into
    place; `removed_result_files` those it deletes or renames away; `misplaced_files` paths
    under `.eval_results` the Hub will not read (`bot.hub.paths`).
    """

    repo_id: str
    num: int
    is_pull_request: bool
    status: PrStatus
    head_sha: str | None
    target_branch: str | None = None
    author: str | None = None
    commits: tuple[PrCommit, ...] = ()
    comments: tuple[PrComment, ...] = ()
    result_files: tuple[str, ...] = ()
    removed_result_files: tuple[str, ...] = ()
    misplaced_files: tuple[str, ...] = ()
    diff_files: tuple[DiffFile, ...] = field(default=(), repr=False)

    @property
    def touches_results(self) -> bool:
        return bool(self.result_files or self.removed_result_files or self.misplaced_files)

    def comment(self, comment_id: str) -> PrComment | None:
        """The comment with this id (webhooks carry only the id; ids compare case-insensitively)."""
        wanted = comment_id.lower()
        return next((c for c in self.comments if c.id.lower() == wanted), None)

    def find_bot_comment(self, bot_name: str, marker: str) -> PrComment | None:
        """The bot's own report: the latest visible comment by `bot_name` holding `marker`.

        Both conditions matter: anyone can paste the marker, and the bot writes other comments
        (help replies) without it.
        """
        for candidate in reversed(self.comments):
            if candidate.author == bot_name and not candidate.hidden and marker in candidate.raw:
                return candidate
        return None

    def added_text(self, path: str) -> str | None:
        """The lines the PR adds to `path`; None when the diff does not show the file."""
        for diff_file in self.diff_files:
            if diff_file.new_path == path:
                return diff_file.added_text
        return None


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
    created_at: datetime


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
        """The file's bytes at `revision` (a SHA), at most `max_bytes + 1` of them (1 call)."""
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

    def edit_comment(self, repo_id: str, num: int, comment_id: str, body: str) -> None:
        """Replace a comment's content (1 call)."""
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


def _flag(author: Mapping[str, Any] | None, name: str) -> bool:
    return bool(author.get(name)) if isinstance(author, Mapping) else False


def _events_of(details: Any) -> tuple[list[PrCommit], list[PrComment]]:
    commits: list[PrCommit] = []
    comments: list[PrComment] = []
    for event in details.events:
        raw: Mapping[str, Any] = getattr(event, "_event", {}) or {}
        data = raw.get("data") or {}
        author = raw.get("author")
        if event.type == "commit":
            parents = data.get("parents") or ()
            commits.append(
                PrCommit(
                    oid=str(data.get("oid", getattr(event, "oid", ""))),
                    created_at=event.created_at,
                    parents=tuple(str(p) for p in parents if isinstance(p, str)),
                )
            )
        elif event.type == "comment":
            comments.append(
                PrComment(
                    id=str(event.id),
                    author=str(event.author),
                    created_at=event.created_at,
                    raw=str(getattr(event, "content", "") or ""),
                    hidden=bool(getattr(event, "hidden", False)),
                    edited=bool(getattr(event, "edited", False)),
                    is_owner=_flag(author, "isOwner"),
                    is_org_member=_flag(author, "isOrgMember"),
                )
            )
    return commits, comments


def classify_changes(
    files: Sequence[DiffFile],
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(result files present at head, result files removed, misplaced paths), each sorted.

    A rename counts twice: its old path is removed, its new path is present (a rename out of
    `.eval_results` removes a result; a rename into it adds one).
    """
    present: set[str] = set()
    removed: set[str] = set()
    misplaced: set[str] = set()
    for diff_file in files:
        if diff_file.new_path is not None:
            kind = classify_path(diff_file.new_path)
            if kind is PathKind.RESULTS:
                present.add(diff_file.new_path)
            elif kind is PathKind.MISPLACED:
                misplaced.add(diff_file.new_path)
        if (
            diff_file.old_path is not None
            and diff_file.change in (Change.REMOVED, Change.RENAMED)
            and classify_path(diff_file.old_path) is PathKind.RESULTS
        ):
            removed.add(diff_file.old_path)
    return tuple(sorted(present)), tuple(sorted(removed - present)), tuple(sorted(misplaced))


class HfHubClient:
    """`HubClient` over `huggingface_hub.HfApi` (endpoint and token come from the `HfApi`)."""

    def __init__(self, api: Any) -> None:
        # `Any`: HfApi's own annotations are partial; this class is the typed face of it.
        self._api = api

    def _call(self, function: Callable[[], T]) -> T:
        with hub_errors():
            return function()

    def pull_request(self, repo_id: str, num: int) -> PullRequest:
        details = self._call(lambda: self._api.get_discussion_details(repo_id, num))
        commits, comments = _events_of(details)
        try:
            status = PrStatus(details.status)
        except ValueError:
            status = PrStatus.OPEN  # a status this code does not know yet: treat as live
        pr = PullRequest(
            repo_id=repo_id,
            num=num,
            is_pull_request=bool(details.is_pull_request),
            status=status,
            head_sha=None,
            target_branch=details.target_branch,
            author=details.author,
            commits=tuple(commits),
            comments=tuple(comments),
        )
        if not details.is_pull_request:
            return pr
        head_sha = commits[-1].oid if commits else self._ref_sha(repo_id, f"refs/pr/{num}")
        if details.diff is not None:
            diff_files = parse_diff(details.diff)
        else:
            diff_files = self._tree_changes(repo_id, commits, details.target_branch, head_sha)
        present, removed, misplaced = classify_changes(diff_files)
        return replace(
            pr,
            head_sha=head_sha,
            result_files=present,
            removed_result_files=removed,
            misplaced_files=misplaced,
            diff_files=tuple(diff_files),
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
        before = self._results_tree(repo_id, base)
        after = self._results_tree(repo_id, head_sha)
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

    def _results_tree(self, repo_id: str, revision: str) -> dict[str, str]:
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
        if classify_path(path) is PathKind.MISPLACED and ".." in path.split("/"):
            raise HubPermanentError(f"refusing to read a path with '..': {path!r}")
        url = hf_hub_url(
            repo_id,
            path,
            repo_type=None if repo_type == "model" else repo_type,
            revision=revision,
            endpoint=self._api.endpoint,
        )
        headers = build_hf_headers(
            token=self._api.token,
            library_name=self._api.library_name,
            library_version=self._api.library_version,
            user_agent=self._api.user_agent,
            headers=self._api.headers,
        )

        def fetch() -> bytes:
            with get_session().stream("GET", url, headers=headers) as response:
                if response.is_error:
                    response.read()
                    hf_raise_for_status(response)
                chunks = bytearray()
                for chunk in response.iter_bytes():
                    chunks.extend(chunk)
                    if len(chunks) > max_bytes:
                        break
                return bytes(chunks[: max_bytes + 1])

        return self._call(fetch)

    def dataset_revision(self, dataset_id: str, revision: str | None) -> DatasetRevision:
        info = self._call(lambda: self._api.dataset_info(dataset_id, revision=revision))
        if not info.sha:
            raise HubPermanentError(f"the Hub gave no commit for dataset {dataset_id}")
        return DatasetRevision(repo_id=str(info.id), sha=str(info.sha), tags=tuple(info.tags or ()))

    def list_commits(self, repo_id: str, revision: str) -> list[RepoCommit]:
        commits = self._call(lambda: list(self._api.list_repo_commits(repo_id, revision=revision)))
        return [RepoCommit(oid=c.commit_id, created_at=c.created_at) for c in commits]

    def post_comment(self, repo_id: str, num: int, body: str) -> str:
        posted = self._call(lambda: self._api.comment_discussion(repo_id, num, body))
        return str(posted.id)

    def edit_comment(self, repo_id: str, num: int, comment_id: str, body: str) -> None:
        self._call(lambda: self._api.edit_discussion_comment(repo_id, num, comment_id, body))
