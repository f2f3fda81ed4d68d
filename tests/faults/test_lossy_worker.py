"""Why `task_reject_on_worker_lost` is on (docs/security.md#fault-injection item 4): a documenting
test.

The stack runs one worker started from `tests/faults/lossy_worker.py`: the production worker
with only that flag off (Celery's default). Its pool process is SIGKILLed mid-task (an OOM
kill), while an emulator latency fault holds the task's first Hub read open. With the flag
off, Celery acknowledges the message of a task whose process died: the event is gone from
Redis and the PR never gets a report. The same kill with the production worker (flag on) is
requeued and reported once: `test_worker_faults.py::test_a_poison_event_that_kills_its_worker_\
is_parked_after_three_runs` (requeued at once, three times) and `docs/reliability.md`.
Reconciliation, which lists open PRs whose head has no verdict, brings such a PR back.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator

import pytest

from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.faults import RouteFault
from tests.faults.conftest import (
    Stopwatch,
    assert_one_report,
    fault_bot,
    live_workers,
    pool_children,
    results,
    route_count,
    run_reconciliation_once,
    wait_for_request,
)
from tests.support.emulator import MODEL
from tests.support.stackbot import Bot, open_pr

pytestmark = pytest.mark.integration

LOSSY_WORKER = "tests.faults.lossy_worker"


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with fault_bot(
        tmp_path_factory,
        "lossy",
        workers=0,
        concurrency=1,
        watched_repos=[MODEL],  # for reconciliation
    ) as running:
        running.stack.start_worker(module=LOSSY_WORKER)
        yield running


def worker_log(bot: Bot) -> str:
    return (bot.stack.work_dir / "worker0.log").read_text(errors="replace")


def test_a_killed_pool_process_loses_its_task_without_reject_on_worker_lost(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant documented (the failure the production setting prevents): with
    `task_reject_on_worker_lost` off, SIGKILLing the pool process mid-task acknowledges the
    message: the queue is empty, nothing is unacked (so nothing can be redelivered), no run
    ends, no report is posted. One reconciliation run then queues the PR again and it gets
    its one report."""
    faults = bot.stack.hub.faults
    faults.add_rule(RouteFault("discussions.details", latency_s=3.0))
    (worker,) = live_workers(bot)
    runs = bot.runs()
    before = route_count(bot, "discussions.details")
    num, head = open_pr(bot, results(49.5))
    wait_for_request(bot, "discussions.details", before)  # the task is running
    assert bot.redis.hlen("unacked") == 1  # acks_late: its message is reserved, not acked
    for child in pool_children(worker.pid):
        os.kill(child, signal.SIGKILL)
    faults.clear()

    # Celery acknowledges the message of the dead task: nothing left to redeliver, ever.
    wait_until(bot.queue_drained, timeout=30, what="the lost task's message to be acked")
    bot.wait_for_deliveries()
    wait_until(
        lambda: "WorkerLostError" in worker_log(bot), timeout=30, what="Celery's WorkerLostError"
    )
    assert worker.poll() is None  # the worker lives on (a new pool process), idle
    assert bot.queue_drained()
    assert bot.runs() == runs
    assert bot.bot_comments(num) == []
    assert bot.parked() == []

    # Reconciliation finds the open PR whose head has no verdict and queues it again.
    catchup = bot.stats().get("catchup:queued", 0)
    clock = Stopwatch()
    run_reconciliation_once(bot)
    bot.wait_for_report(num, head=head, timeout=30)
    record_figure("report_s_after_one_reconciliation_run", clock.elapsed())
    bot.wait_until_quiet()
    assert bot.stats().get("catchup:queued", 0) - catchup == 1
    assert bot.runs() - runs == 1
    assert_one_report(bot, num, head)
