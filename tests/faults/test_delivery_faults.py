"""Duplicate, replayed and reordered webhooks; token times skewed against the Hub's clock
(docs/security.md#fault-injection items 8 and 9), end to end through the receiver and a worker.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from evalbot_dev.devstack.workload import hle_entry
from evalbot_dev.emulator.delivery import DeliveryRecord
from evalbot_dev.emulator.faults import WebhookFaults
from tests.faults.conftest import (
    GPQA_ENTRY,
    GPQA_PATH,
    HLE_PATH,
    assert_one_report,
    fault_bot,
    results,
)
from tests.support.emulator import MODEL
from tests.support.stackbot import SAMPLE_BENCHMARKS, Bot, open_pr, push

pytestmark = pytest.mark.integration

#: The issuer's token lifetime (`LocalIssuer.token_for`).
TOKEN_LIFETIME_S = 900


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with fault_bot(tmp_path_factory, "deliveries", workers=1, concurrency=2) as running:
        yield running


@pytest.fixture(autouse=True)
def _no_faults(bot: Bot) -> Iterator[None]:
    yield
    bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults())
    bot.stack.hub.emulator.dispatcher.flush_held()


def records_for(bot: Bot, num: int) -> list[DeliveryRecord]:
    return [
        r for r in bot.stack.hub.deliveries() if r.payload.get("discussion", {}).get("num") == num
    ]


def replay(bot: Bot, record: DeliveryRecord, *, with_id: bool = True) -> dict[str, Any]:
    """POST a delivery again, as the Hub's "replay" button (or a retry) would."""
    headers = {"Content-Type": "application/json", "X-Webhook-Secret": bot.stack.secret}
    if with_id:
        headers["Webhook-Id"] = record.delivery_id
    response = httpx.post(
        f"{bot.stack.receiver_url}/webhooks/hub",
        content=json.dumps(record.payload).encode(),
        headers=headers,
        timeout=10,
    )
    assert response.status_code == 202
    answer: dict[str, Any] = response.json()
    return answer


def test_the_same_delivery_three_times_at_once_and_in_turn_runs_once(bot: Bot) -> None:
    """Invariant: one `Webhook-Id` is queued once, however often and however concurrently it
    arrives (Hub retries, UI replays): no further run, one report."""
    num, head = open_pr(bot, results(60.5))
    bot.wait_for_report(num, head=head)
    bot.wait_until_quiet()
    runs = bot.runs()
    record = next(r for r in records_for(bot, num) if r.outcome == "delivered")
    with ThreadPoolExecutor(max_workers=3) as pool:
        answers = list(pool.map(lambda _: replay(bot, record), range(3)))
    answers += [replay(bot, record) for _ in range(3)]
    assert {answer["status"] for answer in answers} == {"duplicate"}
    bot.wait_until_quiet()
    assert bot.runs() == runs
    assert_one_report(bot, num, head)


def test_a_replay_without_webhook_id_reruns_at_most_and_posts_nothing_new(bot: Bot) -> None:
    """Invariant: a replay the receiver cannot recognise (no `Webhook-Id`: an older Hub) may be
    run again, and that run changes nothing: one report, same content."""
    num, head = open_pr(bot, results(61.5))
    report = bot.wait_for_report(num, head=head)
    bot.wait_until_quiet()
    record = next(r for r in records_for(bot, num) if r.outcome == "delivered")
    for _ in range(2):
        replay(bot, record, with_id=False)
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    assert bot.bot_comments(num)[0].content == report.content


def test_reordered_deliveries_end_on_the_latest_head(bot: Bot) -> None:
    """Invariant: deliveries that arrive newest first (the push before the PR-open event) still
    leave one report, for the PR's latest head; an older event never overwrites it."""
    dispatcher = bot.stack.hub.emulator.dispatcher
    dispatcher.set_faults(WebhookFaults(reorder_window=4))
    num, _ = open_pr(bot, results(62.5))
    push(bot, num, GPQA_PATH, GPQA_ENTRY.format(value=63.5))
    latest = push(bot, num, GPQA_PATH, GPQA_ENTRY.format(value=64.5))
    dispatcher.flush_held()
    report = bot.wait_for_report(num, head=latest, timeout=30)
    dispatcher.set_faults(WebhookFaults())  # releases what the bot's own comment triggered
    bot.wait_until_quiet()
    assert "64.5" in report.content
    assert_one_report(bot, num, latest)


def test_duplicated_deliveries_during_a_burst_double_nothing(bot: Bot) -> None:
    """Invariant: when every delivery of a burst arrives twice, concurrently (four sender
    threads), each PR still gets exactly one report and each event one run."""
    bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults(duplicate_rate=1.0, seed=7))
    before = bot.stats()
    opened = [open_pr(bot, results(70 + index)) for index in range(4)]
    for num, head in opened:
        bot.wait_for_report(num, head=head)
    bot.wait_until_quiet()
    for num, head in opened:
        assert_one_report(bot, num, head)
    posted = bot.stats().get("outcome:posted", 0) - before.get("outcome:posted", 0)
    assert posted == len(opened)


def hle_with_token(bot: Bot, value: float, issued_at: int) -> str:
    entry = hle_entry(value)
    token = bot.issuer.token_for(
        entry, 0, model_repo=MODEL, benchmarks=SAMPLE_BENCHMARKS, issued_at=issued_at
    )
    return entry + f"  verify_token: {token}\n"


def hub_commit_time(bot: Bot, head: str) -> float:
    commits = bot.api("alice").list_repo_commits(MODEL, revision=head)
    return float(commits[0].created_at.timestamp())


@pytest.mark.parametrize(
    ("offset_s", "verdict"),
    [
        (29, "verified"),  # issued 29 s "in the future": within the 30 s leeway
        (31, "not-yet-valid"),
        (300, "not-yet-valid"),
        (-(TOKEN_LIFETIME_S + 29), "verified"),  # expired 29 s before the commit: leeway
        (-(TOKEN_LIFETIME_S + 31), "expired"),
        (-(TOKEN_LIFETIME_S + 300), "expired"),
    ],
)
def test_token_times_skewed_against_the_hub_commit_time(
    bot: Bot, offset_s: int, verdict: str
) -> None:
    """Invariant: freshness is judged at the Hub's time of the commit that carried the token,
    with 30 s leeway on both ends: a signer clock 29 s off is accepted, 31 s or 5 min off is
    rejected with the reason a user can look up, whatever the worker's own clock says."""
    # Rounded up: the commit lands a few ms after `sent_at`, so the token's times sit within
    # a fraction of a second of the intended offset from the Hub's commit time, on its side.
    issued_at = math.ceil(time.time()) + offset_s
    value = 80 + abs(offset_s) % 17
    text = hle_with_token(bot, value, issued_at=issued_at)
    num, head = open_pr(bot, {HLE_PATH: text})
    report = bot.wait_for_report(num, head=head)
    # The token's times relative to the Hub's commit time decide; check the test set them up
    # on the intended side of the leeway.
    skew = issued_at - hub_commit_time(bot, head)
    if offset_s > 0:
        assert (skew <= 30) == (verdict == "verified"), skew
    else:
        assert (-(skew + TOKEN_LIFETIME_S) <= 30) == (verdict == "verified"), skew
    if verdict == "verified":
        assert "✅ verified" in report.content
    else:
        assert "✅ verified" not in report.content
        assert verdict in report.content
    assert_one_report(bot, num, head)
