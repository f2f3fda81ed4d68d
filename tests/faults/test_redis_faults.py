"""Redis down, restarted, full (docs/security.md#fault-injection items 1, 2, 11, 12 and 14).

The stack's redis-server runs with AOF (`appendfsync always` in the dev stack; production
compose uses `everysec`, see docs/reliability.md). Each test stops or restarts it while the
bot works and checks the emulator's final state: every PR has one report for its head, no
delivery was lost, nothing was processed twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import redis

from bot.store.keys import KOMBU_UNACKED
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.faults import RouteFault
from tests.faults.conftest import (
    Stopwatch,
    assert_one_report,
    fault_bot,
    live_workers,
    results,
    run_reconciliation_once,
)
from tests.support.emulator import MODEL
from tests.support.stackbot import Bot, open_pr

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with fault_bot(
        tmp_path_factory,
        "redis",
        workers=1,
        concurrency=2,
        watched_repos=[MODEL],  # for reconciliation
    ) as running:
        yield running


@pytest.fixture(autouse=True)
def _redis_up(bot: Bot) -> Iterator[None]:
    yield
    bot.stack.hub.faults.clear()
    server = redis_of(bot)
    if server.process is None:
        server.start()


def redis_of(bot: Bot) -> RedisServer:
    assert bot.stack.redis is not None
    return bot.stack.redis


def delivery_statuses(bot: Bot, num: int) -> dict[str, list[int | None]]:
    """Per delivery about PR `num`: the statuses the receiver answered its attempts, in order."""
    statuses: dict[str, list[int | None]] = {}
    for record in bot.stack.hub.deliveries():
        if record.payload.get("discussion", {}).get("num") == num:
            statuses.setdefault(record.delivery_id, []).append(record.status)
    return statuses


def test_redis_down_when_a_webhook_arrives_gets_503_then_the_retry_runs_once(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: with Redis down the receiver answers 503 (nothing acknowledged, no dedupe
    key left behind); the Hub's retry after Redis is back is queued and processed exactly
    once: one run, one report."""
    bot.wait_until_quiet()
    runs = bot.runs()
    redis_of(bot).stop()
    num, head = open_pr(bot, results(44.5))
    wait_until(
        lambda: any(503 in seen for seen in delivery_statuses(bot, num).values()),
        timeout=15,
        what="a 503",
    )
    clock = Stopwatch()
    redis_of(bot).start()
    bot.wait_for_report(num, head=head, timeout=30)
    record_figure("recovery_s_redis_down_at_receive", clock.elapsed())
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    for seen in delivery_statuses(bot, num).values():  # retried until accepted, then no more
        assert seen[-1] == 202, seen
        assert seen.count(202) == 1, seen
    assert bot.runs() - runs == 1
    assert bot.parked() == []


