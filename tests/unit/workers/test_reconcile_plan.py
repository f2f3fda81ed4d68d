"""The decisions of a reconciliation run, without I/O."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.hub.client import OpenPullRequest
from bot.queue.events import PrEvent
from workers.reconcile_plan import (
    CatchUp,
    affordable,
    missing_verdicts,
    next_cursor,
    repos_for_run,
    repos_in_order,
)

SHA_A = "a" * 40
SHA_B = "b" * 40
SHA_C = "c" * 40


def test_a_pr_is_missing_when_its_head_has_no_recorded_verdict() -> None:
    prs = [
        OpenPullRequest(1, SHA_A),  # verdict at this head: caught up
        OpenPullRequest(2, SHA_B),  # verdict for an older head: a push was missed
        OpenPullRequest(3, SHA_C),  # never seen: the opening was missed
        OpenPullRequest(4, None),  # no ref yet: nothing to validate
        OpenPullRequest(5, SHA_A),  # checked without a report at this head: caught up
    ]
    recorded = {1: (SHA_A,), 2: (SHA_A,), 5: (SHA_A,)}
    assert missing_verdicts("org/model", prs, recorded) == [
        CatchUp("org/model", 2, SHA_B),
        CatchUp("org/model", 3, SHA_C),
    ]


def test_nothing_missing_when_every_head_is_recorded() -> None:
    prs = [OpenPullRequest(1, SHA_A), OpenPullRequest(2, SHA_B)]
    assert missing_verdicts("org/model", prs, {1: (SHA_C, SHA_A), 2: (SHA_B,)}) == []


def test_the_catch_up_event_is_an_ordinary_update_the_worker_accepts() -> None:
    catch_up = CatchUp("org/model", 7, SHA_B)
    event = catch_up.event("2026-11-22T09:00:00.000Z")
    assert event.kind == "updated"
    assert event.delivery_id == f"reconcile:org/model:7:{SHA_B}"
    assert event.head_sha == SHA_B
    assert PrEvent.from_json(event.to_json()) == event


def test_configured_repos_come_first_then_known_ones_each_once() -> None:
    ordered = repos_in_order(["zeta/m", "Org/Model"], ["org/model", "beta/m", "alpha/m"])
    assert ordered == ["zeta/m", "Org/Model", "alpha/m", "beta/m"]


def test_runs_rotate_through_more_repos_than_one_run_visits() -> None:
    repos = ["a/1", "b/2", "c/3", "d/4", "e/5"]
    assert repos_for_run(repos, 0, 2) == ["a/1", "b/2"]
    assert repos_for_run(repos, next_cursor(0, 2, 5), 2) == ["c/3", "d/4"]
    assert repos_for_run(repos, next_cursor(2, 2, 5), 2) == ["e/5", "a/1"]
    assert repos_for_run(repos, 3, 10) == ["d/4", "e/5", "a/1", "b/2", "c/3"]
    assert repos_for_run([], 3, 10) == []
    assert next_cursor(4, 0, 0) == 0


def test_budget_covers_a_repo_only_with_two_calls_left() -> None:
    assert affordable(2)
    assert not affordable(1)


@given(
    st.lists(st.text("abc", min_size=1, max_size=3), unique=True, max_size=12),
    st.integers(min_value=0, max_value=1000),
    st.integers(min_value=1, max_value=5),
)
def test_every_repo_is_visited_within_a_full_rotation(
    repos: list[str], cursor: int, limit: int
) -> None:
    seen: set[str] = set()
    runs = -(-len(repos) // limit) if repos else 0
    for _ in range(runs):
        chosen = repos_for_run(repos, cursor, limit)
        assert len(chosen) == len(set(chosen)) == min(limit, len(repos))
        seen.update(chosen)
        cursor = next_cursor(cursor, len(chosen), len(repos))
    assert seen == set(repos)
