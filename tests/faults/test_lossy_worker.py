"""A message Celery drops is not an event lost: the ledger sends it again
(docs/security.md#fault-injection item 4, docs/reliability.md "The ledger").

The stack runs one worker started from `tests/faults/lossy_worker.py`: the production worker
with `task_reject_on_worker_lost` off (Celery's default). Its pool process is SIGKILLed
mid-task (an OOM kill), while an emulator latency fault holds the task's first Hub read open.
With the flag off, Celery acknowledges the message of a task whose process died: nothing is
left in the queue or unacked, so Celery alone would never run it again (before the ledger,
the PR waited for reconciliation). The event's ledger entry stays, and a sweep sends it again
once due: one report, nothing parked. The same kill with the production worker (flag on) is
requeued by Celery at once: `test_worker_faults.py`.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator

import pytest

from bot.queue.publishing import GRACE_S, SWEEP_EVERY_S
from bot.store.keys import LEDGER
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


def test_a_killed_pool_process_acked_by_celery_is_sent_again_by_the_ledger(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: with `task_reject_on_worker_lost` off, SIGKILLing the pool process mid-task
    acknowledges the message (the queue is empty, nothing is unacked, no run ended, no
    report), and the ledger still brings the event back: one run, one report, nothing parked,
    within the ledger's grace and sweep interval of the run's start."""
    faults = bot.stack.hub.faults
    faults.add_rule(RouteFault("discussions.details", latency_s=3.0))
    (worker,) = live_workers(bot)
    runs = bot.runs()
    recovered = bot.stats().get("recovered:overdue", 0)
    before = route_count(bot, "discussions.details")
    num, head = open_pr(bot, results(49.5))
    wait_for_request(bot, "discussions.details", before)  # the task is running
    assert bot.redis.hlen("unacked") == 1  # acks_late: its message is reserved, not acked
    for child in pool_children(worker.pid):
        os.kill(child, signal.SIGKILL)
    clock = Stopwatch()
    faults.clear()

    # Celery acknowledges the message of the dead task: nothing left for Celery to redeliver.
    wait_until(
        lambda: celery_has_nothing(bot), timeout=30, what="the lost task's message to be acked"
    )
    bot.wait_for_deliveries()
    wait_until(
        lambda: "WorkerLostError" in worker_log(bot), timeout=30, what="Celery's WorkerLostError"
    )
    assert worker.poll() is None  # the worker lives on (a new pool process)
    assert bot.runs() == runs
    assert bot.bot_comments(num) == []
    assert bot.redis.zcard(LEDGER) == 1  # ... but the event is still in the ledger

    bot.wait_for_report(num, head=head, timeout=GRACE_S + SWEEP_EVERY_S + 30)
    record_figure("report_s_after_a_message_celery_dropped", clock.elapsed())
    bot.wait_until_quiet()
    assert bot.stats().get("recovered:overdue", 0) - recovered == 1
    assert bot.runs() - runs == 1
    assert_one_report(bot, num, head)
    assert bot.parked() == []


def celery_has_nothing(bot: Bot) -> bool:
    return bot.redis.llen("evalbot") == 0 and bot.redis.hlen("unacked") == 0