def test_redis_restarted_mid_burst_loses_nothing(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: a Redis restart (AOF on) in the middle of a burst of PRs loses none of them
    and doubles none: every PR ends with exactly one report for its head, no event parked.

    The workers alone lose at most the one message a worker's `BRPOP` took as Redis shut
    down (popped on the server, the reply never sent: docs/reliability.md, "Redis
    restarts"); the reconciliation `evalbot beat` runs in production brings it back. So: once
    the bot is quiet, at most one PR lacks its report, and one reconciliation run reports it."""
    bot.wait_until_quiet()
    opened: list[tuple[int, str]] = []
    for index in range(10):
        opened.append(open_pr(bot, results(30 + index)))
        if index == 4:
            redis_of(bot).stop()  # SIGTERM: Redis shuts down as a deploy would stop it
            redis_of(bot).start()
    clock = Stopwatch()
    bot.wait_until_quiet(timeout=60)  # webhooks delivered, queue drained, nothing unacked
    missing = [num for num, _ in opened if not bot.bot_comments(num)]
    record_figure("events_popped_at_shutdown_redis_restart_mid_burst", len(missing))
    assert len(missing) <= 1, f"PRs without a report once the bot is quiet: {missing}"
    if missing:
        run_reconciliation_once(bot)
    for num, head in opened:
        bot.wait_for_report(num, head=head, timeout=60)
    record_figure("recovery_s_redis_restart_mid_burst", clock.elapsed())
    bot.wait_until_quiet()
    reports = [len(bot.bot_comments(num)) for num, _ in opened]
    record_figure("events_lost_redis_restart_mid_burst", reports.count(0))
    record_figure("duplicate_reports_redis_restart_mid_burst", sum(n - 1 for n in reports if n))
    for num, head in opened:
        assert_one_report(bot, num, head)
    assert bot.parked() == []


def test_redis_killed_while_a_task_writes_converges_without_a_second_comment(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant (partial write): Redis killed (SIGKILL) after the Hub applied the worker's
    comment, before the worker recorded its verdict and acked. The worker survives the broker
    loss (it used to exit: workers/broker.py); once Redis is back the task returns after the
    visibility timeout, finds the report by its marker, posts nothing and records the verdict."""
    bot.wait_until_quiet()
    faults = bot.stack.hub.faults
    faults.add_rule(
        RouteFault("discussions.comment", latency_s=2.0, status=504, after_write=True, times=1)
    )
    num, head = open_pr(bot, results(45.5))
    wait_until(lambda: bot.bot_comments(num), timeout=30, what="the comment to land")
    (worker,) = live_workers(bot)
    redis_of(bot).stop(kill=True)
    clock = Stopwatch()
    redis_of(bot).start()
    wait_until(
        lambda: bot.redis.get(f"evalbot:verdict:alice/model:{num}") == head.encode(),
        timeout=60,
        what="the verdict to be recorded",
    )
    record_figure("recovery_s_redis_killed_mid_task", clock.elapsed())
    bot.wait_until_quiet(timeout=60)
    assert worker.poll() is None, "the worker exited on the broker loss"
    assert_one_report(bot, num, head)
    assert bot.parked() == []


def test_a_worker_still_consumes_after_two_idle_redis_restarts(
    bot: Bot, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant (the zombie-worker bug, celery#7276): after Redis restarts twice while the
    worker is idle, a canary event is still consumed, within seconds."""
    bot.wait_until_quiet()
    for _ in range(2):
        redis_of(bot).stop()
        redis_of(bot).start()
        bot.stack.hub.faults.clear()
    clock = Stopwatch()
    num, head = open_pr(bot, results(46.5))
    bot.wait_for_report(num, head=head, timeout=30)
    record_figure("canary_s_after_two_redis_restarts", clock.elapsed())
    assert_one_report(bot, num, head)


def test_redis_full_makes_the_receiver_answer_503_until_there_is_room(bot: Bot) -> None:
    """Invariant (Redis `maxmemory` reached, `noeviction`): the receiver answers 503, never a
    2xx for an event it could not queue; once there is room, the Hub's retry is queued and the
    PR reported once."""
    bot.wait_until_quiet()
    # The last task's ack too (kombu's, just after the ledger's): a worker whose ack Redis
    # refuses stops, and this test is about the receiver.
    wait_until(lambda: bot.redis.hlen(KOMBU_UNACKED) == 0, timeout=30, what="the last ack")
    used = int(bot.redis.info("memory")["used_memory"])
    bot.redis.config_set("maxmemory-policy", "noeviction")
    # A limit below what is in use: every write is refused until the limit is lifted (with a
    # limit just above it, the next free()d buffer lets one write through: flaky under load).
    bot.redis.config_set("maxmemory", str(used // 2))
    try:
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            bot.redis.set("evalbot:test:probe", "x")
        num, head = open_pr(bot, results(47.5))
        wait_until(
            lambda: any(503 in seen for seen in delivery_statuses(bot, num).values()),
            timeout=15,
            what="a 503 while Redis is full",
        )
    finally:
        bot.redis.config_set("maxmemory", "0")
    bot.wait_for_report(num, head=head, timeout=30)
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    for seen in delivery_statuses(bot, num).values():
        assert 200 not in seen  # nothing was acknowledged before it was queued
        assert seen.count(202) == 1, seen
