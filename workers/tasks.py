"""Celery tasks: thin shims from a queued message to the pipeline, plus the retry policy.

The receiver publishes `evalbot.process_pr_event` with one kwarg, `event` (a
`PrEvent.to_json()` dict); `workers.pipeline.run_event` does the work. This module decides
only what happens when a run cannot finish:

| raised by the run                         | what happens                                    |
|-------------------------------------------|-------------------------------------------------|
| `LeaseBusy` (another run has the PR)      | retry in ~1 s, for up to twice the lease TTL    |
| `LeaseLost` (our lease expired mid-run)   | retry at once; nothing was written              |
| the Hub paused (`workers.hubpause`)       | retry at the pause's end plus a jitter spread   |
| `HubTransientError` 429                   | pause every worker, then as above (throttled)   |
| `HubTransientError` (5xx, timeouts)       | retry after `retry_after` or a jittered backoff |
| `VerificationUnavailable`, Redis errors   | retry with backoff: never publish a guess       |
| `HubPermanentError` (404, 403, ...)       | parked: retrying cannot help                    |
| anything else, or too many retries        | parked, with the error                          |
| throttled for longer than the budget      | parked as `hub-throttled` (hours, a setting)    |
| the worker dies mid-run, 3 times          | parked (a poison event must not loop forever)   |
| Redis down (nothing can be counted)       | requeued after a pause (never dropped)          |

Throttling is not failure: retries caused by the Hub's pacing (a 429, or the pause it set)
are counted apart from the others and bounded by time (`Runtime.throttle_budget_s`,
`EVALBOT_HUB_THROTTLE_BUDGET`), not by a count, so a backlog that needs many rate-limit
windows is worked through instead of parked. Every countdown is capped at
`Runtime.max_countdown_s` (the visibility timeout minus the task time limit): kombu's Redis
transport redelivers a message held longer than the visibility timeout, ETA retries included,
to a second worker.

Parked events go to `workers.deadletters`, visible in metrics and replayable (`evalbot
replay`). Each retry is counted in `evalbot:stats` as `retry:<reason>` (best effort), and each
finished run as `outcome:<outcome>`; the receiver's `/metrics` exposes both.
"""

from __future__ import annotations

import logging
import os
import random
import time
from functools import cache
from typing import Any

import redis
from celery import Task, shared_task
from celery.exceptions import Reject, SoftTimeLimitExceeded
from kombu.exceptions import OperationalError

from bot.contract import keys
from bot.contract.events import PrEvent
from bot.contract.messages import TASK_NAME
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.logs import log_json
from bot.settings import Settings
from bot.tokens.binding import VerificationUnavailable
from workers.deadletters import count_outcome, count_retry, park
from workers.hubpause import HubPause, HubPaused, pause_for, resume_countdown, throttled_too_long
from workers.locks import LeaseBusy, LeaseLost, as_text
from workers.pipeline import run_event
from workers.runtime import Runtime, build_runtime

log = logging.getLogger("evalbot.worker")

#: Retries for failures that may pass (Hub outages, Redis blips); about 10 minutes in all.
MAX_TRANSIENT_RETRIES = 8
#: Retries while another run holds the PR (each run is short; this is minutes of waiting).
MAX_BUSY_RETRIES = 120
#: Runs that started and never finished (the worker died) before the event is parked.
MAX_UNFINISHED_RUNS = 3
#: How long attempt counts are kept (a message comes back within the visibility timeout).
ATTEMPTS_TTL_S = 24 * 3600
#: Pause before requeueing an event because Redis itself failed.
REDIS_DOWN_PAUSE_S = 2.0
BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 120.0


@cache
def runtime_for_process() -> Runtime:
    """Built on first use in each worker process (after the fork), from the environment."""
    return build_runtime(Settings.from_env(os.environ))


def backoff_s(attempt: int, retry_after: float | None = None) -> float:
    """Exponential backoff with jitter ("equal jitter"), never sooner than the Hub asked."""
    ceiling = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0**attempt)
    delay = ceiling / 2 + random.uniform(0, ceiling / 2)  # noqa: S311 - jitter, not crypto
    return max(delay, retry_after or 0.0)


@shared_task(name=TASK_NAME, bind=True, max_retries=None)
def process_pr_event(self: Task[Any, Any], event: dict[str, Any]) -> str:
    runtime = runtime_for_process()
    try:
        return handle(self, event, runtime)
    except (redis.RedisError, OperationalError) as error:
        # Redis is down: the policy can neither count attempts, park, nor publish a retry.
        # Letting the error out would make Celery drop the message (a failed task is
        # rejected without requeue). Requeue it instead, after a pause so a Redis that
        # answers but refuses writes (maxmemory) is not hammered; if Redis cannot even take
        # the reject, the message stays unacked and returns after the visibility timeout.
        log.warning(
            "redis unavailable, requeueing the event",
            extra={"delivery_id": event.get("delivery_id"), "error": str(error)},
        )
        time.sleep(REDIS_DOWN_PAUSE_S)
        raise Reject(str(error), requeue=True) from error


