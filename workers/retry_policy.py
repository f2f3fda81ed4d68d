"""The retry policy of a PR event's task, pure: what failed and how often in, retry (after how
long) or park (why) out (docs/reliability.md, "A run: its lease, its retries, its start")."""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum

import redis
from celery.exceptions import SoftTimeLimitExceeded

from bot.hub.errors import HubPermanentError, HubTransientError
from bot.tokens.reasons import VerificationUnavailable
from workers.hub_pause import (
    HUB_THROTTLE_BUDGET_S,
    HubPaused,
    resume_countdown,
    throttled_too_long,
)
from workers.pr_lease import LeaseBusy, LeaseLost

#: Retries for failures that may pass (Hub outages, Redis blips); about 10 minutes in all.
MAX_TRANSIENT_RETRIES = 8
#: Retries while another run holds the PR (each run is short; this is minutes of waiting).
MAX_BUSY_RETRIES = 120
#: Runs that started and never finished (the worker died) before the event is parked.
MAX_UNFINISHED_RUNS = 3
BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 120.0


class Kind(Enum):
    """What kind of failure stopped a run; each has its own rule (the module's table)."""

    BUSY = "busy"
    LEASE_LOST = "lease-lost"
    THROTTLED = "hub-throttled"
    HUB_TRANSIENT = "hub-transient"
    TRANSIENT = "transient"
    HUB_REFUSED = "hub-refused"
    CONFIG = "bot-config"
    CRASHED = "crashed"


#: The attempt count each retried kind is charged to (`workers.tasks.Attempts`): a Hub outage
#: and a Redis blip share one budget; waiting for a busy PR never uses it up. Throttling is
#: counted by time, apart (`Attempts.throttled`); kinds not listed are never retried.
COUNTERS: dict[Kind, str] = {
    Kind.BUSY: "busy",
    Kind.LEASE_LOST: "lease-lost",
    Kind.HUB_TRANSIENT: "transient",
    Kind.TRANSIENT: "transient",
}


@dataclass(frozen=True, slots=True)
class Failure:
    """A failed run, reduced to what the policy needs. `name` labels a `TRANSIENT` failure
    (the exception's type: `VerificationUnavailable`, `ConnectionError`...) in metrics and in
    the parked record; `retry_after` is the wait the Hub asked for, if any."""

    kind: Kind
    detail: str
    name: str = ""
    retry_after: float | None = None

    @property
    def label(self) -> str:
        return self.name or self.kind.value


@dataclass(frozen=True, slots=True)
class Limits:
    """The budgets a decision is bounded by (from the worker's `Runtime`)."""

    max_countdown_s: float
    throttle_budget_s: float
    lease_ttl_s: float
    max_transient: int = MAX_TRANSIENT_RETRIES

    @property
    def busy_limit(self) -> int:
        return busy_retry_limit(self.lease_ttl_s)


@dataclass(frozen=True, slots=True)
class Retry:
    """Run the event again in `countdown` seconds; `reason` is the retry's metrics label."""

    countdown: float
    reason: str


@dataclass(frozen=True, slots=True)
class Park:
    """Give up: store the event as parked (replayable) with `reason` and `detail`."""

    reason: str
    detail: str


Decision = Retry | Park

#: The budgets of a worker with the default settings (`Runtime`'s defaults).
DEFAULT_LIMITS = Limits(
    max_countdown_s=600.0, throttle_budget_s=HUB_THROTTLE_BUDGET_S, lease_ttl_s=300.0
)


def classify(error: Exception) -> Failure:
    """The kind of failure an exception out of a run is (a pure mapping; the table above)."""
    if isinstance(error, HubPaused):
        return Failure(Kind.THROTTLED, str(error))
    if isinstance(error, LeaseBusy):
        return Failure(Kind.BUSY, str(error))
    if isinstance(error, LeaseLost):
        return Failure(Kind.LEASE_LOST, str(error))
    if isinstance(error, HubTransientError):
        kind = Kind.THROTTLED if error.status == 429 else Kind.HUB_TRANSIENT
        return Failure(kind, str(error), retry_after=error.retry_after)
    if isinstance(error, VerificationUnavailable | redis.RedisError | SoftTimeLimitExceeded):
        return Failure(Kind.TRANSIENT, str(error), name=type(error).__name__)
    if isinstance(error, HubPermanentError):
        return Failure(Kind.HUB_REFUSED, str(error))
    return Failure(Kind.CRASHED, f"{type(error).__name__}: {error}")


