"""Celery tasks: thin shims from a queued message to the pipeline, plus the retry policy.

The receiver publishes `evalbot.process_pr_event` with one kwarg, `event` (a
`PrEvent.to_json()` dict); `workers.pipeline.run_event` does the work. This module decides
only what happens when a run cannot finish:

| raised by the run                         | what happens                                    |
|-------------------------------------------|-------------------------------------------------|
| `LeaseBusy` (another run has the PR)      | retry in ~1 s: the other run may predate a push |
| `LeaseLost` (our lease expired mid-run)   | retry at once; nothing was written              |
| `HubTransientError` (429, 5xx, timeouts)  | retry after `retry_after` or a jittered backoff |
| `VerificationUnavailable`, Redis errors   | retry with backoff: never publish a guess       |
| `HubPermanentError` (404, 403, ...)       | parked: retrying cannot help                    |
| anything else, or too many retries        | parked, with the error                          |
| the worker dies mid-run, 3 times          | parked (a poison event must not loop forever)   |

Parked events go to `workers.deadletters`, visible in metrics and replayable (`evalbot
replay`). Each retry is counted in `evalbot:stats` as `retry:<reason>` (best effort), and each
finished run as `outcome:<outcome>`; the receiver's `/metrics` exposes both.
"""

from __future__ import annotations

import logging
import os
import random
from functools import cache
from typing import Any

import redis
from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from bot.hub.errors import HubPermanentError, HubTransientError
from bot.logs import log_json
from bot.receiver.events import PrEvent
from bot.receiver.queue import TASK_NAME
from bot.settings import Settings
from bot.tokens.binding import VerificationUnavailable
from workers.deadletters import count_outcome, count_retry, park
from workers.locks import LeaseBusy, LeaseLost
from workers.pipeline import run_event
from workers.runtime import Runtime, build_runtime

log = logging.getLogger("evalbot.worker")

#: Retries for failures that may pass (Hub outages, Redis blips); about 10 minutes in all.
MAX_TRANSIENT_RETRIES = 8
#: Retries while another run holds the PR (each run is short; this is minutes of waiting).
MAX_BUSY_RETRIES = 120
#: Runs that started and never finished (the worker died) before the event is parked.
MAX_UNFINISHED_RUNS = 3
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
    return handle(self, event, runtime)


def handle(task: Task[Any, Any], event: dict[str, Any], runtime: Runtime) -> str:
    """Run the pipeline for one message, applying the retry policy; returns the outcome."""
    try:
        parsed = PrEvent.from_json(event)
    except ValueError as error:
        park(runtime.redis, event, "malformed-event", str(error))
        return "parked"
    unfinished = _unfinished_key(task)
    # One round trip for the count and its expiry: each one is a wait on another process.
    counting = runtime.redis.pipeline(transaction=False)
    counting.incr(unfinished)
    counting.expire(unfinished, 24 * 3600)
    starts = int(counting.execute()[0])
    if starts > MAX_UNFINISHED_RUNS:
        runtime.redis.delete(unfinished)
        park(runtime.redis, event, "worker-lost", "the worker died during every attempt")
        return "parked"
    if starts > 1:
        _count_retry(runtime, "worker-lost")  # redelivered after its worker died mid-run
    attempt = task.request.retries
    outcome: str | None = None
    try:
        outcome = run_event(parsed, runtime).value
    except LeaseBusy:
        if attempt >= MAX_BUSY_RETRIES:
            return _give_up(runtime, event, "busy", "the PR stayed locked")
        _count_retry(runtime, "busy")
        raise task.retry(countdown=0.5 + random.uniform(0, 1.0), max_retries=None) from None  # noqa: S311
    except LeaseLost:
        _count_retry(runtime, "lease-lost")
        raise task.retry(countdown=0, max_retries=None) from None
    except HubTransientError as error:
        if attempt >= MAX_TRANSIENT_RETRIES:
            return _give_up(runtime, event, "hub-unavailable", str(error))
        _count_retry(runtime, "hub-transient")
        raise task.retry(countdown=backoff_s(attempt, error.retry_after)) from error
    except (VerificationUnavailable, redis.RedisError, SoftTimeLimitExceeded) as error:
        if attempt >= MAX_TRANSIENT_RETRIES:
            return _give_up(runtime, event, type(error).__name__, str(error))
        _count_retry(runtime, type(error).__name__)
        raise task.retry(countdown=backoff_s(attempt)) from error
    except HubPermanentError as error:
        return _give_up(runtime, event, "hub-refused", str(error))
    except Exception as error:
        log.exception("pr event failed: delivery %s", event.get("delivery_id"))
        return _give_up(runtime, event, "crashed", f"{type(error).__name__}: {error}")
    finally:
        _finish(runtime, unfinished, outcome)
    return outcome


def _unfinished_key(task: Task[Any, Any]) -> str:
    return f"evalbot:unfinished:{task.request.id}"


def _count_retry(runtime: Runtime, reason: str) -> None:
    """Count a retry for metrics; best effort (Redis may be the very thing failing)."""
    try:
        count_retry(runtime.redis, reason)
    except redis.RedisError:
        log.warning("could not count a %s retry", reason)


def _finish(runtime: Runtime, key: str, outcome: str | None) -> None:
    """Clear the crash counter and, when the run ended, count its outcome: one round trip."""
    try:
        books = runtime.redis.pipeline(transaction=False)
        books.delete(key)
        if outcome is not None:
            count_outcome(books, outcome)
        books.execute()
    except redis.RedisError:
        log.warning("could not clear %s or count %s; counts may be off by one", key, outcome)


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
