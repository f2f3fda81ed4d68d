"""A PR on a benchmark dataset, end to end: its eval.yaml is checked like a push, and the one
comment names the model results a metric rename would orphan (from the Hub's leaderboard)."""

from __future__ import annotations

from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd

from bot.report.comment_texts import REPORT_MARKER
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.devstack.workload import hle_entry
from evalbot_dev.emulator.server import CommentView
from tests.integration.e2e.conftest import BOT, Bot

pytestmark = pytest.mark.integration

BENCHMARK = "alice/hle-bench"
EVAL_YAML = """\
name: HLE bench
description: A target-spec benchmark whose metrics a PR renames.
metrics:
  - id: accuracy
    display_name: Accuracy
    higher_is_better: true
    primary: true
  - id: calibration_error
    display_name: Calibration error
    higher_is_better: false
tasks:
  - id: hle
"""


def _entry(accuracy: str, calibration: str | None = None) -> str:
    return hle_entry(accuracy, calibration_error=calibration).replace(
        "emulator-samples/hle-mini", BENCHMARK
    )


def _report(bot: Bot, num: int) -> CommentView | None:
    comments = [
        c
        for c in bot.stack.hub.comments(BENCHMARK, num, "dataset")
        if c.author == BOT and REPORT_MARKER in c.content
    ]
    return comments[-1] if comments else None


def _open_dataset_pr(bot: Bot, content: str) -> int:
    info: Any = bot.api("alice").create_commit(
        BENCHMARK,
        [CommitOperationAdd("eval.yaml", content.encode())],
        commit_message="Rename a metric",
        repo_type="dataset",
        create_pr=True,
    )
    return int(info.pr_num)


def test_a_metric_rename_names_the_results_it_would_orphan(bot: Bot) -> None:
    state = bot.stack.hub.state
    state.seed_repo(
        "dataset", BENCHMARK, {"eval.yaml": EVAL_YAML.encode()}, tags=[state.benchmark_tag]
    )
    state.seed_repo(
        "model", "alice/model-a", {".eval_results/hle.yaml": _entry("31.5", "12.0").encode()}
    )
    state.seed_repo("model", "alice/model-b", {".eval_results/hle.yaml": _entry("28").encode()})

    num = _open_dataset_pr(bot, EVAL_YAML.replace("id: calibration_error", "id: ece"))
    report = wait_until(lambda: _report(bot, num), timeout=30, what="the benchmark PR's report")
    text = report.content
    assert "What this change does to results already on the Hub" in text
    assert "metric **calibration\\_error** renamed to **ece**" in text
    assert "**1 result would be orphaned**" in text
    assert "of 2 on the leaderboard" in text
    assert "- alice/model-a **&#46;eval\\_results/hle&#46;yaml** line 1, task **hle**" in text
    assert "alice/model-b" not in text

    # A push that breaks the eval.yaml gets line-and-fix diagnostics in the same comment.
    broken = EVAL_YAML.replace("    higher_is_better: false\n", "    higher_is_better: no\n")
    bot.api("alice").upload_file(
        path_or_fileobj=broken.encode(),
        path_in_repo="eval.yaml",
        repo_id=BENCHMARK,
        repo_type="dataset",
        revision=f"refs/pr/{num}",
    )

    def diagnosed() -> CommentView | None:
        latest = _report(bot, num)
        return latest if latest is not None and "BENCH-FIELD-TYPE" in latest.content else None

    edited = wait_until(diagnosed, timeout=30, what="the edited report")
    assert edited.id == report.id
    assert "**file, line 10** `BENCH-FIELD-TYPE`" in edited.content
    assert "**Fix:** write" in edited.content
    assert f"/datasets/{BENCHMARK}/commit/" in edited.content
    assert "cannot be assessed" in edited.content
