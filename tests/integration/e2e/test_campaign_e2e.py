"""The comment beyond one PR, end to end: a collection's standing before → after the PR, and a
campaign of three PRs proposing the same result (a duplicate, then a conflict), with the Hub
calls each run spent read from the worker's `campaign checks` log line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalbot_dev.devstack.workload import hle_entry
from tests.support.emulator import MINI_GATE, MODEL
from tests.support.stackbot import Bot, open_pr, running_bot

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    work = tmp_path_factory.mktemp("campaign")
    collections = work / "collections"
    collections.mkdir()
    (collections / "mini-gate.yaml").write_text(MINI_GATE)
    config = {
        "collections": {MODEL: ["mini-gate"]},
        "collections_dir": str(collections),
        "cross_pr_checks": True,
    }
    with running_bot(
        work / "stack",
        workers=1,
        concurrency=2,
        bot_config=config,
        env={"EVALBOT_LOG_LEVEL": "INFO"},  # the `campaign checks` lines
    ) as running:
        yield running


def campaign_lines(bot: Bot) -> dict[int, dict[str, Any]]:
    """The last `campaign checks` log line of each PR's runs, by PR number."""
    lines: dict[int, dict[str, Any]] = {}
    for path in sorted(Path(bot.stack.work_dir).glob("*.log")):
        for text in path.read_text(errors="replace").splitlines():
            if '"campaign checks"' not in text:
                continue
            record = json.loads(text[text.index("{") :])
            lines[int(record["pr"])] = record
    return lines


def test_the_comment_shows_how_the_pr_changes_the_collection_standing(bot: Bot) -> None:
    num, head = open_pr(bot, {".eval_results/hle_mini.yaml": hle_entry("30")})
    report = bot.wait_for_report(num, head=head).content
    assert "📊 Collection standing (before → after this PR)" in report
    row = next(line for line in report.splitlines() if line.startswith("| **mini-gate**"))
    # main: gpqa-mini 41.5 passes, hle-mini missing (blocks); with the PR: (41.5 + 30) / 2
    assert "41.50 → 35.75" in row
    assert "❌ fail → ✔️ pass" in row
    assert "emulator-samples/hle-mini / hle / accuracy: missing → 30 passed" in row


def test_three_prs_of_one_campaign_warn_of_duplicates_and_conflicts(bot: Bot) -> None:
    entry = hle_entry("20.90") + "  notes: campaign-7\n"
    first, head = open_pr(bot, {".eval_results/hle_run1.yaml": entry}, user="bob")
    clean = bot.wait_for_report(first, head=head).content
    assert "Results also proposed elsewhere" not in clean

    second, head = open_pr(bot, {".eval_results/hle_run2.yaml": entry}, user="bob")
    duplicate = bot.wait_for_report(second, head=head).content
    assert "Results also proposed elsewhere" in duplicate
    assert f"already proposed in [PR #{first}]" in duplicate
    assert "with the **same** value (accuracy 20.9): a duplicate" in duplicate

    conflicting = entry.replace("20.90", "23.40")
    third, head = open_pr(bot, {".eval_results/hle_run3.yaml": conflicting}, user="bob")
    conflict = bot.wait_for_report(third, head=head).content
    for other in (first, second):
        assert f"also proposed in [PR #{other}]" in conflict
    assert "with **different** value (there accuracy 20.9; here accuracy 23.4)" in conflict

    bot.wait_until_quiet()
    spent = campaign_lines(bot)
    # Each run: main's tree (its file read once, then by blob id from Redis) + 2 for the open
    # PRs with their heads; the earlier PRs' claims come from the cache their own runs filled.
    assert spent[second]["hub_calls"] == 3
    assert spent[third]["hub_calls"] == 3
    assert spent[third]["clashes"] == 2
