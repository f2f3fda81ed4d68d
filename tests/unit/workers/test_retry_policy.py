"""The retry policy of a PR event's task (`workers.retry_policy`), over plain inputs: every
row of the module's table, with a seeded random generator for the jitter."""

from __future__ import annotations

import random

import pytest
import redis
from celery.exceptions import SoftTimeLimitExceeded

from bot.hub.errors import HubPermanentError, HubTransientError
from bot.tokens.reasons import VerificationUnavailable
from workers.hub_pause import HubPaused
from workers.pr_lease import LeaseBusy, LeaseLost
from workers.retry_policy import (
    COUNTERS,
    MAX_BUSY_RETRIES,
    MAX_TRANSIENT_RETRIES,
    MAX_UNFINISHED_RUNS,
    Failure,
    Kind,
    Limits,
    Park,
    Retry,
    backoff_s,
    classify,
    decide,
    on_start,
    stop_behind,
)

LIMITS = Limits(max_countdown_s=600.0, throttle_budget_s=3600.0, lease_ttl_s=30.0)


def rng() -> random.Random:
    return random.Random(7)


@pytest.mark.parametrize(
    ("error", "kind", "name"),
    [
        (HubPaused(3.0), Kind.THROTTLED, ""),
        (LeaseBusy(), Kind.BUSY, ""),
        (LeaseLost(), Kind.LEASE_LOST, ""),
        (HubTransientError("slow down", status=429), Kind.THROTTLED, ""),
        (HubTransientError("down", status=503), Kind.HUB_TRANSIENT, ""),
        (HubTransientError("timed out"), Kind.HUB_TRANSIENT, ""),
        (VerificationUnavailable("no keys"), Kind.TRANSIENT, "VerificationUnavailable"),
        (redis.ConnectionError("gone"), Kind.TRANSIENT, "ConnectionError"),
        (SoftTimeLimitExceeded(), Kind.TRANSIENT, "SoftTimeLimitExceeded"),
        (HubPermanentError("gone", status=404), Kind.HUB_REFUSED, ""),
        (KeyError("surprise"), Kind.CRASHED, ""),
    ],
)
def test_classify(error: Exception, kind: Kind, name: str) -> None:
    failure = classify(error)
    assert (failure.kind, failure.name) == (kind, name)


def test_classify_keeps_the_wait_the_hub_asked_for_and_the_crash_type() -> None:
    assert classify(HubTransientError("x", status=503, retry_after=9.0)).retry_after == 9.0
    assert classify(KeyError("k")).detail == "KeyError: 'k'"


def test_a_busy_pr_is_retried_within_seconds_until_the_lease_must_have_expired() -> None:
    busy = Failure(Kind.BUSY, "")
    limit = max(MAX_BUSY_RETRIES, 60)
    decision = decide(busy, tries=1, limits=LIMITS, rng=rng())
    assert isinstance(decision, Retry)
    assert 0.5 <= decision.countdown <= 1.5
    assert decision.reason == "busy"
    assert isinstance(decide(busy, tries=limit, limits=LIMITS), Retry)
    assert decide(busy, tries=limit + 1, limits=LIMITS) == Park("busy", "the PR stayed locked")
    long_lease = Limits(max_countdown_s=600.0, throttle_budget_s=3600.0, lease_ttl_s=300.0)
    assert long_lease.busy_limit == 600


def test_a_lost_lease_is_retried_at_once_a_few_times() -> None:
    lost = Failure(Kind.LEASE_LOST, "")
    assert decide(lost, tries=1, limits=LIMITS) == Retry(0.0, "lease-lost")
    assert decide(lost, tries=MAX_TRANSIENT_RETRIES + 1, limits=LIMITS) == Park(
        "lease-lost", "every run outlived its lease"
    )


def test_a_hub_outage_backs_off_exponentially_never_sooner_than_asked_and_capped() -> None:
    down = Failure(Kind.HUB_TRANSIENT, "503")
    countdowns = []
    for tries in range(1, MAX_TRANSIENT_RETRIES + 1):
        decision = decide(down, tries=tries, limits=LIMITS, rng=rng())
        assert isinstance(decision, Retry)
        assert decision.reason == "hub-transient"
        countdowns.append(decision.countdown)
    assert countdowns[0] <= 1.0 < countdowns[-1]
    assert countdowns == sorted(countdowns)
    asked = Failure(Kind.HUB_TRANSIENT, "503", retry_after=40.0)
    assert decide(asked, tries=1, limits=LIMITS) == Retry(40.0, "hub-transient")
    tight = Limits(max_countdown_s=5.0, throttle_budget_s=3600.0, lease_ttl_s=30.0)
    assert decide(asked, tries=1, limits=tight) == Retry(5.0, "hub-transient")
    paused = decide(down, tries=1, limits=LIMITS, pause_left_s=30.0, rng=rng())
    assert isinstance(paused, Retry)
    assert paused.countdown >= 30.0
    assert decide(down, tries=MAX_TRANSIENT_RETRIES + 1, limits=LIMITS) == Park(
        "hub-unavailable", "503"
    )


