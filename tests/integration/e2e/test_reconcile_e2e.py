"""Reconciliation end to end: `evalbot beat` schedules `evalbot.reconcile` every second, a
worker lists the watched repo's open PRs on the Hub emulator and queues the PRs whose head has
no verdict, so a PR whose webhooks were dropped still gets its comment; and when nothing is
missing, the runs queue nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd

from bot.report.comment_texts import REPORT_MARKER
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.faults import WebhookFaults
from tests.integration.e2e.conftest import Bot
from tests.integration.e2e.test_bot_e2e import GPQA_PATH
from tests.support.emulator import GPQA_FIXED, GPQA_TYPO, MODEL
from tests.support.stackbot import BOT, open_pr, push, running_bot
from tests.unit.eee.helpers import DATASTORE

pytestmark = pytest.mark.integration

#: An Every Eval Ever datastore (a dataset repo): reconciliation visits its open PRs too.
STORE = "alice/eee-reconciled"


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with running_bot(
        tmp_path_factory.mktemp("reconcile-stack"),
        watched_repos=[MODEL],
        beat=True,
        bot_config={"reconcile": {"interval_s": 1}, "datastores": {STORE: {}}},
    ) as running:
        yield running


def dropped(bot: Bot, since: int) -> list[Any]:
    return [r for r in bot.stack.hub.deliveries()[since:] if r.outcome == "dropped"]


def wait_for_runs(bot: Bot, count: int) -> None:
    """Wait until `count` more reconciliation runs completed."""
    key = "reconcile-run:completed"
    start = bot.stats().get(key, 0)
    try:
        wait_until(
            lambda: bot.stats().get(key, 0) - start >= count,
            timeout=30,
            what=f"{count} reconciliation runs",
        )
    except AssertionError as error:
        raise AssertionError(f"{error}\n{bot.stack.logs()}") from error


def test_a_pr_whose_webhooks_were_dropped_gets_its_comment(bot: Bot) -> None:
    before = bot.stats()
    since = len(bot.stack.hub.deliveries())
    # Opening a PR fires two webhooks (the discussion and the new refs/pr/N): drop both.
    bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults(drop_next=2))
    try:
        num, head = open_pr(bot, {GPQA_PATH: GPQA_TYPO})
        report = bot.wait_for_report(num, head=head)
    finally:
        bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults())
    assert len(dropped(bot, since)) == 2
    # Only the bot's own comment reached the receiver (and was ignored): the PR's events did not.
    delivered = [r for r in bot.stack.hub.deliveries()[since:] if r.outcome == "delivered"]
    assert {r.scope for r in delivered} <= {"discussion.comment"}
    assert "ENTRY-TASK-UNKNOWN" in report.content
    bot.wait_for_outcome("posted", before)  # counted just after the comment was posted
    after = bot.stats()
    assert after.get("catchup:queued", 0) - before.get("catchup:queued", 0) >= 1
    assert after.get("outcome:posted", 0) - before.get("outcome:posted", 0) == 1
    assert len(bot.bot_comments(num)) == 1


def test_a_dropped_push_is_caught_up_on_the_same_comment(bot: Bot) -> None:
    num, head = open_pr(bot, {GPQA_PATH: GPQA_TYPO})
    first = bot.wait_for_report(num, head=head)
    bot.wait_for_deliveries()
    since = len(bot.stack.hub.deliveries())
    bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults(drop_next=1))
    try:
        fixed_head = push(bot, num, GPQA_PATH, GPQA_FIXED)
        fixed = bot.wait_for_report(num, head=fixed_head)
    finally:
        bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults())
    assert len(dropped(bot, since)) == 1
    assert fixed.id == first.id
    assert "ENTRY-TASK-UNKNOWN" not in fixed.content
    assert len(bot.bot_comments(num)) == 1


def test_nothing_missing_means_nothing_queued(bot: Bot) -> None:
    num, head = open_pr(bot, {GPQA_PATH: GPQA_FIXED})
    bot.wait_for_report(num, head=head)
    bot.wait_for_deliveries()
    wait_for_runs(bot, 1)  # a run that may have raced the webhook's own run is over
    wait_until(
        lambda: bot.redis.llen("evalbot") == 0 and bot.redis.hlen("unacked") == 0,
        timeout=30,
        what="the queue to drain",
    )
    before = bot.stats()
    wait_for_runs(bot, 3)
    after = bot.stats()
    assert after.get("catchup:queued", 0) == before.get("catchup:queued", 0)
    runs = {k: after[k] - before.get(k, 0) for k in after if k.startswith("outcome:")}
    assert not any(runs.values()), f"pipeline runs without a webhook: {runs}"
    assert len(bot.bot_comments(num)) == 1


def store_reports(bot: Bot, num: int) -> list[str]:
    return [
        c.content
        for c in bot.stack.hub.comments(STORE, num, "dataset")
        if c.author == BOT and REPORT_MARKER in c.content
    ]


def test_a_datastore_pr_whose_webhooks_were_dropped_gets_its_comment(bot: Bot) -> None:
    demo = "data/demo-source/demo-org/demo-model/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"
    record = json.loads((DATASTORE / "pass" / demo).read_bytes())
    del record["detailed_evaluation_results"]
    bot.stack.hub.state.seed_repo("dataset", STORE, {"README.md": b"# EEE\n"})
    since = len(bot.stack.hub.deliveries())
    bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults(drop_next=2))
    try:
        info: Any = bot.api("alice").create_commit(
            STORE,
            [CommitOperationAdd(demo, json.dumps(record).encode())],
            commit_message="Add a record",
            repo_type="dataset",
            create_pr=True,
        )
        num = int(info.pr_num)
        text = wait_until(
            lambda: next(iter(store_reports(bot, num)), None),
            timeout=60,
            what="the caught-up datastore report",
        )
    finally:
        bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults())
    assert len(dropped(bot, since)) == 2
    assert "Ready to merge" in text
    assert f"evalbot:head={info.oid}" in text
    wait_for_runs(bot, 1)
    queued = bot.stats().get("catchup:queued", 0)
    wait_for_runs(bot, 2)  # its head is recorded now: later runs queue nothing for it
    assert bot.stats().get("catchup:queued", 0) == queued
    assert len(store_reports(bot, num)) == 1
