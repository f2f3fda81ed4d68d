"""A worker SIGKILLed during a burst, at production timeouts.

Before: the messages the dead worker held (running, reserved) stayed in kombu's `unacked` hash until
the visibility timeout, 900 s by default, so their PRs got their report ~15 min after the kill. Now
their events stay in the ledger, and a live worker's sweep sends them again once overdue
(bot/queue/publishing.py, workers/heartbeat_and_sweep.py). The stack here runs the production
visibility timeout and task limits and the ledger's own bounds, so nothing but the ledger's sweep
can bring the dead worker's PRs back within the test's deadline. The recovery time is printed and,
with `EVALBOT_FAULT_FIGURES`, recorded (docs/reliability.md); only the generous 2-minute deadline
the issue sets is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.faults import RouteFault
from tests.faults.conftest import (
    Stopwatch,
    assert_one_report,
    fault_bot,
    kill_worker,
    results,
    route_count,
)
from tests.support.stackbot import Bot, open_pr

pytestmark = pytest.mark.integration

#: What the issue asks: a dead worker's PR gets its report within 2 minutes by default.
DEADLINE_S = 120.0
BURST = 30


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with fault_bot(tmp_path_factory, "dead-worker", tuning={}, workers=2, concurrency=2) as running:
        yield running


def test_a_worker_killed_mid_burst_has_its_prs_reported_within_two_minutes(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: SIGKILL of a worker (its whole process group) while it runs and holds
    events of a 30-PR burst, restarted at once: every PR gets exactly one report, within
    2 minutes of the kill, with the visibility timeout at 900 s; nothing is parked."""
    faults = bot.stack.hub.faults
    # Each PR read is slowed, so the burst is still running when the kill lands.
    faults.add_rule(RouteFault("discussions.details", latency_s=1.0, times=None))
    before = route_count(bot, "discussions.details")
    opened = [open_pr(bot, results(30.0 + index / 10)) for index in range(BURST)]
    wait_until(
        lambda: route_count(bot, "discussions.details") >= before + 4,
        timeout=60,
        what="both workers to be mid-run",
    )
    kill_worker(bot, 0)
    clock = Stopwatch()
    bot.stack.start_worker()
    faults.clear()

    def all_reported() -> bool:
        return all(
            any(f"evalbot:head={head}" in c.content for c in bot.bot_comments(num))
            for num, head in opened
        )

    wait_until(all_reported, timeout=DEADLINE_S, interval=0.2, what="every PR's report")
    recovery = clock.elapsed()
    print(f"\nall {BURST} PRs reported {recovery:.1f} s after the worker was killed")
    record_figure("recovery_s_worker_killed_mid_burst_production_timeouts", recovery)
    bot.wait_until_quiet(timeout=60)
    for num, head in opened:
        assert_one_report(bot, num, head)
    assert bot.parked() == []
    assert bot.stats().get("recovered:overdue", 0) >= 1  # the ledger, not the timeout
