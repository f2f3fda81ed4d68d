"""A datastore run's comparison with other open PRs is bounded, and what it leaves is finished
by a follow-up run, end to end (docs/eee.md, "Cost and state").

Two strangers' PRs the bot never saw (their webhooks dropped) hold records it has not hashed;
one of them holds first the evaluation alice then submits. With a comparison budget of a few
calls (tuned down from 80), alice's first report names the PRs it did not compare; the
follow-up runs the ledger sends carry on, and her comment ends naming the duplicate.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd

from bot.report.comment_texts import REPORT_MARKER
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.faults import WebhookFaults
from tests.support.stackbot import BOT, Bot, running_bot
from tests.support.tuning import tuned
from tests.unit.eee.helpers import DATASTORE

pytestmark = pytest.mark.integration

REPO = "alice/eee-budget"
LEGACY = "data/MMLU-Pro/01-ai/yi-1.5-34b-chat/676f4465-ce78-411a-9f5a-c97b3d2eac4f.json"
TUNING = {
    "workers.datastore_index.COMPARE_BUDGET": 4,
    "workers.datastore_history.FOLLOW_UP_S": 2,
    "workers.heartbeat_and_sweep.SWEEP_EVERY_S": 1,
}


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with running_bot(
        tmp_path_factory.mktemp("budget-stack"),
        env=tuned(TUNING),
        bot_config={"datastores": {REPO: {}}},
    ) as running:
        running.stack.hub.state.seed_repo("dataset", REPO, {"README.md": b"# EEE\n"})
        yield running


def record(n: int, *, again: bool = False) -> tuple[str, bytes]:
    """Evaluation `n` at a path of its own (`again`: the same evaluation, scraped again)."""
    data = json.loads((DATASTORE / "legacy" / LEGACY).read_bytes())
    data["evaluation_results"] = data["evaluation_results"][:1]
    data["evaluation_results"][0]["score_details"]["score"] = 0.2 + n / 10_000
    if again:
        data["evaluation_id"] = f"again-{n}"
        data["retrieved_timestamp"] = "1900000000"
    folder = LEGACY.rsplit("/", 1)[0]
    name = uuid.UUID(int=(0xB0D6E7 << 64) | (n << 1) | again, version=4)
    return f"{folder}/{name}.json", json.dumps(data).encode()


def open_as(bot: Bot, user: str, files: Mapping[str, bytes]) -> int:
    operations = [CommitOperationAdd(path, content) for path, content in files.items()]
    info: Any = bot.api(user).create_commit(
        REPO, operations, commit_message="Add records", repo_type="dataset", create_pr=True
    )
    return int(info.pr_num)


def latest(bot: Bot, num: int) -> str:
    found = [
        c.content
        for c in bot.stack.hub.comments(REPO, num, "dataset")
        if c.author == BOT and REPORT_MARKER in c.content
    ]
    return found[-1] if found else ""


def test_a_comparison_past_the_budget_is_named_then_finished_by_a_follow_up(bot: Bot) -> None:
    dispatcher = bot.stack.hub.emulator.dispatcher
    dispatcher.set_faults(WebhookFaults(drop_rate=1.0))  # the bot never hears of these two
    try:
        carol = open_as(bot, "carol", dict(record(n) for n in range(1, 5)))
        dave = open_as(bot, "dave", dict(record(n) for n in range(11, 15)))
        wait_until(dispatcher.idle, timeout=30, what="the dropped webhooks")
    finally:
        dispatcher.set_faults(WebhookFaults())
    alice = open_as(bot, "alice", dict([record(3, again=True)]))  # carol's evaluation #3

    first = wait_until(lambda: latest(bot, alice) or None, timeout=60, what="alice's report")
    assert "not yet looked for" in first
    assert f"#{dave}" in first

    def finished() -> str | None:
        text = latest(bot, alice)
        return text if "not yet looked for" not in text else None

    try:
        final = wait_until(finished, timeout=90, what="the follow-ups to finish the comparison")
    except AssertionError as error:
        raise AssertionError(f"{error}\n{latest(bot, alice)}\n{bot.stack.logs()}") from error
    assert "EEE-DUPLICATE" in final
    assert f"open PR #{carol}" in final or f"open PR \\#{carol}" in final
    assert "which held it first" in final
    comments = [
        c for c in bot.stack.hub.comments(REPO, alice, "dataset") if REPORT_MARKER in c.content
    ]
    assert len(comments) == 1  # the follow-ups edit the one comment
