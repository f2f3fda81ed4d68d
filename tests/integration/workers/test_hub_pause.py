"""The fleet-wide Hub pause on a real redis-server: set by a run told to wait, honoured by every
other run before any Hub call, and throttled retries that never use up the failure budget."""

from __future__ import annotations

import time
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, cast

import pytest
import redis
from celery import Task

from bot.hub.errors import HubTransientError, retry_after_from_headers
from bot.queue.events import PrEvent
from bot.store import keys
from tests.support.runtime import FailingHub, make_runtime, stats
from workers.hub_pause import PAUSE_MARGIN_S, HubPause
from workers.pr_lease import as_text
from workers.retry_policy import MAX_TRANSIENT_RETRIES
from workers.runtime import Runtime
from workers.tasks import handle

pytestmark = pytest.mark.integration

RATE_LIMITED = {"RateLimit": '"api";r=0;t=20', "RateLimit-Policy": '"fixed window";"api";q=9;w=300'}


def _event(num: int) -> dict[str, Any]:
    return PrEvent(
        kind="updated",
        repo_id="alice/model",
        pr_num=num,
        delivery_id=f"d-{num}",
        received_at="2026-11-22T09:00:00.000Z",
    ).to_json()


class Retry(Exception):
    def __init__(self, countdown: float) -> None:
        super().__init__(countdown)
        self.countdown = countdown


class FakeTask:
    def __init__(self, task_id: str) -> None:
        self.request = SimpleNamespace(id=task_id, retries=0)

    def retry(self, countdown: float = 0, max_retries: int | None = None) -> Retry:
        assert max_retries is None or max_retries > 1000
        return Retry(countdown)


def _rate_limited(headers: dict[str, str] = RATE_LIMITED) -> HubTransientError:
    return HubTransientError(
        "Hub answered 429", retry_after=retry_after_from_headers(headers), status=429
    )


def run(runtime: Runtime, task_id: str, num: int = 3) -> Retry | str:
    try:
        return handle(cast(Task[Any, Any], FakeTask(task_id)), _event(num), runtime)
    except Retry as retry:
        return retry


def test_extending_keeps_the_later_end_and_stores_the_redis_clock(client: redis.Redis) -> None:
    pause = HubPause(client)
    assert pause.remaining_now() == 0.0
    server_now = float(client.time()[0])
    assert pause.extend(30.0) == (True, 30.0)
    assert pause.extend(5.0)[0] is False  # a shorter wait does not shorten the pause
    assert 29.0 < pause.remaining_now() <= 30.0
    assert pause.extend(60.0) == (True, 60.0)  # a longer one lengthens it
    until = float(as_text(client.get(keys.HUB_PAUSE) or b"0"))
    assert server_now + 59 <= until <= server_now + 62
    assert 59.0 < client.pttl(keys.HUB_PAUSE) / 1000 <= 60.0


def test_a_429_pauses_every_worker_and_the_others_wait_without_calling_the_hub(
    client: redis.Redis,
) -> None:
    hub = FailingHub(_rate_limited())
    runtime = make_runtime(client, hub)
    first = run(runtime, "t1", num=1)
    assert isinstance(first, Retry)
    wait = 20 + PAUSE_MARGIN_S
    assert wait - 0.5 <= first.countdown <= 2 * wait  # the pause, plus the spread
    assert wait - 0.5 < HubPause(client).remaining_now() <= wait
    assert hub.calls == 1
    # Five other events arrive during the pause: none calls the Hub, each comes back after it.
    others = [run(runtime, f"t{n}", num=n) for n in range(2, 7)]
    assert hub.calls == 1
    countdowns = [o.countdown for o in others if isinstance(o, Retry)]
    assert len(countdowns) == 5
    assert all(wait - 1 <= c <= 2 * wait for c in countdowns)
    assert len({round(c, 3) for c in countdowns}) == 5  # spread, not all at the reset
    assert stats(client) == {"retry:hub-throttled": 6}


def test_throttled_retries_do_not_use_up_the_failure_budget(client: redis.Redis) -> None:
    """Three times the transient budget of 429s: still retried, never parked."""
    runtime = make_runtime(client, FailingHub(_rate_limited()))
    for _ in range(3 * MAX_TRANSIENT_RETRIES):
        client.delete(keys.HUB_PAUSE)  # each run draws its own 429, as after a window's reset
        assert isinstance(run(runtime, "t1"), Retry)
    assert stats(client) == {"retry:hub-throttled": 3 * MAX_TRANSIENT_RETRIES}
    assert client.llen("evalbot:dead-letters") == 0


def test_an_event_throttled_past_the_budget_is_parked_as_such(client: redis.Redis) -> None:
    runtime = replace(make_runtime(client, FailingHub(_rate_limited())), throttle_budget_s=60.0)
    assert isinstance(run(runtime, "t1"), Retry)
    # Its first throttled attempt was two minutes ago (the hash keeps when it began).
    client.hset("evalbot:attempts:t1", "throttled-since", f"{time.time() - 120:.3f}")
    client.delete(keys.HUB_PAUSE)
    assert run(runtime, "t1") == "parked"
    assert stats(client) == {"retry:hub-throttled": 1, "parked:hub-throttled": 1}
    assert client.exists("evalbot:attempts:t1") == 0


def test_a_429_that_says_no_wait_backs_off_alone_and_counts_as_throttled(
    client: redis.Redis,
) -> None:
    """A granular limit (quota left, `r=12`) is one route's: no fleet pause, own backoff."""
    hub = FailingHub(_rate_limited({"RateLimit": '"api";r=12;t=20'}))
    runtime = make_runtime(client, hub)
    first = run(runtime, "t1")
    assert isinstance(first, Retry)
    assert first.countdown <= 1.0  # the first backoff step
    assert HubPause(client).remaining_now() == 0.0
    assert isinstance(run(runtime, "t2", num=4), Retry)
    assert hub.calls == 2
    assert stats(client) == {"retry:hub-throttled": 2}


def test_a_503_with_retry_after_pauses_but_keeps_the_failure_budget(client: redis.Redis) -> None:
    error = HubTransientError("Hub answered 503", retry_after=4.0, status=503)
    runtime = make_runtime(client, FailingHub(error))
    retry = run(runtime, "t1")
    assert isinstance(retry, Retry)
    assert retry.countdown >= 4.0
    assert HubPause(client).remaining_now() > 4.0
    assert stats(client) == {"retry:hub-transient": 1}
    assert client.hget("evalbot:attempts:t1", "transient") == b"1"


def test_countdowns_stay_below_the_visibility_timeout(client: redis.Redis) -> None:
    headers = {"RateLimit": '"api";r=0;t=290'}
    runtime = replace(make_runtime(client, FailingHub(_rate_limited(headers))), max_countdown_s=5)
    retry = run(runtime, "t1")
    assert isinstance(retry, Retry)
    assert retry.countdown == 5.0
    later = run(runtime, "t2", num=4)  # held back by the pause: capped too
    assert isinstance(later, Retry)
    assert later.countdown == 5.0