def handle(task: Task[Any, Any], event: dict[str, Any], runtime: Runtime) -> str:
    """Run the pipeline for one message, applying the retry policy; returns the outcome.

    Attempts are counted per message (the task id, stable across retries and redeliveries) in
    one Redis hash, each kind against its own budget: waiting for a busy PR must not use up
    the retries a Hub outage needs, and an orderly retry must not wipe the count of runs that
    died (a poison event killed its worker, was requeued, found its own dead run's lease...).
    """
    try:
        parsed = PrEvent.from_json(event)
    except ValueError as error:
        park(runtime.redis, event, "malformed-event", str(error))
        return "parked"
    attempts = Attempts(runtime.redis, task.request.id)
    started, paused_s = attempts.begin()
    if started > MAX_UNFINISHED_RUNS:
        attempts.forget()
        return _give_up(runtime, event, "worker-lost", "the worker died during every attempt")
    if started > 1:
        _count_retry(runtime, "worker-lost")  # redelivered after its worker died mid-run
    finished = False  # a terminal outcome: the counts can go
    outcome: str | None = None
    try:
        if paused_s > 0:
            raise HubPaused(paused_s)  # the fleet was told to wait: no Hub call from us
        outcome = run_event(parsed, runtime, owner=task.request.id).value
        finished = True
    except HubPaused as pause:
        parked = _throttled(
            task, runtime, attempts, event=event, pause_left_s=pause.remaining_s, detail=str(pause)
        )
        finished = True
        return parked
    except LeaseBusy:
        if attempts.count("busy") > busy_retry_limit(runtime.lease_ttl_s):
            finished = True
            return _give_up(runtime, event, "busy", "the PR stayed locked")
        _count_retry(runtime, "busy")
        raise task.retry(countdown=0.5 + random.uniform(0, 1.0), max_retries=None) from None  # noqa: S311
    except LeaseLost:
        if attempts.count("lease-lost") > MAX_TRANSIENT_RETRIES:
            finished = True
            return _give_up(runtime, event, "lease-lost", "every run outlived its lease")
        _count_retry(runtime, "lease-lost")
        raise task.retry(countdown=0, max_retries=None) from None
    except HubTransientError as error:
        pause_left_s = _pause_fleet(runtime, error)
        if error.status == 429:
            parked = _throttled(
                task, runtime, attempts, event=event, pause_left_s=pause_left_s, detail=str(error)
            )
            finished = True
            return parked
        tries = attempts.count("transient")
        if tries > MAX_TRANSIENT_RETRIES:
            finished = True
            return _give_up(runtime, event, "hub-unavailable", str(error))
        _count_retry(runtime, "hub-transient")
        countdown = backoff_s(tries - 1, error.retry_after)
        if pause_left_s > 0:
            resume_s = resume_countdown(pause_left_s, cap_s=runtime.max_countdown_s)
            countdown = max(countdown, resume_s)
        raise task.retry(countdown=_capped(runtime, countdown)) from error
    except (VerificationUnavailable, redis.RedisError, SoftTimeLimitExceeded) as error:
        tries = attempts.count("transient")
        if tries > MAX_TRANSIENT_RETRIES:
            finished = True
            return _give_up(runtime, event, type(error).__name__, str(error))
        _count_retry(runtime, type(error).__name__)
        raise task.retry(countdown=_capped(runtime, backoff_s(tries - 1))) from error
    except HubPermanentError as error:
        finished = True
        return _give_up(runtime, event, "hub-refused", str(error))
    except Exception as error:
        log.exception("pr event failed: delivery %s", event.get("delivery_id"))
        finished = True
        return _give_up(runtime, event, "crashed", f"{type(error).__name__}: {error}")
    finally:
        attempts.ended(finished, outcome)
    return outcome


def _pause_fleet(runtime: Runtime, error: HubTransientError) -> float:
    """Pause every worker when the Hub said how long to wait; the seconds the pause has left
    (0 when the answer pauses nothing, or Redis could not take the pause: the run's own
    retry still waits as the Hub asked)."""
    wait_s = pause_for(error)
    if wait_s is None:
        return 0.0
    try:
        started, remaining_s = HubPause(runtime.redis).extend(wait_s)
    except redis.RedisError:
        log.warning("could not pause the workers for %.1f s", wait_s)
        return wait_s
    if started:
        log_json(
            log,
            logging.WARNING,
            "hub paused",
            status=error.status,
            seconds=round(remaining_s, 3),
            detail=str(error),
        )
    return remaining_s


