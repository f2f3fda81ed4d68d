"""The Hub misbehaving under the bot (docs/security.md#fault-injection item 6), end to end.

Faults are injected at the emulator's routes while a real worker processes real PRs. Each test
checks the final state on the emulator: one report for the PR's head when the fault passes,
or the event parked (not retried in a loop) when retrying cannot help.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.faults import RouteFault
from tests.faults.conftest import (
    Stopwatch,
    assert_one_report,
    fault_bot,
    results,
    route_count,
)
from tests.support.emulator import TOKENS
from tests.support.stackbot import Bot, open_pr

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    # A Hub request unanswered for 1 s fails (transient) and is retried.
    with fault_bot(tmp_path_factory, "hub", workers=1, env={"EVALBOT_HUB_TIMEOUT": "1"}) as running:
        yield running


@pytest.fixture(autouse=True)
def _no_faults(bot: Bot) -> Iterator[None]:
    yield
    bot.stack.hub.faults.clear()


def parked_for(bot: Bot, num: int) -> list[dict[str, object]]:
    return [p for p in bot.parked() if p["event"]["pr_num"] == num]


def test_rate_limits_are_waited_out_and_5xx_bursts_retried(bot: Bot) -> None:
    """Invariant: a 429 with `RateLimit: "api";r=0;t=2` is retried no sooner than the Hub
    asked, a burst of 5xx on the comment is retried with backoff; one report at the end."""
    faults = bot.stack.hub.faults
    faults.add_rule(RouteFault("discussions.details", status=429, times=1, reset_s=2))
    faults.add_rule(RouteFault("discussions.comment", status=502, times=1))
    faults.add_rule(RouteFault("discussions.comment", status=503, times=1))
    faults.add_rule(RouteFault("discussions.comment", status=504, times=1))
    before = route_count(bot, "discussions.details")
    clock = Stopwatch()
    num, head = open_pr(bot, results(50.5))
    bot.wait_for_report(num, head=head, timeout=60)
    assert clock.elapsed() >= 2.0  # the rate-limit window was waited out
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    # No hot loop: one details read per run (4 failed runs, 1 good), plus the PR's second
    # event (its push) and its retries at most.
    assert route_count(bot, "discussions.details") - before <= 8
    assert parked_for(bot, num) == []


def test_a_hub_that_stops_answering_is_timed_out_and_retried(bot: Bot) -> None:
    """Invariant (§7(b) 6, read timeouts): a Hub request that gets no answer fails after
    `EVALBOT_HUB_TIMEOUT` (1 s here) as transient, and the run is retried with backoff: the
    PR gets its one report once the Hub answers again, nothing is parked. Without the
    timeout `huggingface_hub` would wait for ever, until the task's soft time limit."""
    faults = bot.stack.hub.faults
    faults.add_rule(RouteFault("discussions.details", latency_s=3.0))
    retries = bot.stats().get("retry:hub-transient", 0)
    num, head = open_pr(bot, results(50.0))
    wait_until(
        lambda: bot.stats().get("retry:hub-transient", 0) > retries,
        timeout=30,
        what="a timed-out Hub read to be retried",
    )
    faults.clear()
    bot.wait_for_report(num, head=head, timeout=30)
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    assert parked_for(bot, num) == []


def test_a_truncated_json_200_is_retried_not_parked(bot: Bot) -> None:
    """Invariant: a 200 whose JSON body was cut off (a proxy, a reset connection) is a
    transient failure: the run is retried and the PR gets its report, not a parked event."""
    bot.stack.hub.faults.add_rule(RouteFault("discussions.details", truncate=True, times=1))
    num, head = open_pr(bot, results(51.5))
    bot.wait_for_report(num, head=head, timeout=30)
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    assert parked_for(bot, num) == []


def test_a_file_gone_between_webhook_and_fetch_is_read_again(bot: Bot) -> None:
    """Invariant: a 404 for a results file at the head the PR details named (deleted by a
    force-push in between) does not drop the PR: the run re-reads the PR and reports."""
    bot.stack.hub.faults.add_rule(RouteFault("files.resolve", status=404, times=1))
    num, head = open_pr(bot, results(52.5))
    bot.wait_for_report(num, head=head, timeout=30)
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    assert parked_for(bot, num) == []


def test_a_revoked_token_parks_the_event_without_retrying(bot: Bot) -> None:
    """Invariant: 401 after the bot's token was revoked is permanent: the event is parked at
    once (one request, no retry loop), visible with its reason, and nothing is posted."""
    state = bot.stack.hub.state
    token = state.tokens.pop(TOKENS["evalbot"])
    try:
        clock = Stopwatch()
        num, _ = open_pr(bot, results(53.5))
        parked = wait_until(lambda: parked_for(bot, num), timeout=30, what="the event parked")
        assert clock.elapsed() < 5  # at once, not after a round of backoffs
        bot.wait_until_quiet()
    finally:
        state.tokens[TOKENS["evalbot"]] = token
    assert len(parked) == 1
    assert parked[0]["reason"] == "hub-refused"
    assert "401" in str(parked[0]["detail"])
    assert len(parked_for(bot, num)) == 1  # parked once, not retried into more
    assert bot.bot_comments(num) == []
    # Visible where operators look: the receiver's /metrics reads the workers' counts.
    metrics = httpx.get(f"{bot.stack.receiver_url}/metrics", timeout=5).text
    assert 'evalbot_worker_parked_total{reason="hub-refused"} 1.0' in metrics
    assert "evalbot_dead_letters 1.0" in metrics
    bot.redis.delete("evalbot:dead-letters")


def test_a_comment_post_that_times_out_after_the_hub_accepted_it_is_not_posted_twice(
    bot: Bot,
) -> None:
    """Invariant: the Hub applied the comment but the bot saw a 504: the retry finds the report
    by its hidden marker and does not post a second one."""
    bot.stack.hub.faults.add_rule(
        RouteFault("discussions.comment", status=504, after_write=True, times=1, latency_s=0.5)
    )
    before = bot.stats()
    num, head = open_pr(bot, results(54.5))
    bot.wait_for_outcome("unchanged", before, timeout=30)
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    assert route_count(bot, "discussions.comment") >= 1
    assert parked_for(bot, num) == []
