"""`evalbot_dev.devstack.outcomes` reads a run's verdict from a real emulator state."""

from __future__ import annotations

from bot.report.comment_texts import HEAD_MARKER, REPORT_MARKER
from evalbot_dev.devstack.outcomes import all_reported, pr_outcomes, tally
from evalbot_dev.emulator.model import Token
from evalbot_dev.emulator.state import FileChange, HubState

REPO = "alice/model"


def _state() -> tuple[HubState, Token, Token]:
    state = HubState()
    state.add_user("alice")
    state.add_user("evalbot")
    alice = state.add_token("hf_alice", "alice", "write")
    bot = state.add_token("hf_bot", "evalbot", "fineGrained", ["discussion.write"])
    state.seed_repo("model", REPO, {"README.md": b"# model\n"})
    return state, alice, bot


def _open(state: HubState, token: Token, path: str) -> tuple[int, str]:
    repo = state.find_repo("model", REPO)
    outcome = state.commit(
        token,
        repo,
        "main",
        [FileChange(path, b"- value: 1\n")],
        summary="add",
        description="",
        create_pr=True,
    )
    assert outcome.pr_num is not None
    return outcome.pr_num, outcome.commit.sha


def _report(state: HubState, token: Token, num: int, head: str) -> None:
    raw = f"{REPORT_MARKER}\n{HEAD_MARKER.format(sha=head)}\nreport"
    state.comment(token, state.find_repo("model", REPO), num, raw)


def test_one_report_per_pr_is_clean_and_latency_is_hub_time() -> None:
    state, alice, bot = _state()
    num, head = _open(state, alice, ".eval_results/a.yaml")
    (pending,) = pr_outcomes(state, "model", REPO, [num], "evalbot")
    assert pending.reports == 0
    assert pending.latency_s is None
    assert not all_reported([pending])
    assert tally([pending]).lost == (num,)

    _report(state, bot, num, head)
    (done,) = pr_outcomes(state, "model", REPO, [num], "evalbot")
    assert done.head_sha == head
    assert done.reports == 1
    assert done.reflects_head
    assert done.latency_s is not None
    assert done.latency_s >= 0
    assert all_reported([done])
    assert tally([done]).clean


def test_duplicates_stale_reports_and_other_authors_are_told_apart() -> None:
    state, alice, bot = _state()
    doubled, doubled_head = _open(state, alice, ".eval_results/a.yaml")
    stale, _ = _open(state, alice, ".eval_results/b.yaml")
    _report(state, bot, doubled, doubled_head)
    _report(state, bot, doubled, doubled_head)
    _report(state, bot, stale, "0" * 40)
    # Someone pasting the marker is not the bot: it does not count as a report.
    _report(state, alice, stale, "0" * 40)

    outcomes = pr_outcomes(state, "model", REPO, [doubled, stale], "evalbot")
    result = tally(outcomes)
    assert result.duplicated == (doubled,)
    assert result.stale == (stale,)
    assert result.lost == ()
    assert not result.clean
    assert [o.reports for o in outcomes] == [2, 1]
