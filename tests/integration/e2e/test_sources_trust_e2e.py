"""What a stranger can make the bot say about a source, end to end (docs/comment.md#sources):
only records a public datastore's maintainers merged are checked.

bob, who maintains nothing, opens PRs on a public model. A record he adds in a PR of the
trusted datastore is not merged, whether his link names the PR's ref or its head commit: not
checked, with the fix. A record of a gated datastore the bot may read is linked only: nothing
of it (its model, its benchmarks, its score) reaches his PR's public comment. And a PR of 300
links to records stored in LFS costs no more Hub requests than docs/hub.md states, counted by
the emulator (the CDN hops included).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd

from evalbot_dev.emulator.state import FileChange
from tests.support.emulator import TOKENS
from tests.support.sources_world import (
    DATASTORE,
    LLAMA_PRO,
    MODEL,
    SAMPLES,
    YI,
    datastore_records,
    seed_sources_world,
)
from tests.support.stackbot import BOT, Bot, running_bot

pytestmark = pytest.mark.integration

GATED = "evaleval/EEE_gated"
FORGED = "data/MMLU-Pro/01-ai/yi-1.5-34b-chat/11111111-2222-4333-8444-555555555555.json"
#: docs/hub.md, "Budgets": a model-repo PR citing records: 4, plus the benchmark's eval.yaml
#: (the worker process that runs it may not have read it yet) and the repo's visibility (not
#: known yet in a fresh stack), plus the sources' share of 200.
MODEL_RUN_BOUND = 4 + 1 + 1 + 200


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with running_bot(
        tmp_path_factory.mktemp("sources-trust"),
        workers=1,
        concurrency=2,
        env={"EVALBOT_LOG_LEVEL": "INFO"},
        bot_config={"source_datastores": [DATASTORE, GATED]},
    ) as running:
        seed_sources_world(running)
        state = running.stack.hub.state
        state.add_org("evaleval", members={"carol": "write"})  # carol maintains the datastores
        state.seed_repo("dataset", GATED, datastore_records(), gated="manual", granted=[BOT])
        yield running


def entry(bot: Bot, revision: str, path: str, *, value: float, notes: str) -> str:
    url = f"{bot.stack.hub.url}/datasets/{DATASTORE}/blob/{revision}/{path}"
    return (
        f"- dataset:\n    id: TIGER-Lab/MMLU-Pro\n    task_id: mmlu_pro\n  value: {value}\n"
        f"  notes: {notes}\n  source:\n    url: {url}\n    name: EvalEval\n"
    )


def open_as(bot: Bot, user: str, files: dict[str, str]) -> tuple[int, str]:
    operations = [CommitOperationAdd(path, text.encode()) for path, text in files.items()]
    info: Any = bot.api(user).create_commit(
        MODEL, operations, commit_message="Add results", create_pr=True
    )
    return int(info.pr_num), str(info.oid)


def row(report: str, text: str) -> str:
    return next(line for line in report.splitlines() if text in line)


def test_a_record_in_a_strangers_datastore_pr_is_not_checked(bot: Bot) -> None:
    forged = json.loads((SAMPLES / "datastore" / YI).read_bytes())
    forged["evaluation_results"][0]["score_details"]["score"] = 0.968
    forged["evaluation_id"] = "forged/1"
    info: Any = bot.api("bob").create_commit(
        DATASTORE,
        [CommitOperationAdd(FORGED, json.dumps(forged).encode())],
        commit_message="my record",
        create_pr=True,
        repo_type="dataset",
    )
    text = (
        entry(bot, f"refs%2Fpr%2F{info.pr_num}", FORGED, value=96.8, notes="by-ref")
        + entry(bot, str(info.oid), FORGED, value=96.8, notes="by-head")
        + entry(bot, "main", YI, value=52.29, notes="merged")
    )
    num, head = open_as(bot, "bob", {".eval_results/mmlu_pro.yaml": text})
    report = bot.wait_for_report(num, head=head, repo_id=MODEL).content
    assert "**Sources:** 1 checked against its Every Eval Ever record ✔️; 2 not checked" in report
    by_ref, by_head, merged = (row(report, f"| {n} | ") for n in (1, 2, 3))
    for forged_row in (by_ref, by_head):
        assert "🔗 source (not checked)" in forged_row, forged_row
        assert "link the merged record" in forged_row
    assert "is a pull request of evaleval/EEE\\_datastore" in by_ref
    assert "is not the one on evaleval/EEE\\_datastore's main" in by_head
    assert "forged/1" not in report
    assert "🔗 source ✔️ checked" in merged


def test_a_gated_datastores_records_never_reach_a_strangers_comment(bot: Bot) -> None:
    gated = f"{bot.stack.hub.url}/datasets/{GATED}/blob/main/{LLAMA_PRO}"
    text = (
        "- dataset:\n    id: TIGER-Lab/MMLU-Pro\n    task_id: mmlu_pro\n  value: 1\n"
        f"  source:\n    url: {gated}\n"
    )
    num, head = open_as(bot, "bob", {".eval_results/probe.yaml": text})
    report = bot.wait_for_report(num, head=head, repo_id=MODEL).content
    assert "ENTRY-SOURCE" not in report
    assert "LLaMA-Pro" not in report  # the record's model_info.id
    assert "gpqa" not in report.lower()  # its benchmark
    assert "**Sources:** 1 linked only" in report
    assert "(not checked)" not in report
    assert "✔️ checked" not in report
    # never read: no record of it was kept (a record read is kept in Redis by commit)
    assert bot.redis.keys(f"evalbot:source:record:{GATED.lower()}:*") == []


def test_three_hundred_links_to_lfs_records_stay_within_the_stated_bound(bot: Bot) -> None:
    hub = bot.stack.hub
    state = hub.state
    record = (SAMPLES / "datastore" / YI).read_bytes()
    paths = [
        f"flat/objects/44/44/{uuid.UUID(int=(0x44 << 64) | i, version=4)}.json" for i in range(300)
    ]
    merged = state.commit(
        state.tokens[TOKENS["carol"]],
        state.find_repo("dataset", DATASTORE),
        "main",
        [FileChange(path, record, lfs=True) for path in paths],
        summary="300 records",
        description="",
    ).commit.sha
    text = "".join(
        entry(bot, merged, path, value=52.29, notes=f"n{i}") for i, path in enumerate(paths)
    )
    bot.wait_until_quiet()
    hub.faults.reset_counters()
    cdn_before = len(hub.cdn_requests())
    opened = state.commit(  # through the state: the emulator counts the bot's requests alone
        state.tokens[TOKENS["bob"]],
        state.find_repo("model", MODEL),
        "main",
        [FileChange(".eval_results/many.yaml", text.encode())],
        summary="Add results",
        description="",
        create_pr=True,
    )
    assert opened.pr_num is not None
    report = bot.wait_for_report(
        opened.pr_num, head=opened.commit.sha, repo_id=MODEL, timeout=60
    ).content
    bot.wait_until_quiet()
    served = hub.counters()
    served.pop("identity.whoami", None)  # a worker process's start-up check, not the run's
    made = sum(served.values()) + len(hub.cdn_requests()) - cdn_before
    assert made <= MODEL_RUN_BOUND, (made, served)
    assert "checked against their Every Eval Ever records ✔️" in report
    assert "budget for source records" in report  # what the share left is said
