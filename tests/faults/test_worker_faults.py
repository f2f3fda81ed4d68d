"""Workers killed, stopped and crashed mid-task (docs/security.md#fault-injection items 3, 4, 5 and
13).

Each test kills or stops real `evalbot worker` processes while a slowed Hub request of theirs
is in flight (an emulator latency fault holds the request open, so the kill lands at a known
point of the pipeline), then checks the emulator's final state: one report per PR, for its
latest head, nothing lost, and parked events only where the test expects them.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator

import pytest

from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.faults import RouteFault
from tests.faults.conftest import (
    VISIBILITY_TIMEOUT_S,
    Stopwatch,
    assert_one_report,
    ensure_one_worker,
    fault_bot,
    kill_group,
    kill_worker,
    live_workers,
    pool_children,
    results,
    route_count,
    wait_for_request,
)
from tests.support.stackbot import Bot, open_pr

pytestmark = pytest.mark.integration

#: A redelivered task runs within the visibility timeout plus kombu's restore sweep (1 s
#: here) plus the run itself; anything beyond this margin is a bug, not a slow machine.
RECOVERY_MARGIN_S = 8.0


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with fault_bot(tmp_path_factory, "workers", workers=1, concurrency=1) as running:
        yield running


@pytest.fixture(autouse=True)
def _clean(bot: Bot) -> Iterator[None]:
    ensure_one_worker(bot)
    yield
    bot.stack.hub.faults.clear()
    for worker in live_workers(bot):  # a SIGSTOPped worker must not outlive its test
        os.killpg(worker.pid, signal.SIGCONT)
    ensure_one_worker(bot)


def kill_and_recover(
    bot: Bot, rule: RouteFault, route: str, ready_to_kill: Callable[[int], bool] | None = None
) -> tuple[int, str, float]:
    """Open a PR, SIGKILL the worker's process group while its `route` request is held open by
    `rule`, start a fresh worker; returns the PR, its head and the seconds until the PR's
    report was final again (measured from the kill)."""
    faults = bot.stack.hub.faults
    faults.add_rule(rule)
    before = route_count(bot, route)
    runs_before = bot.runs()
    num, head = open_pr(bot, results(41.5))
    wait_for_request(bot, route, before)
    if ready_to_kill is not None:
        wait_until(lambda: ready_to_kill(num), timeout=10, what="the kill point")
    kill_worker(bot)
    clock = Stopwatch()
    faults.clear()
    bot.stack.start_worker()
    bot.wait_for_report(num, head=head, timeout=VISIBILITY_TIMEOUT_S + RECOVERY_MARGIN_S)
    wait_until(lambda: bot.runs() > runs_before, timeout=30, what="the redelivered run to end")
    recovery = clock.elapsed()
    bot.wait_until_quiet()
    return num, head, recovery


def test_worker_killed_before_any_hub_write(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: a worker SIGKILLed while reading the PR (nothing written yet) loses nothing:
    the task is redelivered within the visibility timeout and the PR gets one report."""
    rule = RouteFault("discussions.details", latency_s=2.0)
    num, head, recovery = kill_and_recover(bot, rule, "discussions.details")
    assert_one_report(bot, num, head)
    assert bot.parked() == []
    assert recovery < VISIBILITY_TIMEOUT_S + RECOVERY_MARGIN_S
    record_figure("recovery_s_kill_before_write", recovery)


