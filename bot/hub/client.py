"""The one seam between the bot and the Hub: the calls the pipeline makes, each bounded in time
and in size, and nothing else.

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

Reconciliation (`workers.reconcile`) lists a watched repo's open PRs with their heads:
`GET /api/models/{repo}/discussions?type=pull_request&status=open&p={page}` (1 per 50 open
PRs) + `GET /api/models/{repo}/refs?include_prs=1` (1: every `refs/pr/N` with its commit), so
2 calls for a repo with up to 50 open PRs, whatever their number, instead of 1 per PR.

So a one-file PR costs 1 + 1 + 1 + 1 = 4 once its benchmark is cached. Extra calls happen only
in rare cases: `model_info(refs/pr/N)` when the details list no commit (an empty draft PR), two
tree listings when the Hub sends no diff, and the token provenance lookups of
`bot.hub.sources` (none for a single-commit PR).

Why these choices:
- The head SHA is the `oid` of the last `commit` event of the details, so the files are read at
  exactly the commit the diff and the comment list describe, with no second call; a push landing
  mid-run changes neither. Files are read by SHA, never by `refs/pr/N`.
- Files come through one plain GET on the resolve URL, not `hf_hub_download`, which would add a
  HEAD and write a disk cache for a file the bot reads once. The body is capped (the validator
  rejects files over 1 MiB; reading one byte more is enough for it to say so). A file stored in
  LFS costs one more request, to the CDN its resolve redirects to, and never gets the token
  (`read_capped`, below).
- The details are fetched with the very request `HfApi.get_discussion_details` sends and
  parsed leniently by `bot.hub.pulls`: the client's parser raises on shapes it does not know
  and drops the comment authors' `isOwner`/`isOrgMember` flags and ids
  (docs/hub-api.md#maintainers).

**Every request bounded in time** (`use_hub_timeout`, `EVALBOT_HUB_TIMEOUT`, whatever the call).
huggingface_hub's shared HTTP client has no timeout at all, and setting one on the client is
not enough: `dataset_info`, `model_info` and every paginated listing (`list_repo_tree`,
`list_repo_commits`, `get_repo_discussions`, through `utils._pagination.paginate`) pass
`timeout=None` on each request, and in httpx an explicit per-request `None` overrides the
client's default. A Hub that accepts a connection and never answers then held `evalbot validate`
(the pre-commit hook) for ever, and a worker until its task's soft time limit.

So the client the library builds is ours (`set_client_factory`): it keeps the library's own
request hooks and redirects, and its `send`, which every request of every call goes through,
gives a request that asks for no timeout at all the bot's. A timeout, and a connection that
fails (refused, reset, cut mid-answer), then leave as a `HubTransientError` rather than
httpx2's `TimeoutException`, `NetworkError` or `RemoteProtocolError`: the library's
`http_backoff` (under every paginated listing) retries those five times with 23 s of sleeps in
between, logging each, which would turn one bounded request into minutes (a `gate` with no
Hub took 27 s to fail); the worker has its own retry policy with backoff.

**One file's bytes** (`read_capped`, `stream_capped`): from a `resolve` URL, redirects followed
by hand, the token kept on the Hub.
A regular file answers 200. A file stored in LFS (tracked by `.gitattributes`, or large) answers
302 to another origin, the CDN or `cas-bridge.xethub.hf.co`, with `X-Linked-Size` and
`X-Linked-Etag` on the redirect itself (docs/hub-api.md#downloads). httpx2 would follow that
and drop `Authorization` on the cross-origin hop; following by hand makes each rule explicit
instead of resting on a client default:

- the token is sent only to the origin of the first URL (the Hub); a hop back to it gets it
  again, any other origin never does;
- only http and https targets are followed, at most `MAX_REDIRECTS` hops: a loop, a
  `file:`/`ftp:` target or a redirect without `Location` is `HubFileUnreadable`, an error of
  that one file, not a retry and not a hang;
- a redirect whose `X-Linked-Size` is over the cap is `HubFileTooLarge` before the CDN is asked
  (an oversized LFS results file costs one small request). The declared size is only used to
  refuse early: the cap itself is applied to the bytes read, whatever any header says;
- an error answered by another origin (the CDN) is not the Hub's: a refusal (4xx) is
  `HubFileUnreadable` for that file, and a 408, 429 or 5xx is a `HubTransientError` without a
  status, so it retries this run only (its `Retry-After` honoured) and never pauses the
  workers' Hub calls, which answer to the Hub's own quota (`workers.hub_pause`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, Protocol, TypeVar
from urllib.parse import urljoin, urlsplit

import httpx2
from huggingface_hub import get_session, hf_hub_url, hf_raise_for_status, set_client_factory
from huggingface_hub.errors import RemoteEntryNotFoundError
from huggingface_hub.utils._headers import build_hf_headers
from huggingface_hub.utils._http import default_client_factory

from bot.hub import unreadable_reasons
from bot.hub.budget import count_request
from bot.hub.errors import (
    HubError,
    HubFileTooLarge,
    HubFileUnreadable,
    HubPermanentError,
    HubTransientError,
    retry_after_from_headers,
    to_hub_error,
)
from bot.hub.pulls import (
    RESULTS_DIR,
    Change,
    DiffFile,
    PrCommit,
    PullRequest,
    parse_pull_request,
    with_files,
)
from bot.settings import DEFAULT_HUB_TIMEOUT_S, hub_timeout_from_env

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


#: A connection that takes this long is not going to be made.
MAX_CONNECT_TIMEOUT_S = 10.0


class BoundedClient(httpx2.Client):
    """An `httpx2.Client` on which no request can wait for ever."""

    def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
        # None (no limit) or more than ours: ours. A shorter one the library chose stays.
        ours = self.timeout.as_dict()
        asked = request.extensions.get("timeout") or {}
        request.extensions["timeout"] = {
            kind: limit if (limit := asked.get(kind)) is not None and limit <= bound else bound
            for kind, bound in ours.items()
        }
        count_request()  # the run's budget (`bot.hub.budget`) sees every request
        try:
            return super().send(request, **kwargs)
        except httpx2.TimeoutException as error:
            limits = request.extensions["timeout"]
            raise HubTransientError(
                f"the Hub did not answer {request.method} {request.url.path} in time"
                f" ({type(error).__name__}; read timeout {limits.get('read')} s,"
                " EVALBOT_HUB_TIMEOUT)"
            ) from error
        except (httpx2.NetworkError, httpx2.RemoteProtocolError) as error:
            raise HubTransientError(f"Hub unreachable: {type(error).__name__}: {error}") from error


def bounded_client(timeout_s: float) -> BoundedClient:
    """A client like the library's default one (same hooks, redirects followed), bounded."""
    library_default = default_client_factory()
    try:
        hooks = {kind: list(hooks) for kind, hooks in library_default.event_hooks.items()}
        follow_redirects = library_default.follow_redirects
    finally:
        library_default.close()
    return BoundedClient(
        event_hooks=hooks,
        follow_redirects=follow_redirects,
        timeout=httpx2.Timeout(timeout_s, connect=min(timeout_s, MAX_CONNECT_TIMEOUT_S)),
    )


