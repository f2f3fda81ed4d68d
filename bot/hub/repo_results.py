"""A model repo's results as the Hub holds them: main, and optionally each open PR's changes, for
`evalbot gate` and the comment's collection standing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from bot.hub.client import LeaderboardEntry, OpenPullRequests, Visibility
from bot.hub.pulls import PathKind, PullRequest, classify_path


class ResultsReader(Protocol):
    """The Hub calls this module makes (`bot.hub.client.HfHubClient` has them all)."""

    def results_tree(self, repo_id: str, revision: str) -> dict[str, str]: ...

    def read_file(self, repo_id: str, path: str, revision: str) -> bytes: ...

    def open_pull_requests(self, repo_id: str, *, limit: int) -> OpenPullRequests: ...

    def pull_request(self, repo_id: str, num: int) -> PullRequest: ...

    def repo_visibility(self, repo_id: str) -> Visibility: ...


class DatasetPrClient(Protocol):
    """The Hub calls a benchmark PR needs (`workers.benchmark_pr`; `HfHubClient` has them)."""

    def dataset_pull_request(self, repo_id: str, num: int) -> PullRequest: ...

    def read_file(
        self, repo_id: str, path: str, revision: str, *, repo_type: str = "model"
    ) -> bytes: ...

    def leaderboard(self, dataset_id: str) -> list[LeaderboardEntry]: ...

    def post_comment(
        self, repo_id: str, num: int, body: str, *, repo_type: str = "model"
    ) -> str: ...

    def edit_comment(
        self, repo_id: str, num: int, comment_id: str, body: str, *, repo_type: str = "model"
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class PrChanges:
    """An open PR's results files at its head (added or changed) and the ones it deletes."""

    num: int
    files: dict[str, bytes]
    removed: tuple[str, ...] = ()


@dataclass(slots=True)
class RepoResults:
    """Results files by path: main's, then each open PR's changes, and the calls made."""

    main: dict[str, bytes]
    prs: list[PrChanges] = field(default_factory=list)
    hub_calls: int = 0


#: Open PRs read at most (one discussions page); more are not read, and the count says so.
MAX_OPEN_PRS = 50


def read_repo_results(
    client: ResultsReader, repo_id: str, *, revision: str = "main", include_open_prs: bool = False
) -> RepoResults:
    paths = [path for path in sorted(client.results_tree(repo_id, revision)) if is_results(path)]
    results = RepoResults(main={}, hub_calls=1)
    for path in paths:
        results.main[path] = client.read_file(repo_id, path, revision)
        results.hub_calls += 1
    if not include_open_prs:
        return results
    listing = client.open_pull_requests(repo_id, limit=MAX_OPEN_PRS)
    results.hub_calls += listing.hub_calls
    for open_pr in listing.prs:
        pr = client.pull_request(repo_id, open_pr.num)
        results.hub_calls += 1
        if pr.head_sha is None:
            continue
        files: dict[str, bytes] = {}
        for path in _changed(pr):
            files[path] = client.read_file(repo_id, path, pr.head_sha)
            results.hub_calls += 1
        removed = tuple(path for path in pr.removed_result_files if is_results(path))
        if files or removed:
            results.prs.append(PrChanges(pr.num, files, removed))
    return results


def is_results(path: str) -> bool:
    """A path the Hub reads as a results file (`bot.hub.pulls`)."""
    return classify_path(path) is PathKind.RESULTS


def _changed(pr: PullRequest) -> Iterator[str]:
    yield from (path for path in pr.result_files if is_results(path))
