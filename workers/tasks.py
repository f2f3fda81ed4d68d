"""The PR event's Celery task: a thin shim from a queued message to `workers.pipeline`, and the
I/O around the retry policy's decisions (attempt counts, the Hub pause, retries, parking, the
ledger entry, counters)."""

from __future__ import annotations

import logging
import os
from typing import Any

import redis
from celery import Task, shared_task
from kombu.exceptions import OperationalError

from bot.hub.errors import HubError, HubTransientError
from bot.logs import log_json
from bot.queue.events import PrEvent
from bot.queue.publishing import TASK_NAME, queue_done, queue_touch
from bot.settings import Settings
from bot.store import REDIS_TIMEOUT_S, keys
from bot.store.deadletters import park
from workers.hub_pause import HubPause, HubPaused, pause_for
from workers.pipeline import run_event
from workers.pr_lease import as_text
from workers.retry_policy import (
    COUNTERS,
    Failure,
    Kind,
    Limits,
    Park,
    Retry,
    classify,
    decide,
    on_start,
    stop_behind,
)
from workers.runtime import Runtime
from workers.startup import StartupError, settings_from, worker_runtime
from workers.unchecked import mark_unchecked, why_not_checked

log = logging.getLogger("evalbot.worker")

#: How long attempt counts are kept (a message comes back within the visibility timeout).
ATTEMPTS_TTL_S = 24 * 3600

#: The process's runtime (one slot): set at start-up by `install_runtime`, or on first use.
_RUNTIME: list[Runtime] = []


def install_runtime(runtime: Runtime) -> None:
    """The runtime `evalbot worker` built and checked before its consumer started; the pool's
    processes inherit it when they fork (docs/operating.md, "Start-up checks")."""
    _RUNTIME[:] = [runtime]


def runtime_for_process() -> Runtime:
    """The process's runtime: the one installed at start-up, else (a worker started without
    `evalbot worker`, e.g. `celery -A workers.app worker`) built and checked on first use.
    Raises `StartupError` when the configuration or the token is refused."""
    if not _RUNTIME:
        install_runtime(worker_runtime(settings_from(os.environ)))
    return _RUNTIME[0]


@shared_task(name=TASK_NAME, bind=True, max_retries=None)
def process_pr_event(self: Task[Any, Any], event: dict[str, Any]) -> str:
    try:
        runtime = runtime_for_process()
    except StartupError as error:
        return _park_unconfigured(event, error, self.request.id)
    try:
        return handle(self, event, runtime)
    except (redis.RedisError, OperationalError) as error:
        # Redis failed under the run's own bookkeeping: the failure is Celery's to log and its
        # message Celery's to drop or keep; the event stays in the ledger, which sends it again
        # once due (bot.queue.publishing). Only a stop the error hid is raised instead.
        _stop_if_stopping(error)
        raise


def _stop_if_stopping(error: BaseException) -> None:
    """Re-raise the stop (SIGTERM's `SystemExit`) a failure hides, so a cancelled or stopping
    run exits as told instead of being retried as a failure (see
    `workers.retry_policy.stop_behind`). Its message is left to the broker and its event to
    the ledger, as after any worker stop."""
    stop = stop_behind(error)
    if stop is not None:
        log.info("run stopped by a signal; a cleanup error hid it: %s", error)
        raise stop


def _park_unconfigured(event: dict[str, Any], error: StartupError, task_id: str | None) -> str:
    """Park an event this worker cannot run because its own configuration is broken: not the
    event's fault, so it is kept (never dropped) and `evalbot replay` runs it once fixed."""
    decision = decide(Failure(Kind.CONFIG, str(error)), tries=1)
    assert isinstance(decision, Park)  # the policy never retries a configuration failure
    # the same environment the app was built from; the broken file is what is parked for
    settings = Settings.from_env(os.environ, read_bot_config=False)
    client = redis.Redis.from_url(settings.redis_url, socket_timeout=REDIS_TIMEOUT_S * 5)
    try:
        return _give_up(client, event, decision, task_id)
    finally:
        client.close()