def _throttled(
    task: Task[Any, Any],
    runtime: Runtime,
    attempts: Attempts,
    *,
    event: dict[str, Any],
    pause_left_s: float,
    detail: str,
) -> str:
    """Retry an event the Hub's pacing held back, counted apart from failures and bounded by
    time; parks it (and returns "parked") only once it has been held back for longer than
    the budget. It comes back after the pause plus a jitter spread, or (a 429 that said
    nothing of a wait) after a jittered backoff."""
    tries, throttled_s = attempts.throttled()
    if throttled_too_long(throttled_s, runtime.throttle_budget_s):
        return _give_up(runtime, event, "hub-throttled", detail)
    _count_retry(runtime, "hub-throttled")
    if pause_left_s > 0:
        countdown = resume_countdown(pause_left_s, cap_s=runtime.max_countdown_s)
    else:
        countdown = _capped(runtime, backoff_s(min(tries - 1, MAX_TRANSIENT_RETRIES)))
    raise task.retry(countdown=countdown, max_retries=None)


def _capped(runtime: Runtime, countdown: float) -> float:
    """A retry's countdown, at most `max_countdown_s` (below the visibility timeout)."""
    return min(countdown, runtime.max_countdown_s)


def busy_retry_limit(lease_ttl_s: float) -> int:
    """Busy retries (about 1 s apart) outlast a lease left by a run that died: its TTL."""
    return max(MAX_BUSY_RETRIES, int(2 * lease_ttl_s))


def _count_retry(runtime: Runtime, reason: str) -> None:
    """Count a retry for metrics; best effort (Redis may be the very thing failing)."""
    try:
        count_retry(runtime.redis, reason)
    except redis.RedisError:
        log.warning("could not count a %s retry", reason)


class Attempts:
    """Per-message attempt counts in a Redis hash (`evalbot:attempts:<task id>`).

    `unfinished` goes up when a run starts and down when it ends in an orderly way (an
    outcome, a retry): what remains counts the runs that died with their worker. Each kind of
    retry has its own budget, so waiting for a busy PR cannot use up a Hub outage's retries.
    """

    def __init__(self, client: redis.Redis, task_id: str | None) -> None:
        self._client = client
        self._key = keys.attempts(str(task_id))

    def started(self) -> int:
        """Count a run's start; returns the runs started and not ended in order (this one
        included)."""
        return self.begin()[0]

    def begin(self) -> tuple[int, float]:
        """`started`, and the seconds the fleet-wide Hub pause has left, in one round trip:
        every run needs both before it calls the Hub."""
        pipe = self._client.pipeline(transaction=True)
        pipe.hincrby(self._key, "unfinished", 1)
        pipe.expire(self._key, ATTEMPTS_TTL_S)
        HubPause.queue_read(pipe)
        count, _, paused = pipe.execute()
        return int(count), HubPause.remaining_s(paused)

    def count(self, kind: str) -> int:
        """One more attempt of `kind`; returns how many there were, this one included."""
        return int(self._client.hincrby(self._key, kind, 1))

    def throttled(self) -> tuple[int, float]:
        """One more throttled attempt; returns how many there were (this one included) and
        the seconds since the first, on Redis's clock (the retries of one event run on
        different workers, whose clocks may disagree)."""
        seconds, microseconds = self._client.time()
        now = seconds + microseconds / 1e6
        pipe = self._client.pipeline(transaction=False)
        pipe.hsetnx(self._key, "throttled-since", f"{now:.3f}")
        pipe.hincrby(self._key, "throttled", 1)
        pipe.hget(self._key, "throttled-since")
        _, tries, since = pipe.execute()
        throttled_s = max(0.0, now - float(as_text(since))) if since is not None else 0.0
        return int(tries), throttled_s

    def ended(self, finished: bool, outcome: str | None = None) -> None:
        """Close the run's books in one round trip: forget the counts when the event is done
        (else mark this run as ended in order), and count its outcome if it has one."""
        try:
            books = self._client.pipeline(transaction=False)
            if finished:
                books.delete(self._key)
            else:
                books.hincrby(self._key, "unfinished", -1)
            if outcome is not None:
                count_outcome(books, outcome)
            books.execute()
        except redis.RedisError:
            log.warning("could not update %s; a later crash count may be off by one", self._key)

    def forget(self) -> None:
        self._client.delete(self._key)


def _give_up(runtime: Runtime, event: dict[str, Any], reason: str, detail: str) -> str:
    log_json(
        log,
        logging.ERROR,
        "pr event parked",
        delivery=event.get("delivery_id"),
        reason=reason,
        detail=detail,
    )
    park(runtime.redis, event, reason, detail)
    return "parked"