def use_hub_timeout_from_env(environ: Mapping[str, str]) -> None:
    """`use_hub_timeout` with `EVALBOT_HUB_TIMEOUT` from `environ`: for the commands that talk
    to the Hub without the bot's other settings (`evalbot validate`, `evalbot gate`). Raises
    `SettingsError` for a malformed value."""
    use_hub_timeout(hub_timeout_from_env(environ))


def use_hub_timeout(timeout_s: float = DEFAULT_HUB_TIMEOUT_S) -> None:
    """Make every Hub request of this process bounded by `timeout_s` (module docstring).

    Set through the library's own client factory, so a client it rebuilds (it closes its
    session after a connection error) is bounded too.
    """
    set_client_factory(lambda: bounded_client(timeout_s))


#: The Hub needs one hop for an LFS file (resolve -> CDN); a few more leave room for mirrors.
MAX_REDIRECTS = 5
_FOLLOWED_SCHEMES = frozenset({"http", "https"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: Storage answers worth a retry of the run besides 5xx: a timeout and a rate limit.
_RETRIED_STORAGE_STATUSES = frozenset({408, 429})


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) with the scheme's default port filled in."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme, 0)


def read_capped(session: httpx2.Client, url: str, headers: dict[str, str], max_bytes: int) -> bytes:
    """The body at `url` after redirects, at most `max_bytes + 1` bytes of it.

    Raises `HfHubHTTPError` (through `hf_raise_for_status`) for an error answer, httpx2's
    transport errors as they come, and `HubFileUnreadable` / `HubFileTooLarge` as above.
    """
    return b"".join(stream_capped(session, url, headers, max_bytes))


def stream_capped(
    session: httpx2.Client, url: str, headers: dict[str, str], max_bytes: int
) -> Iterator[bytes]:
    """`read_capped` as the chunks arrive, so a large file is never held whole: at most
    `max_bytes + 1` bytes in all (a reader that gets more than `max_bytes` knows the file is
    over its cap). The errors of `read_capped`, raised while iterating."""
    hub_origin = origin(url)
    without_auth = {k: v for k, v in headers.items() if k.lower() != "authorization"}
    target = url
    for _hop in range(MAX_REDIRECTS + 1):
        sent = headers if origin(target) == hub_origin else without_auth
        try:
            with session.stream("GET", target, headers=sent, follow_redirects=False) as response:
                if 300 <= response.status_code < 400:
                    _refuse_if_declared_too_large(response, max_bytes)
                    target = _next_target(target, response)
                    continue
                if response.is_error:
                    response.read()
                    if origin(target) != hub_origin:
                        raise _storage_error(target, response)
                    hf_raise_for_status(response)
                yield from _body(response, max_bytes)
                return
        except (httpx2.InvalidURL, httpx2.UnsupportedProtocol) as error:
            if target == url:
                raise  # our own URL: a bug or a bad endpoint, not this file's problem
            raise HubFileUnreadable(unreadable_reasons.REDIRECT_INVALID) from error
    raise HubFileUnreadable(unreadable_reasons.TOO_MANY_REDIRECTS.format(count=MAX_REDIRECTS))


def _storage_error(target: str, response: httpx2.Response) -> HubError:
    """The error for a failed answer from the file's storage (an origin other than the Hub)."""
    host = (urlsplit(target).hostname or "?")[:100]
    status = response.status_code
    if status in _RETRIED_STORAGE_STATUSES or status >= 500:
        return HubTransientError(
            unreadable_reasons.CDN_UNAVAILABLE.format(host=host, status=status),
            retry_after=retry_after_from_headers(response.headers),
        )
    return HubFileUnreadable(unreadable_reasons.CDN_REFUSED.format(host=host, status=status))


def _refuse_if_declared_too_large(response: httpx2.Response, max_bytes: int) -> None:
    declared = response.headers.get("X-Linked-Size", "").strip()
    if declared.isdigit() and int(declared) > max_bytes:
        size = int(declared)
        raise HubFileTooLarge(
            unreadable_reasons.DECLARED_TOO_LARGE.format(size=size, limit=max_bytes),
            size=size,
            limit=max_bytes,
        )


def _next_target(current: str, response: httpx2.Response) -> str:
    location = response.headers.get("Location")
    if not location:
        raise HubFileUnreadable(
            unreadable_reasons.REDIRECT_WITHOUT_LOCATION.format(status=response.status_code)
        )
    try:
        target = urljoin(current, location.strip())
        parts = urlsplit(target)
    except ValueError as error:
        raise HubFileUnreadable(unreadable_reasons.REDIRECT_INVALID) from error
    scheme = parts.scheme.lower()
    if scheme not in _FOLLOWED_SCHEMES:
        raise HubFileUnreadable(unreadable_reasons.REDIRECT_SCHEME.format(scheme=scheme[:20]))
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number in 0-65535
    except ValueError as error:
        raise HubFileUnreadable(unreadable_reasons.REDIRECT_INVALID) from error
    if not parts.hostname:
        raise HubFileUnreadable(unreadable_reasons.REDIRECT_INVALID)
    return target


def _body(response: httpx2.Response, max_bytes: int) -> Iterator[bytes]:
    left = max_bytes + 1
    for chunk in response.iter_bytes():
        yield chunk[:left]
        left -= len(chunk)
        if left <= 0:
            return