def test_worker_killed_after_the_verdict_before_the_comment(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: a worker SIGKILLed with its verdict computed and its comment POST not applied
    by the Hub (held, then refused) loses nothing: the rerun posts exactly one report."""
    rule = RouteFault("discussions.comment", latency_s=2.0, status=503, times=1)
    num, head, recovery = kill_and_recover(bot, rule, "discussions.comment")
    assert_one_report(bot, num, head)
    assert bot.parked() == []
    record_figure("recovery_s_kill_before_comment", recovery)


def test_worker_killed_after_the_comment(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: a worker SIGKILLed after the Hub applied its comment (the answer still in
    flight, the task not acked) does not post again: the rerun finds the report by its marker."""
    before = bot.stats()
    rule = RouteFault("discussions.comment", latency_s=2.0, status=504, after_write=True, times=1)
    num, head, recovery = kill_and_recover(
        bot, rule, "discussions.comment", ready_to_kill=lambda n: bool(bot.bot_comments(n))
    )
    assert_one_report(bot, num, head)
    after = bot.stats()
    assert after.get("outcome:unchanged", 0) - before.get("outcome:unchanged", 0) == 1
    assert after.get("outcome:posted", 0) == before.get("outcome:posted", 0)
    assert bot.parked() == []
    record_figure("recovery_s_kill_after_comment", recovery)


def test_a_poison_event_that_kills_its_worker_is_parked_after_three_runs(bot: Bot) -> None:
    """Invariant: an event whose run kills the worker's pool process every time (an OOM, say)
    is run a bounded number of times (3), then parked with its reason, never a hot loop; the
    PR gets no comment and the event is kept for an operator."""
    faults = bot.stack.hub.faults
    faults.add_rule(RouteFault("discussions.details", latency_s=3.0))
    (worker,) = live_workers(bot)
    before = route_count(bot, "discussions.details")
    num, _ = open_pr(bot, results(40.0))
    for attempt in range(3):
        wait_for_request(bot, "discussions.details", before + attempt)
        for child in pool_children(worker.pid):
            os.kill(child, signal.SIGKILL)

    def parked_event() -> dict[str, object] | None:
        return next((p for p in bot.parked() if p["event"]["pr_num"] == num), None)

    parked = wait_until(parked_event, timeout=30, what="the poison event to be parked")
    assert parked["reason"] == "worker-lost"
    bot.wait_until_quiet()
    assert route_count(bot, "discussions.details") - before == 3  # bounded: no fourth run
    assert bot.bot_comments(num) == []
    assert bot.stats().get("parked:worker-lost", 0) == 1
    bot.redis.delete("evalbot:dead-letters")  # the next tests expect an empty list


def test_sigterm_during_a_task_finishes_or_requeues_it(bot: Bot) -> None:
    """Invariant: SIGTERM (a deploy, `docker stop`) while a task runs does not lose it: the
    warm shutdown finishes it (or it is requeued and run by the next worker), one report."""
    faults = bot.stack.hub.faults
    faults.add_rule(RouteFault("discussions.comment", latency_s=2.0))
    (worker,) = live_workers(bot)
    before = route_count(bot, "discussions.comment")
    num, head = open_pr(bot, results(39.5))
    wait_for_request(bot, "discussions.comment", before)
    worker.send_signal(signal.SIGTERM)  # the main process only, as a container stop does
    worker.wait(timeout=30)
    bot.stack.start_worker()
    bot.wait_for_report(num, head=head, timeout=30)
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    assert bot.parked() == []


def test_a_task_outliving_the_visibility_timeout_runs_twice_and_posts_once(bot: Bot) -> None:
    """Invariant: when a task outlives the visibility timeout (its worker stalled: SIGSTOP),
    Redis hands it to another worker; when the first resumes, its run must not write (its
    lease is gone) and the PR still ends with one report for its head."""
    faults = bot.stack.hub.faults
    faults.add_rule(RouteFault("discussions.details", latency_s=1.0, times=None))
    (stalled,) = live_workers(bot)
    before = route_count(bot, "discussions.details")
    num, head = open_pr(bot, results(38.5))
    wait_for_request(bot, "discussions.details", before)
    kill_group(stalled, signal.SIGSTOP)
    faults.clear()
    bot.stack.start_worker()
    bot.wait_for_report(num, head=head, timeout=VISIBILITY_TIMEOUT_S + RECOVERY_MARGIN_S)
    ended = bot.runs() + bot.stats().get("retry:requeued", 0)
    running = set(pool_children(stalled.pid))
    kill_group(stalled, signal.SIGCONT)
    # The resumed run ends too, without writing: with an outcome, a retry after the lost lease,
    # a requeue when the soft time limit, overdue after the stall, fires in its failure path
    # (its message, already redelivered and acked, is then gone: no run follows), or its pool
    # process killed by the hard limit, overdue too, before the soft one's handling is done.
    wait_until(
        lambda: (
            bot.runs() + bot.stats().get("retry:requeued", 0) > ended
            or not running & set(pool_children(stalled.pid))
        ),
        timeout=30,
        what="the stalled run to end",
    )
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    assert bot.parked() == []


def test_a_task_hung_past_the_hard_time_limit_is_requeued_not_lost(bot: Bot) -> None:
    """Invariant: a task that hangs past the hard time limit (its pool process stopped, so not
    even the soft limit can interrupt it) is killed and requeued, not acked and dropped (the
    Celery default for time limits): the PR still gets its one report."""
    faults = bot.stack.hub.faults
    faults.add_rule(RouteFault("discussions.details", latency_s=1.0))
    (worker,) = live_workers(bot)
    before = route_count(bot, "discussions.details")
    num, head = open_pr(bot, results(37.5))
    wait_for_request(bot, "discussions.details", before)
    for child in pool_children(worker.pid):
        os.kill(child, signal.SIGSTOP)
    faults.clear()
    bot.wait_for_report(num, head=head, timeout=30)
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    assert bot.parked() == []


def test_a_pool_process_killed_once_is_requeued_by_its_parent(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: when only a worker's pool process dies (the kernel's OOM killer takes the
    biggest process, the child running the task), its parent requeues the task itself
    (`task_reject_on_worker_lost`) and runs it again with a fresh pool process: one report,
    nothing parked. How soon depends on billiard noticing the death: at once (about 0.15 s)
    when the child's exit is seen after its job acknowledgement, otherwise at the task's hard
    time limit (5 s here, `workers.app.TASK_TIME_LIMIT_S` in production), which also bounds it."""
    faults = bot.stack.hub.faults
    faults.add_rule(RouteFault("discussions.details", latency_s=2.0))
    (worker,) = live_workers(bot)
    before = route_count(bot, "discussions.details")
    num, head = open_pr(bot, results(36.5))
    wait_for_request(bot, "discussions.details", before)
    for child in pool_children(worker.pid):
        os.kill(child, signal.SIGKILL)
    clock = Stopwatch()
    faults.clear()
    bot.wait_for_report(num, head=head, timeout=VISIBILITY_TIMEOUT_S + RECOVERY_MARGIN_S)
    recovery = clock.elapsed()
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    assert bot.parked() == []
    assert worker.poll() is None  # the same worker ran it again, with a fresh pool process
    record_figure("recovery_s_pool_process_killed", recovery)
