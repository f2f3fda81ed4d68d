"""What a reconciliation run should do, decided without I/O: which repos it visits (rotating when
the budget cannot cover all), which PRs are missing a verdict, and the event and dedupe key
queued for each."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.hub.client import OpenPullRequest
from bot.queue.events import PrEvent

#: Hub calls one repo costs at least (the open-PR listing and the PR refs).
CALLS_PER_REPO = 2
#: How a datastore (a dataset repo) is named among the repos a run visits, and in the keys of
#: the heads its runs record (`workers.datastore_history.verdict_repo`).
DATASETS = "datasets/"


def datastore_entries(datastores: Iterable[str]) -> list[str]:
    """The configured datastores as reconciliation visits them: `datasets/<lower-cased id>`."""
    return [f"{DATASETS}{repo_id.lower()}" for repo_id in sorted(datastores)]


@dataclass(frozen=True, slots=True)
class CatchUp:
    """An open PR whose current head has no recorded verdict."""

    repo_id: str
    pr_num: int
    head_sha: str

    @property
    def delivery_id(self) -> str:
        """Names the event in logs as a catch-up; also its dedupe key (one per head)."""
        return f"reconcile:{self.repo_id}:{self.pr_num}:{self.head_sha}"

    def event(self, received_at: str) -> PrEvent:
        """The event a webhook for a push to the PR would have queued (a datastore's, named
        `datasets/<repo>` here, is a dataset repo's)."""
        dataset = self.repo_id.startswith(DATASETS)
        return PrEvent(
            kind="updated",
            repo_id=self.repo_id.removeprefix(DATASETS),
            pr_num=self.pr_num,
            delivery_id=self.delivery_id,
            received_at=received_at,
            head_sha=self.head_sha,
            repo_type="dataset" if dataset else "model",
        )


def repos_in_order(watched: Sequence[str], known: Iterable[str]) -> list[str]:
    """The configured repos in their order, then those that ever had a verdict, sorted; each
    once (repo ids compare case-insensitively on the Hub, the first spelling is kept)."""
    seen: set[str] = set()
    ordered: list[str] = []
    for repo_id in [*watched, *sorted(known)]:
        if repo_id.lower() not in seen:
            seen.add(repo_id.lower())
            ordered.append(repo_id)
    return ordered


def repos_for_run(repos: Sequence[str], cursor: int, limit: int) -> list[str]:
    """Up to `limit` repos starting at `cursor` (wrapping around): with more repos than one
    run may visit, the next run starts where this one stopped (`next_cursor`), so every repo
    still comes up within a few runs."""
    if not repos or limit <= 0:
        return []
    start = cursor % len(repos)
    return [repos[(start + offset) % len(repos)] for offset in range(min(limit, len(repos)))]


def next_cursor(cursor: int, attempted: int, total: int) -> int:
    """Where the next run starts, after this one attempted `attempted` of `total` repos."""
    return 0 if total == 0 else (cursor + attempted) % total


def missing_verdicts(
    repo_id: str,
    open_prs: Iterable[OpenPullRequest],
    recorded: Mapping[int, Iterable[str]],
) -> list[CatchUp]:
    """The open PRs whose head is not among the heads recorded for them (`recorded[num]`:
    the verdict's head, and the head last checked without a report). A PR without a ref
    (nothing pushed yet) has nothing to validate."""
    missing: list[CatchUp] = []
    for pr in open_prs:
        if pr.head_sha is None:
            continue
        if pr.head_sha in set(recorded.get(pr.num, ())):
            continue
        missing.append(CatchUp(repo_id, pr.num, pr.head_sha))
    return missing


def affordable(calls_left: int) -> bool:
    """Whether the remaining Hub call budget covers one more repo."""
    return calls_left >= CALLS_PER_REPO
