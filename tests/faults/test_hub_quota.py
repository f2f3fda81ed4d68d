"""A burst of PRs past the Hub's API quota, end to end: paced by one shared pause, not parked.

The emulator counts the bot's `/api` calls in fixed windows (9 per 2 s here, the Hub's rule
with its numbers shrunk: docs/hub-api.md#rate-limits) and answers 429 with `RateLimit:
"api";r=0;t=<reset>` past the quota. Each PR costs the bot 3 `/api` calls (the PR's details, the
benchmark's revision, the comment) and one `/resolve` (another bucket, not limited here), so the
burst below needs at least ceil(3 x PRS / QUOTA) windows.

Why the 429s are bounded by the workers, not by the PRs: the first run told to wait pauses
every worker (`workers.hub_pause`) until after the window's reset (`t` + 1 s), and a run that
starts during the pause calls nothing. So within a window that runs out, a 429 is drawn only
by a run already under way when it ran out: at most one per pool slot (`SLOTS`; a run that
starts in the milliseconds between the first 429 and the pause being set is the only way
past this, and it takes a slot too). A window runs out only after QUOTA calls went through,
and those are the burst's own calls (CALLS x PRS) plus the ones a run spent before its 429
and must spend again (at most 2 per 429). With W windows running out and at most SLOTS x W
429s: QUOTA x W <= CALLS x PRS + 2 x SLOTS x W, so W <= CALLS x PRS / (QUOTA - 2 x SLOTS)
and the 429s <= SLOTS x W: 12 here, whatever the retries do. Without the shared pause every
queued event draws its own 429 on each of its retries, and they come back together at the
reset: the pre-pause code drew 16 to 23 (six runs) on this test, this code 3 to 8 (ten runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import pytest

from evalbot_dev.emulator.faults import Quota
from tests.faults.conftest import GPQA_ENTRY, GPQA_PATH, Stopwatch, assert_one_report, fault_bot
from tests.support.emulator import open_state_pr
from tests.support.stackbot import Bot

pytestmark = pytest.mark.integration

PRS = 10
QUOTA = 9
WINDOW_S = 2
API_CALLS_PER_PR = 3  # CALLS in the docstring
WORKERS = 1
CONCURRENCY = 2
SLOTS = WORKERS * CONCURRENCY


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with fault_bot(tmp_path_factory, "quota", workers=WORKERS, concurrency=CONCURRENCY) as running:
        yield running


def test_a_burst_past_the_api_quota_gets_every_report_with_few_429s(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    hub = bot.stack.hub
    hub.faults.set_quota(Quota(api=QUOTA, window_s=WINDOW_S))
    try:
        before = hub.rate_limited().get("api", 0)
        clock = Stopwatch()
        prs = [
            open_state_pr(hub, "alice", {GPQA_PATH: GPQA_ENTRY.format(value=60 + n).encode()})
            for n in range(PRS)
        ]
        for num, head in prs:
            bot.wait_for_report(num, head=head, timeout=90)
        elapsed = clock.elapsed()
        bot.wait_until_quiet(timeout=60)
        drawn = hub.rate_limited().get("api", 0) - before
    finally:
        hub.faults.clear()
    record_figure("quota burst: seconds to the last report", elapsed)
    record_figure("quota burst: 429s drawn", drawn)
    record_figure("quota burst: throttled retries", bot.stats().get("retry:hub-throttled", 0))
    for num, head in prs:
        assert_one_report(bot, num, head)
    assert bot.parked() == []
    # The bound of the module docstring: at most `windows` windows run out, SLOTS 429s each.
    windows = math.floor(API_CALLS_PER_PR * PRS / (QUOTA - 2 * SLOTS))
    assert drawn <= SLOTS * windows, (drawn, elapsed, bot.stats())
    assert bot.stats().get("retry:hub-throttled", 0) >= 1  # the quota did bite
