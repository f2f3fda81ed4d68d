"""Rotating the webhook secret, end to end (docs/security.md#fault-injection item 15), following the
runbook of docs/operating.md ("Rotating the webhook secret"): the receiver restarted with the new
secret and the old one as `EVALBOT_WEBHOOK_SECRET_PREVIOUS`, the Hub webhook's secret changed
through the settings API, the receiver restarted without the previous secret. What a
delivery got is read on the emulator's delivery log, what ran on the bot's counters.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.delivery import DeliveryRecord, DeliverySettings
from tests.faults.conftest import (
    FAULT_ENV,
    GPQA_ENTRY,
    GPQA_PATH,
    assert_one_report,
    records_for,
    results,
)
from tests.support.stackbot import BOT, Bot, open_pr, push, running_bot

pytestmark = pytest.mark.integration

#: Few, quick attempts: a delivery the receiver refuses is given up within a second.
QUICK_GIVE_UP = DeliverySettings(
    max_attempts=3, backoff_s=0.2, max_backoff_s=0.5, timeout_s=10.0, workers=4
)
#: What the receiver answers a delivery whose `X-Webhook-Secret` matches no accepted secret
#: (401 is for a delivery without the header; docs/operating.md).
WRONG_SECRET = 403


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with running_bot(
        tmp_path_factory.mktemp("secret-rotation"), env=FAULT_ENV, delivery=QUICK_GIVE_UP
    ) as running:
        yield running


def set_hub_secret(bot: Bot, secret: str) -> None:
    """Change the secret of the bot's webhook on the Hub, as its owner would (settings API)."""
    api = bot.api(BOT)
    (hook,) = api.list_webhooks()
    api.update_webhook(
        hook.id,
        url=hook.url,
        watched=[{"type": item.type, "name": item.name} for item in hook.watched],
        domains=list(hook.domains),
        secret=secret,
    )


def attempts_by_delivery(bot: Bot, num: int) -> dict[str, list[DeliveryRecord]]:
    attempts: dict[str, list[DeliveryRecord]] = {}
    for record in records_for(bot, num):
        attempts.setdefault(record.delivery_id, []).append(record)
    return attempts


def accepted_at_once(bot: Bot, num: int) -> None:
    for records in attempts_by_delivery(bot, num).values():
        assert [(r.outcome, r.status) for r in records] == [("delivered", 202)], records


def test_old_and_new_secret_during_the_window_then_only_the_new_one(bot: Bot) -> None:
    """Invariant: during a rotation window both secrets are accepted and each delivery runs
    once; after it, a delivery with the old secret is refused (403) on every attempt and
    nothing runs; once the Hub webhook carries the new secret, the Hub's replay of the refused
    delivery is processed exactly once, and so is the Hub's next delivery: one report, for the
    PR's latest head."""
    old = bot.stack.secret
    new = "rotated-" + secrets.token_urlsafe(24)

    # Step 1: receivers accept both; the Hub still sends the old secret, then the new one.
    bot.stack.restart_receiver(
        {"EVALBOT_WEBHOOK_SECRET": new, "EVALBOT_WEBHOOK_SECRET_PREVIOUS": old}
    )
    runs = bot.runs()
    signed_old = open_pr(bot, results(52.5))
    bot.wait_for_report(signed_old[0], head=signed_old[1])
    set_hub_secret(bot, new)
    signed_new = open_pr(bot, results(53.5))
    bot.wait_for_report(signed_new[0], head=signed_new[1])
    bot.wait_until_quiet()
    for num, head in (signed_old, signed_new):
        accepted_at_once(bot, num)
        assert_one_report(bot, num, head)
    assert bot.runs() - runs == 2

    # Step 3: the window closed (receiver restarted with the new secret only), while a Hub
    # webhook still sends the old one (say, step 2 was skipped for it).
    bot.stack.restart_receiver({"EVALBOT_WEBHOOK_SECRET": new})
    set_hub_secret(bot, old)
    runs = bot.runs()
    num, head = open_pr(bot, results(54.5))
    bot.wait_until_quiet()  # every attempt refused, the deliveries given up
    refused = attempts_by_delivery(bot, num)
    assert len(refused) == 2, refused  # the discussion and its refs/pr/N ref
    for records in refused.values():
        assert [r.status for r in records] == [WRONG_SECRET] * QUICK_GIVE_UP.max_attempts
        assert records[-1].outcome == "failed"
    assert bot.runs() == runs
    assert bot.bot_comments(num) == []
    assert bot.queue_drained()

    # The Hub webhook is given the new secret; the owner replays the refused deliveries
    # (Activity tab: same Webhook-Id, the current secret).
    set_hub_secret(bot, new)
    for delivery_id in refused:
        bot.stack.hub.emulator.dispatcher.replay(delivery_id)
    bot.wait_for_report(num, head=head)
    bot.wait_until_quiet()
    after = attempts_by_delivery(bot, num)
    for delivery_id in refused:  # (the bot's own comment made a third, ignored, delivery)
        replayed = after[delivery_id][QUICK_GIVE_UP.max_attempts :]
        assert [(r.outcome, r.status) for r in replayed] == [("delivered", 202)], replayed
    wait_until(lambda: bot.runs() - runs >= 1, timeout=10, what="the run to be counted")
    assert bot.runs() - runs == 1
    assert_one_report(bot, num, head)

    # And the Hub's next delivery (a push to the PR) carries the new secret: accepted, run once.
    latest = push(bot, num, GPQA_PATH, GPQA_ENTRY.format(value=55.5))
    bot.wait_for_report(num, head=latest)
    bot.wait_until_quiet()
    assert bot.runs() - runs == 2
    assert_one_report(bot, num, latest)
    assert bot.parked() == []