def test_other_transient_failures_are_labelled_by_their_type() -> None:
    failure = Failure(Kind.TRANSIENT, "no keys yet", name="VerificationUnavailable")
    decision = decide(failure, tries=1, limits=LIMITS, rng=rng())
    assert isinstance(decision, Retry)
    assert decision.reason == "VerificationUnavailable"
    assert decide(failure, tries=MAX_TRANSIENT_RETRIES + 1, limits=LIMITS) == Park(
        "VerificationUnavailable", "no keys yet"
    )


def test_throttling_is_bounded_by_time_not_by_count() -> None:
    throttled = Failure(Kind.THROTTLED, "429")
    many = decide(throttled, tries=1000, limits=LIMITS, throttled_s=3599.0, rng=rng())
    assert isinstance(many, Retry)
    assert many.reason == "hub-throttled"
    assert many.countdown <= LIMITS.max_countdown_s
    assert decide(throttled, tries=2, limits=LIMITS, throttled_s=3601.0) == Park(
        "hub-throttled", "429"
    )
    after_pause = decide(throttled, tries=1, limits=LIMITS, pause_left_s=50.0, rng=rng())
    assert isinstance(after_pause, Retry)
    assert 50.0 <= after_pause.countdown <= 100.0


@pytest.mark.parametrize(
    ("kind", "reason"),
    [(Kind.HUB_REFUSED, "hub-refused"), (Kind.CRASHED, "crashed"), (Kind.CONFIG, "bot-config")],
)
def test_failures_a_retry_cannot_help_are_parked_at_once(kind: Kind, reason: str) -> None:
    assert decide(Failure(kind, "why"), tries=1, limits=LIMITS) == Park(reason, "why")
    assert kind not in COUNTERS  # and they cost no attempt count


def test_a_configuration_failure_is_parked_never_dropped_nor_retried() -> None:
    """A worker whose own files are broken must keep the event (replayable), not loop on it."""
    decision = decide(Failure(Kind.CONFIG, "bot.yaml:3: `maintainers` must be a list"), tries=1)
    assert decision == Park("bot-config", "bot.yaml:3: `maintainers` must be a list")


def test_a_run_that_died_too_often_is_parked_before_it_starts() -> None:
    assert on_start(1) is None
    assert on_start(MAX_UNFINISHED_RUNS) is None
    assert on_start(MAX_UNFINISHED_RUNS + 1) == Park(
        "worker-lost", "the worker died during every attempt"
    )


def test_backoff_has_equal_jitter() -> None:
    for attempt in range(10):
        delay = backoff_s(attempt, rng=rng())
        ceiling = min(120.0, 2.0**attempt)
        assert ceiling / 2 <= delay <= ceiling


def _raised_while_handling(stop: BaseException, cleanup_error: Exception) -> Exception:
    """`cleanup_error` raised by a `finally` block while `stop` was on its way out."""
    try:
        try:
            raise stop
        finally:
            raise cleanup_error
    except Exception as error:
        return error


def test_a_redis_error_raised_while_a_stop_signal_unwound_is_the_stop() -> None:
    stop = SystemExit(-241)  # billiard's SIGTERM handler in a pool process: sys.exit(-(256-15))
    error = _raised_while_handling(stop, redis.ConnectionError("Connection refused"))
    assert isinstance(error, redis.ConnectionError)
    assert stop_behind(error) is stop
    interrupt = KeyboardInterrupt()
    assert stop_behind(_raised_while_handling(interrupt, redis.TimeoutError())) is interrupt


def test_a_stop_is_found_through_explicit_causes_and_wrapped_errors() -> None:
    stop = SystemExit(1)
    inner = _raised_while_handling(stop, redis.ConnectionError("down"))
    wrapped = RuntimeError("wrapped")
    wrapped.__cause__ = inner  # `raise RuntimeError(...) from inner`
    assert stop_behind(wrapped) is stop


def test_a_plain_redis_outage_or_any_other_chain_is_not_a_stop() -> None:
    assert stop_behind(redis.ConnectionError("Connection refused")) is None
    after_hub_error = _raised_while_handling(
        HubTransientError("unavailable", status=503), redis.ConnectionError("down")
    )
    assert stop_behind(after_hub_error) is None
    looped, other = ValueError("a"), ValueError("b")
    looped.__context__, other.__context__ = other, looped  # a cycle ends the walk
    assert stop_behind(looped) is None