def stop_behind(error: BaseException) -> BaseException | None:
    """The stop (`SystemExit`, `KeyboardInterrupt`) that `error` was raised while handling, if
    any: a failure that is in fact the process being told to stop.

    A task cancelled because the worker's broker connection dropped gets SIGTERM, which Celery's
    pool turns into a `SystemExit` wherever the run is. Cleanup on the way out (the PR lease's
    release in a `finally`) then talks to Redis, which is down (that is why the connection
    dropped): its `ConnectionError` replaces the `SystemExit`. Python keeps the stop as the
    error's `__context__` (or `__cause__`), so the chain tells the two apart."""
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue  # a cycle: Python allows an exception to be its own context's context
        seen.add(id(current))
        if isinstance(current, SystemExit | KeyboardInterrupt):
            return current
        pending.extend(e for e in (current.__context__, current.__cause__) if e is not None)
    return None


def busy_retry_limit(lease_ttl_s: float) -> int:
    """Busy retries (about 1 s apart) outlast a lease left by a run that died: its TTL."""
    return max(MAX_BUSY_RETRIES, int(2 * lease_ttl_s))


def backoff_s(
    attempt: int, retry_after: float | None = None, rng: random.Random | None = None
) -> float:
    """Exponential backoff with jitter ("equal jitter"), never sooner than the Hub asked."""
    ceiling = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0**attempt)
    delay = ceiling / 2 + (rng or random).uniform(0, ceiling / 2)
    return max(delay, retry_after or 0.0)


def on_start(unfinished_runs: int) -> Park | None:
    """Before a run: park an event whose runs died with their worker too often."""
    if unfinished_runs > MAX_UNFINISHED_RUNS:
        return Park("worker-lost", "the worker died during every attempt")
    return None


def decide(
    failure: Failure,
    *,
    tries: int,
    limits: Limits = DEFAULT_LIMITS,
    throttled_s: float = 0.0,
    pause_left_s: float = 0.0,
    rng: random.Random | None = None,
) -> Decision:
    """Retry or park a failed run.

    `tries` counts the attempts of this failure's kind, this one included (for `THROTTLED`:
    the throttled attempts, with `throttled_s` the seconds since the first); `pause_left_s`
    is what the fleet-wide Hub pause has left (0: none). `rng` only spreads countdowns.
    """
    kind = failure.kind
    if kind is Kind.BUSY:
        if tries > limits.busy_limit:
            return Park("busy", "the PR stayed locked")
        return Retry(0.5 + (rng or random).uniform(0, 1.0), "busy")
    if kind is Kind.LEASE_LOST:
        if tries > limits.max_transient:
            return Park("lease-lost", "every run outlived its lease")
        return Retry(0.0, "lease-lost")
    if kind is Kind.THROTTLED:
        if throttled_too_long(throttled_s, limits.throttle_budget_s):
            return Park("hub-throttled", failure.detail)
        if pause_left_s > 0:
            countdown = resume_countdown(pause_left_s, cap_s=limits.max_countdown_s, rng=rng)
        else:
            attempt = min(tries - 1, limits.max_transient)
            countdown = min(backoff_s(attempt, rng=rng), limits.max_countdown_s)
        return Retry(countdown, "hub-throttled")
    if kind is Kind.HUB_TRANSIENT:
        if tries > limits.max_transient:
            return Park("hub-unavailable", failure.detail)
        countdown = backoff_s(tries - 1, failure.retry_after, rng=rng)
        if pause_left_s > 0:
            resume_s = resume_countdown(pause_left_s, cap_s=limits.max_countdown_s, rng=rng)
            countdown = max(countdown, resume_s)
        return Retry(min(countdown, limits.max_countdown_s), "hub-transient")
    if kind is Kind.TRANSIENT:
        if tries > limits.max_transient:
            return Park(failure.label, failure.detail)
        countdown = min(backoff_s(tries - 1, rng=rng), limits.max_countdown_s)
        return Retry(countdown, failure.label)
    # HUB_REFUSED, CONFIG, CRASHED: retrying cannot help (or cannot until someone acts).
    return Park(kind.value, failure.detail)
