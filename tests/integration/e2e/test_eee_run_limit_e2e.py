"""A datastore PR too large to check in one run gets that verdict, once, end to end
(docs/eee.md, "Limits").

The datastore's `run_limits` are set low in `config/bot.yaml` (5 samples rows a run); alice's
PR adds a real record with its 10-row samples file. The run stops at the bound: the comment
says the PR is not ready, with `EEE-RUN-LIMIT` on the samples file and how to split it, and the
task is not retried (one run for the head, the same verdict on a recheck). A PR within the
bounds on the same datastore is checked as usual.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd

from bot.report.comment_texts import REPORT_MARKER
from evalbot_dev.devstack.waiting import wait_until
from tests.support.stackbot import BOT, Bot, running_bot
from tests.unit.eee.helpers import DATASTORE

pytestmark = pytest.mark.integration

REPO = "alice/eee-run-limit"
FOLDER = (
    "data/math_perturbed_full/RylanSchaeffer/"
    "mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1"
)
RECORD = f"{FOLDER}/2fe532ba-5757-4702-9e67-36c60017dc2b.json"
SAMPLES = f"{FOLDER}/2fe532ba-5757-4702-9e67-36c60017dc2b_samples.jsonl"


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with running_bot(
        tmp_path_factory.mktemp("run-limit"),
        env={"EVALBOT_LOG_LEVEL": "INFO"},
        bot_config={"datastores": {REPO: {"run_limits": {"rows": 5}}}},
    ) as running:
        running.stack.hub.state.seed_repo("dataset", REPO, {"README.md": b"# EEE\n"})
        yield running


def open_as(bot: Bot, user: str, files: Mapping[str, bytes]) -> int:
    operations = [CommitOperationAdd(path, content) for path, content in files.items()]
    info: Any = bot.api(user).create_commit(
        REPO, operations, commit_message="Add records", repo_type="dataset", create_pr=True
    )
    return int(info.pr_num)


def reports(bot: Bot, num: int) -> list[str]:
    return [
        c.content
        for c in bot.stack.hub.comments(REPO, num, "dataset")
        if c.author == BOT and REPORT_MARKER in c.content
    ]


def runs_of(bot: Bot, num: int) -> list[dict[str, Any]]:
    found = []
    for line in bot.stack.logs().splitlines():
        start = line.find("{")
        if start < 0 or '"datastore run"' not in line:
            continue
        try:
            entry = json.loads(line[start:])
        except ValueError:
            continue
        if entry.get("repo") == REPO and entry.get("pr") == num:
            found.append(entry)
    return found


def test_a_pr_over_the_runs_bounds_is_told_to_split_and_not_retried(bot: Bot) -> None:
    pair = {path: (DATASTORE / "pass" / path).read_bytes() for path in (RECORD, SAMPLES)}
    num = open_as(bot, "alice", pair)
    text = wait_until(lambda: "".join(reports(bot, num)) or None, timeout=60, what="the report")
    assert "Not ready to merge" in text, text
    assert "EEE-RUN-LIMIT" in text
    assert "more than 5 rows" in text
    assert "split the upload" in text
    bot.wait_until_quiet()
    runs = runs_of(bot, num)
    assert [run["outcome"] for run in runs] == ["posted"], bot.stack.logs()
    assert len(reports(bot, num)) == 1


def test_a_pr_within_the_bounds_is_checked_as_usual(bot: Bot) -> None:
    num = open_as(bot, "alice", {RECORD: (DATASTORE / "pass" / RECORD).read_bytes()})
    text = wait_until(lambda: "".join(reports(bot, num)) or None, timeout=60, what="the report")
    assert "EEE-RUN-LIMIT" not in text
