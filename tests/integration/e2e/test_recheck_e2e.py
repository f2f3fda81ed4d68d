"""Rechecks end to end: real receiver, Redis, Celery worker, emulator.

Before: a maintainer's recheck with an unchanged verdict left the comment untouched (a heard
recheck looked like an ignored one); 50 rechecks from the owner in a burst were 50 full runs
(~153 Hub calls); 50 commands from a stranger, all ignored, cost 50 Hub calls. Hub calls are
counted with the emulator's per-route counters, minus the test's own comment posts.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from bot.queue.publishing import SWEEP_EVERY_S
from evalbot_dev.devstack.waiting import wait_until
from tests.integration.e2e.conftest import BOT, Bot
from tests.support.emulator import MODEL
from tests.support.stackbot import open_pr, running_bot
from tests.support.tuning import tuned

pytestmark = pytest.mark.integration

GPQA_PATH = ".eval_results/gpqa_mini.yaml"
GPQA = """\
- dataset:
    id: emulator-samples/gpqa-mini
    task_id: diamond
  value: {value}
"""
#: Short, so the coalesced run of a burst comes a few seconds later (production: 10 s).
RECHECK_INTERVAL_S = 3
BURST = 50


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    env = tuned({"bot.queue.enqueuer.RECHECK_INTERVAL_S": RECHECK_INTERVAL_S})
    with running_bot(
        tmp_path_factory.mktemp("recheck"), workers=1, concurrency=2, env=env
    ) as running:
        yield running


def hub_calls(bot: Bot, before: dict[str, int], own_comments: int) -> int:
    """The bot's Hub requests since `before`: every route's delta, minus the test's posts."""
    after = bot.stack.hub.counters()
    total = sum(after.get(route, 0) - before.get(route, 0) for route in after)
    return total - own_comments


def reported_pr(bot: Bot, value: float, user: str = "alice") -> int:
    num, head = open_pr(bot, {GPQA_PATH: GPQA.format(value=value)}, user=user)
    bot.wait_for_report(num, head=head)
    bot.wait_until_quiet()
    return num


def test_an_owners_recheck_with_an_unchanged_verdict_visibly_updates_the_comment(
    bot: Bot,
) -> None:
    num = reported_pr(bot, 41.0)
    (report,) = bot.bot_comments(num)
    assert "at the request of" not in report.content
    before = bot.stack.hub.counters()
    asked = bot.api("alice").comment_discussion(MODEL, num, f"@{BOT} recheck")
    updated = wait_until(
        lambda: next(
            (c for c in bot.bot_comments(num) if f"evalbot:recheck={asked.id}" in c.content),
            None,
        ),
        timeout=30,
        what="the report to name the recheck",
    )
    bot.wait_until_quiet()
    assert updated.id == report.id  # the same comment, edited in place
    assert "Checked again at the request of @alice" in updated.content
    # The verdict part is unchanged: only the footer's trace was added.
    assert updated.content.startswith(report.content.split("\n---\n")[0])
    calls = hub_calls(bot, before, own_comments=1)
    print(f"\none owner recheck, unchanged verdict: {calls} Hub calls")
    # The PR, its file, the benchmark's info and eval.yaml (when the pool process that runs the
    # recheck has not read them yet), the repo's visibility (recorded so the pages show nothing
    # of a private or gated repo), the edit.
    assert calls <= 6
    assert len(bot.bot_comments(num)) == 1


def test_a_burst_of_owner_rechecks_coalesces_into_a_few_runs(bot: Bot) -> None:
    num = reported_pr(bot, 42.0)
    before_calls = bot.stack.hub.counters()
    before_stats = bot.stats()
    api = bot.api("alice")
    asks = [api.comment_discussion(MODEL, num, f"@{BOT} recheck") for _ in range(BURST)]
    last = asks[-1].id
    wait_until(
        lambda: any(f"evalbot:recheck={last}" in c.content for c in bot.bot_comments(num)),
        timeout=60,
        what="the report to name the last recheck",
    )
    bot.wait_until_quiet(timeout=60)
    calls = hub_calls(bot, before_calls, own_comments=BURST)
    after = bot.stats()
    runs = sum(
        after.get(key, 0) - before_stats.get(key, 0) for key in after if key.startswith("outcome:")
    )
    print(f"\n{BURST} owner rechecks in a burst: {runs} runs, {calls} Hub calls")
    assert runs <= 4
    assert calls <= 10
    assert len(bot.bot_comments(num)) == 1


def test_commands_from_a_stranger_cost_no_hub_call(bot: Bot) -> None:
    """bob opened the PR (the bot read it then, and learned he is no maintainer of
    alice/model): his 50 commands are dropped by the receiver, no Hub call at all."""
    num = reported_pr(bot, 43.0, user="bob")
    before = bot.stack.hub.counters()
    before_stats = bot.stats()
    api = bot.api("bob")
    for index in range(BURST):
        api.comment_discussion(MODEL, num, f"@{BOT} {'recheck' if index % 2 else 'help'}")
    bot.wait_until_quiet()
    calls = hub_calls(bot, before, own_comments=BURST)
    after = bot.stats()
    runs = sum(
        after.get(key, 0) - before_stats.get(key, 0) for key in after if key.startswith("outcome:")
    )
    print(f"\n{BURST} commands from a known stranger: {runs} runs, {calls} Hub calls")
    assert calls == 0
    assert runs == 0
    (report,) = bot.bot_comments(num)
    assert "at the request of" not in report.content


def test_commands_from_a_stranger_never_seen_before_cost_a_run_or_two(bot: Bot) -> None:
    """dave never commented on the PR: the first command is decided by a worker (one read of
    the PR), which learns he is no maintainer; the rest are dropped or coalesced."""
    num = reported_pr(bot, 44.0)
    before = bot.stack.hub.counters()
    api = bot.api("dave")
    for _ in range(BURST):
        api.comment_discussion(MODEL, num, f"@{BOT} recheck")
    bot.wait_until_quiet()
    calls = hub_calls(bot, before, own_comments=BURST)
    print(f"\n{BURST} rechecks from a stranger never seen before: {calls} Hub calls")
    assert calls <= 3
    (report,) = bot.bot_comments(num)
    assert "at the request of" not in report.content


def test_readyz_workers_says_a_worker_is_consuming(bot: Bot) -> None:
    answer = httpx.get(f"{bot.stack.receiver_url}/readyz/workers", timeout=5)
    assert answer.status_code == 200
    body = answer.json()
    assert body["workers_alive"] == 1
    (worker,) = body["workers"]
    assert worker["alive"] is True
    # At most one heartbeat interval old (and a margin for a loaded machine).
    assert worker["last_heartbeat_age_s"] < SWEEP_EVERY_S + 5


def test_a_recheck_on_a_pr_without_results_posts_the_report_instead_of_silence(
    bot: Bot,
) -> None:
    num, head = open_pr(bot, {"notes.md": "no results here\n"})
    bot.wait_until_quiet()
    assert bot.bot_comments(num) == []
    asked = bot.api("alice").comment_discussion(MODEL, num, f"@{BOT} recheck")
    report = bot.wait_for_report(num, head=head)
    assert "No results to check" in report.content
    assert f"evalbot:recheck={asked.id}" in report.content
