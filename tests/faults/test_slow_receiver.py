"""A receiver whose enqueue answers after the Hub gave up (docs/security.md#fault-injection item
10).

The receiver reaches Redis through `DelayProxy` (tests/support/delay_proxy.py), the workers
directly; the test arms a one-shot delay on Redis's next reply, so the receiver's enqueue
script runs in Redis at once but its answer comes late. The figures are scaled down from the
item's (a 15 s delay against a 10 s delivery timeout) to keep the suite short, with the same
order: the delay (4 s) exceeds the Hub emulator's delivery timeout (1 s). Two variants:

- the receiver waits longer than the delay (`bot.store.REDIS_TIMEOUT_S` set to 6 s): its
  enqueue returns late, the Hub's attempt has timed out already and it retries;
- the receiver waits less (0.5 s, below the delay, as the production value 2 s is below
  15 s): it answers 503 although Redis executed the enqueue.

Either way the retry must be a duplicate: one run, one report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.queue.publishing import ACCEPT_SCRIPT, GRACE_S, SWEEP_EVERY_S
from evalbot_dev.emulator.delivery import DeliveryRecord, DeliverySettings
from tests.faults.conftest import (
    FAULT_ENV,
    FAULT_TUNING,
    Stopwatch,
    assert_one_report,
    records_for,
    results,
)
from tests.support.delay_proxy import DelayProxy, running_delay_proxy
from tests.support.stackbot import Bot, open_pr, running_bot
from tests.support.tuning import tuned

pytestmark = pytest.mark.integration

#: The Hub emulator gives up on an attempt after this long, then retries (fast backoff).
HUB_TIMEOUT_S = 1.0
SLOW_HUB = DeliverySettings(
    max_attempts=12, backoff_s=0.2, max_backoff_s=1.0, timeout_s=HUB_TIMEOUT_S, workers=4
)
#: How long Redis's reply to the receiver's enqueue is held: above the Hub's timeout.
DELAY_S = 4.0


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with running_bot(
        tmp_path_factory.mktemp("slow-receiver"), env=FAULT_ENV, delivery=SLOW_HUB
    ) as running:
        yield running


@pytest.fixture(scope="module")
def proxy(bot: Bot) -> Iterator[DelayProxy]:
    assert bot.stack.redis is not None
    with running_delay_proxy(bot.stack.redis.port) as running:
        yield running


def receiver_through_proxy(bot: Bot, proxy: DelayProxy, redis_timeout_s: float) -> None:
    """Restart the receiver so that it (and only it) talks to Redis through the proxy."""
    bot.stack.restart_receiver(
        {
            "REDIS_URL": proxy.url_for(bot.stack.redis_url),
            **tuned({**FAULT_TUNING, "bot.store.REDIS_TIMEOUT_S": redis_timeout_s}),
        }
    )


def attempts_by_delivery(bot: Bot, num: int) -> dict[str, list[DeliveryRecord]]:
    attempts: dict[str, list[DeliveryRecord]] = {}
    for record in records_for(bot, num):
        attempts.setdefault(record.delivery_id, []).append(record)
    return attempts


def receiver_metric(bot: Bot, sample_name: str, **labels: str) -> float:
    """One sample of the receiver's `/metrics` (0 when absent)."""
    text = httpx.get(f"{bot.stack.receiver_url}/metrics", timeout=10).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == sample_name and all(
                sample.labels.get(k) == v for k, v in labels.items()
            ):
                return float(sample.value)
    return 0.0


def run_slow_enqueue(bot: Bot, proxy: DelayProxy) -> tuple[int, str, float]:
    """Open a PR with Redis's next reply to the receiver held back; returns the PR, its head
    and the seconds until its report was posted."""
    bot.wait_until_quiet()
    runs = bot.runs()
    applied = len(proxy.delays_applied)
    # The receiver's script must be cached in Redis: a held NOSCRIPT reply would hold an
    # enqueue that never ran (the receiver's first call after a Redis start is EVALSHA).
    bot.redis.script_load(ACCEPT_SCRIPT)
    proxy.delay_next_reply(DELAY_S, after=b"EVALSHA")
    clock = Stopwatch()
    num, head = open_pr(bot, results(50.5))
    # Answered 503 after the script ran, the receiver never sent the message: the ledger does,
    # once the event is overdue.
    bot.wait_for_report(num, head=head, timeout=GRACE_S + SWEEP_EVERY_S + 30)
    elapsed = clock.elapsed()
    bot.wait_until_quiet()
    assert proxy.delays_applied[applied:] == [DELAY_S], "the delay was not applied"
    assert bot.runs() - runs == 1
    assert_one_report(bot, num, head)
    assert bot.parked() == []
    attempts = attempts_by_delivery(bot, num)
    assert attempts, "no delivery about the PR"
    for records in attempts.values():  # retried until accepted, then no more
        assert records[-1].outcome == "delivered", records
        assert records[-1].status == 202, records
        assert [r.status for r in records].count(202) == 1, records
    return num, head, elapsed


def test_an_enqueue_answered_after_the_hub_timeout_is_retried_and_runs_once(
    bot: Bot, proxy: DelayProxy, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: when the receiver's enqueue returns only after the Hub gave up on the attempt
    (Redis's reply held 4 s, Hub timeout 1 s, receiver Redis timeout 6 s), the Hub's retry is
    absorbed by the dedupe key the late enqueue wrote: one run, one report, every delivery
    accepted exactly once after its timed-out attempt."""
    receiver_through_proxy(bot, proxy, redis_timeout_s=DELAY_S + 2)
    num, _, elapsed = run_slow_enqueue(bot, proxy)
    attempts = attempts_by_delivery(bot, num)
    timed_out = [
        r
        for records in attempts.values()
        for r in records
        if r.status is None and "Timeout" in (r.error or "")
    ]
    assert timed_out, "no attempt timed out at the Hub"
    record_figure("hub_attempts_timed_out_slow_enqueue", len(timed_out))
    # The receiver did answer the held enqueue, late: queued once, never 503.
    assert receiver_metric(bot, "evalbot_receiver_deliveries_total", outcome="queued") == 1
    assert receiver_metric(bot, "evalbot_receiver_deliveries_total", outcome="unavailable") == 0
    assert receiver_metric(bot, "evalbot_receiver_enqueue_seconds_sum") >= DELAY_S
    record_figure("report_s_slow_enqueue_hub_timeout", elapsed)


def test_an_enqueue_done_in_redis_but_answered_503_is_retried_and_runs_once(
    bot: Bot, proxy: DelayProxy, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: when the receiver gives up on Redis before the held reply arrives (receiver
    Redis timeout 0.5 s, below the 4 s delay) it answers 503 although Redis executed the
    enqueue (ledger entry and dedupe key, atomically); the Hub's retry is then a duplicate,
    and the ledger sends the event once overdue: one run, one report, and no delivery was
    ever answered 202 `queued`."""
    receiver_through_proxy(bot, proxy, redis_timeout_s=0.5)
    num, _, elapsed = run_slow_enqueue(bot, proxy)
    statuses = [r.status for records in attempts_by_delivery(bot, num).values() for r in records]
    assert 503 in statuses, statuses
    record_figure("hub_attempts_503_slow_enqueue", statuses.count(503))
    assert receiver_metric(bot, "evalbot_receiver_deliveries_total", outcome="unavailable") >= 1
    assert receiver_metric(bot, "evalbot_receiver_deliveries_total", outcome="queued") == 0
    assert receiver_metric(bot, "evalbot_receiver_deliveries_total", outcome="duplicate") >= 1
    record_figure("report_s_slow_enqueue_receiver_503", elapsed)
