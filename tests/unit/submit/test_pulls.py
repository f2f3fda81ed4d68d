"""The submission's key and the marker that finds its PR again. Reading main's file is
tested against the emulator (tests/integration/hub/test_submit_main_reads.py)."""

from __future__ import annotations

from bot.submit.pulls import marker, submission_key


def test_a_submission_key_names_the_model_and_the_set_of_results() -> None:
    alpha = ("org/bench", "alpha", "")
    beta = ("org/bench", "beta", "")
    key = submission_key("alice/model", [alpha, beta], None)
    assert key == submission_key("Alice/Model", [beta, alpha, alpha], None)
    assert key == submission_key("alice/model", [("ORG/Bench", "alpha", ""), beta], None)
    assert key != submission_key("alice/model", [alpha], None)
    assert key != submission_key("alice/model", [alpha, ("org/bench", "beta", "run 2")], None)
    assert key != submission_key("alice/other", [alpha, beta], None)
    assert len(key) == 32


def test_a_pr_key_replaces_the_results_in_the_key() -> None:
    nightly = submission_key("alice/model", [("org/bench", "alpha", "")], "nightly")
    assert nightly == submission_key("alice/model", [("org/bench", "beta", "")], "nightly")
    assert nightly != submission_key("alice/model", [("org/bench", "beta", "")], "weekly")
    assert nightly != submission_key("bob/model", [], "nightly")
    assert marker(nightly) == f"<!-- evalbot-submit: {nightly} -->"