def handle(task: Task[Any, Any], event: dict[str, Any], runtime: Runtime) -> str:
    """Run the pipeline for one message; on failure, carry out what `workers.retry_policy`
    decides (retry after a countdown, or park). Returns the outcome.

    Attempts are counted per message (the task id, stable across retries and redeliveries) in
    one Redis hash, each kind against its own budget: waiting for a busy PR must not use up
    the retries a Hub outage needs, and an orderly retry must not wipe the count of runs that
    died (a poison event killed its worker, was requeued, found its own dead run's lease...).
    """
    task_id = str(task.request.id)
    try:
        parsed = PrEvent.from_json(event)
    except ValueError as error:
        park(runtime.redis, event, "malformed-event", str(error), task_id=task_id)
        return "parked"
    attempts = Attempts(runtime.redis, task_id)
    started, paused_s = attempts.begin()
    gave_up = on_start(started)
    if gave_up is not None:
        attempts.forget()
        parked = _give_up(runtime.redis, event, gave_up, task_id)
        _tell_unchecked(runtime, parsed, gave_up, task_id, None)
        return parked
    if started > 1:
        _count_retry(runtime, "worker-lost")  # redelivered after its worker died mid-run
    outcome: str | None = None
    finished = False  # a terminal outcome or a park: the attempt counts can go
    next_run_in = 0.0  # a retry's countdown
    try:
        try:
            if paused_s > 0:
                raise HubPaused(paused_s)  # the fleet was told to wait: no Hub call from us
            outcome = run_event(parsed, runtime, owner=task.request.id).value
        except Exception as error:  # every failure goes through the policy
            _stop_if_stopping(error)
            failure = classify(error)
            if failure.kind is Kind.CRASHED:
                log.exception("pr event failed: delivery %s", event.get("delivery_id"))
            decision = _decide(runtime, attempts, failure, error)
            if isinstance(decision, Retry):
                _count_retry(runtime, decision.reason)
                next_run_in = decision.countdown
                raise task.retry(countdown=decision.countdown, max_retries=None) from error
            finished = True
            parked = _give_up(runtime.redis, event, decision, task_id)
            _tell_unchecked(runtime, parsed, decision, task_id, error)
            return parked
        finished = True
        return outcome
    finally:
        attempts.ended(finished, outcome, next_run_in)


def _decide(
    runtime: Runtime, attempts: Attempts, failure: Failure, error: Exception
) -> Retry | Park:
    """The policy's decision, after the I/O it needs: the attempt counts, and the fleet-wide
    pause a Hub answer that said how long to wait sets."""
    limits = Limits(
        max_countdown_s=runtime.max_countdown_s,
        throttle_budget_s=runtime.throttle_budget_s,
        lease_ttl_s=runtime.lease_ttl_s,
    )
    pause_left_s = 0.0
    if isinstance(error, HubPaused):
        pause_left_s = error.remaining_s
    elif isinstance(error, HubTransientError):
        pause_left_s = _pause_fleet(runtime, error)
    if failure.kind is Kind.THROTTLED:
        tries, throttled_s = attempts.throttled()
        return decide(
            failure, tries=tries, limits=limits, throttled_s=throttled_s, pause_left_s=pause_left_s
        )
    counter = COUNTERS.get(failure.kind)
    tries = attempts.count(counter) if counter is not None else 1
    return decide(failure, tries=tries, limits=limits, pause_left_s=pause_left_s)


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


def _count_retry(runtime: Runtime, reason: str) -> None:
    """Count a retry for metrics (`keys.STATS`, read by `/metrics`); best effort (Redis may be
    the very thing failing)."""
    try:
        runtime.redis.hincrby(keys.STATS, f"retry:{reason}", 1)
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
        self._task_id = str(task_id)
        self._key = keys.attempts(self._task_id)

    def begin(self) -> tuple[int, float]:
        """Count a run's start: the runs started and not ended in order (this one included),
        and the seconds the fleet-wide Hub pause has left, in one round trip: every run needs
        both before it calls the Hub. The event's ledger entry is touched: a run has started,
        its worker may still die."""
        pipe = self._client.pipeline(transaction=True)
        pipe.hincrby(self._key, "unfinished", 1)
        pipe.expire(self._key, ATTEMPTS_TTL_S)
        HubPause.queue_read(pipe)
        queue_touch(pipe, self._task_id, 0.0)
        count, _, paused, _ = pipe.execute()
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

    def ended(self, finished: bool, outcome: str | None = None, next_run_in: float = 0.0) -> None:
        """Close the run's books in one round trip: forget the counts and the ledger entry
        when the event is done (else mark this run as ended in order, and move the entry's due
        time past the retry's countdown), and count its outcome if it has one."""
        try:
            books = self._client.pipeline(transaction=False)
            if finished:
                books.delete(self._key)
                queue_done(books, self._task_id)
            else:
                books.hincrby(self._key, "unfinished", -1)
                queue_touch(books, self._task_id, next_run_in)
            if outcome is not None:
                books.hincrby(keys.STATS, f"outcome:{outcome}", 1)  # read by /metrics
            books.execute()
        except redis.RedisError:
            log.warning("could not update %s; a later crash count may be off by one", self._key)

    def forget(self) -> None:
        self._client.delete(self._key)


def _tell_unchecked(
    runtime: Runtime, event: PrEvent, decision: Park, task_id: str, error: Exception | None
) -> None:
    """Once parked, the PR's comment says its current head was not checked, and why, rather
    than keeping an earlier head's verdict (`workers.unchecked`; best effort, logged)."""
    status = error.status if isinstance(error, HubError) else None
    try:
        mark_unchecked(runtime, event, why_not_checked(decision.reason, status), owner=task_id)
    except Exception:  # the event is parked whatever happens here
        log.exception("could not note the unchecked head of %s", event.delivery_id)


def _give_up(
    client: redis.Redis, event: dict[str, Any], decision: Park, task_id: str | None
) -> str:
    log_json(
        log,
        logging.ERROR,
        "pr event parked",
        delivery=event.get("delivery_id"),
        reason=decision.reason,
        detail=decision.detail,
    )
    park(client, event, decision.reason, decision.detail, task_id=task_id)
    return "parked"
