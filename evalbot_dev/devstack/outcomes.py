"""What the bot did to a set of PRs, read from the Hub emulator's own state (no client clocks).

The benchmarks (`bench/e2e.py`, `bench/load.py`) and the soak test judge a run here: for each
PR, the Hub time of the commit that opened it, the Hub time the bot's report was created, how
many reports the bot posted (one is right: zero is a lost event, two a duplicate) and whether
the last one reflects the PR's head. Both times come from the emulator's records, so the
latency is free of skew between the processes involved.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.report.comment_texts import HEAD_MARKER, REPORT_MARKER
from evalbot_dev.emulator.state import HubState


@dataclass(frozen=True, slots=True)
class PrOutcome:
    """One PR: when it was opened, its head, and the bot's report comments on it."""

    num: int
    opened_at: datetime  # Hub time of the PR's first `commit` event
    head_sha: str
    reports: int  # bot comments carrying the report marker
    first_report_at: datetime | None  # Hub time the first report comment was created
    reflects_head: bool  # the latest report names the PR's current head

    @property
    def latency_s(self) -> float | None:
        """From the opening commit to the bot's first report (None while there is none)."""
        if self.first_report_at is None:
            return None
        return (self.first_report_at - self.opened_at).total_seconds()


@dataclass(frozen=True, slots=True)
class Tally:
    """The run's verdict: PRs without a report (lost), with several (duplicate), or stale."""

    prs: int
    lost: tuple[int, ...]
    duplicated: tuple[int, ...]
    stale: tuple[int, ...]

    @property
    def clean(self) -> bool:
        return not (self.lost or self.duplicated or self.stale)


def pr_outcomes(
    state: HubState, repo_type: str, repo_id: str, nums: Iterable[int], bot_name: str
) -> list[PrOutcome]:
    """The outcome of each PR `nums` of `repo_id`, read under the state's lock."""
    outcomes: list[PrOutcome] = []
    with state.locked():
        repo = state.find_repo(repo_type, repo_id)
        for num in nums:
            discussion = state.discussion(repo, num)
            commits = [event for event in discussion.events if event.type == "commit"]
            if not commits:
                raise ValueError(f"{repo_id}#{num} has no commit: not a PR opened with content")
            head = str(commits[-1].data["oid"])
            reports = [
                event
                for event in discussion.events
                if event.type == "comment"
                and event.author == bot_name
                and REPORT_MARKER in str(event.data["raw"])
            ]
            outcomes.append(
                PrOutcome(
                    num=num,
                    opened_at=commits[0].created_at,
                    head_sha=head,
                    reports=len(reports),
                    first_report_at=reports[0].created_at if reports else None,
                    reflects_head=bool(reports)
                    and HEAD_MARKER.format(sha=head) in str(reports[-1].data["raw"]),
                )
            )
    return outcomes


def tally(outcomes: Sequence[PrOutcome]) -> Tally:
    return Tally(
        prs=len(outcomes),
        lost=tuple(o.num for o in outcomes if o.reports == 0),
        duplicated=tuple(o.num for o in outcomes if o.reports > 1),
        stale=tuple(o.num for o in outcomes if o.reports and not o.reflects_head),
    )


def all_reported(outcomes: Sequence[PrOutcome]) -> bool:
    """Whether every PR has a report that reflects its head (what a benchmark waits for)."""
    return all(o.reports >= 1 and o.reflects_head for o in outcomes)
