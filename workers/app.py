"""The Celery application, built from `Settings` (`create_celery_app`), or lazily from the
environment as `app` for `celery -A workers.app`, so importing it connects to nothing. Each
setting names the failure it prevents (docs/security.md, "Celery and Redis")."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from typing import Any

from celery import Celery

from bot.queue.publishing import QUEUE, celery_settings
from bot.settings import Settings, SettingsError
from workers.broker import TRANSPORT
from workers.heartbeat_and_sweep import heartbeat_step

#: Modules holding the production tasks; the test suite builds apps with its own.
TASK_MODULES: tuple[str, ...] = ("workers.tasks", "workers.reconcile")
#: The periodic task (`workers.reconcile.RECONCILE_TASK`; named here so importing this module
#: stays cheap).
RECONCILE_TASK = "evalbot.reconcile"
#: Seconds before a running task is asked to stop (`SoftTimeLimitExceeded` inside it, so it
#: can give up cleanly and be retried). A run is a few Hub reads and one comment, seconds
#: even on a slow Hub whose every call may take `EVALBOT_HUB_TIMEOUT`; four minutes is a run
#: that is stuck, not slow.
TASK_SOFT_TIME_LIMIT_S = 240
#: Seconds before a task's process is killed (the task is then redelivered): one minute after
#: the soft limit, for a task that ignored it (stuck in C code, a socket without a timeout).
TASK_TIME_LIMIT_S = 300
#: Seconds before Redis hands an unacknowledged task to another worker. It must exceed the
#: hard time limit, or a task still running is started a second time elsewhere; the margin
#: (10 minutes) is also the longest retry countdown a worker may hold (`countdown_cap_s`).
VISIBILITY_TIMEOUT_S = 900


def celery_config(settings: Settings) -> dict[str, Any]:
    """The Celery configuration for `settings`, as a plain dict (inspectable in tests)."""
    visibility = {"visibility_timeout": VISIBILITY_TIMEOUT_S}
    sweep_every_s = max(1, min(10, VISIBILITY_TIMEOUT_S // 4))
    broker_options = {
        **visibility,
        # kombu only looks for expired unacked messages every interval x throttle seconds
        # (10 x 10 by default in kombu 5.7): a task lost with its worker would come back up to
        # ~100 s after the visibility timeout. Sweep every few seconds, each time for real.
        "unacked_restore_interval": sweep_every_s,
        "unacked_restore_throttle": 1,
        # Each sweep takes a lock in Redis (kombu's default expiry: 300 s). A Redis restart
        # while a worker holds it leaves it behind (the release fails; AOF keeps the key), and
        # no worker sweeps until it expires. A sweep takes milliseconds, and two at once
        # restore nothing twice (each restore is a WATCH/MULTI transaction), so the lock
        # expires after one sweep interval (docs/reliability.md, "Redis restarts").
        "unacked_mutex_expire": sweep_every_s,
    }
    return {
        **celery_settings(settings.redis_url, QUEUE),
        **beat_config(settings),
        # kombu's Redis transport, minus a crash when Redis drops during a task (broker.py).
        "broker_transport": TRANSPORT,
        # Ack after the task returns, not when it is received: a worker that dies mid-task
        # (deploy, OOM, SIGKILL) must leave the message to be redelivered, not lose the PR.
        "task_acks_late": True,
        # ... and even when the *child process* dies, which Celery would otherwise ack to avoid
        # poison loops; our tasks bound their own attempts instead (the lead's pipeline).
        "task_reject_on_worker_lost": True,
        # ... and when the hard time limit kills a hung task: Celery acks those by default, so
        # the PR would be dropped without a trace. Requeued, the rerun counts as a run that
        # did not finish, and a task that hangs every time is parked after a few (tasks.py).
        "task_acks_on_failure_or_timeout": False,
        # Reserve one message per process: with acks_late, prefetched messages of a busy or
        # killed worker wait for the visibility timeout while idle workers could run them.
        "worker_prefetch_multiplier": 1,
        # Redis redelivers an unacked message after the visibility timeout; it must exceed the
        # hard time limit, or a task still running is started a second time elsewhere.
        # Set identically in all three places (a shared broker uses the shortest value).
        "broker_transport_options": broker_options,
        "result_backend_transport_options": dict(visibility),
        "visibility_timeout": VISIBILITY_TIMEOUT_S,
        # A hung Hub call must not hold a worker forever: soft limit raises inside the task
        # (it can log and give up cleanly), the hard limit kills the child (then requeued).
        "task_soft_time_limit": TASK_SOFT_TIME_LIMIT_S,
        "task_time_limit": TASK_TIME_LIMIT_S,
        # JSON only (with `celery_settings`): no pickle from anyone who can write to Redis.
        "result_serializer": "json",
        "event_serializer": "json",
        # Start even if Redis is not up yet, and keep reconnecting forever when it goes away:
        # a worker that exits on a broker blip needs a human to come back.
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,
        # With late ack, a task whose broker connection dropped cannot be acked and will be
        # redelivered anyway: cancel it rather than let it finish and run twice in parallel.
        "worker_cancel_long_running_tasks_on_connection_loss": True,
        # On SIGTERM, give running tasks a warm period to finish before a cold shutdown.
        "worker_soft_shutdown_timeout": 30.0,
        # Keep our log handlers (structured lines), do not redirect print/stdout into logs.
        "worker_hijack_root_logger": False,
        "worker_redirect_stdouts": False,
        "task_send_sent_event": False,
        "worker_send_task_events": False,
        "timezone": "UTC",
    }


def beat_config(settings: Settings) -> dict[str, Any]:
    """The beat schedule: reconciliation every `reconcile_interval_s` (none when 0).

    The scheduler keeps its state in memory (`celery.beat:Scheduler`), not in a shelve file:
    an interval schedule needs no memory across restarts, and beat then writes nothing to a
    container's working directory. A message is useless once the next one is due, so it
    expires after one interval (a backlog of reconcile runs never builds up while workers are
    down).
    """
    interval = settings.reconcile_interval_s
    schedule = (
        {
            "evalbot-reconcile": {
                "task": RECONCILE_TASK,
                "schedule": float(interval),
                "options": {"expires": float(interval)},
            }
        }
        if interval > 0
        else {}
    )
    return {"beat_schedule": schedule, "beat_scheduler": "celery.beat:Scheduler"}


def create_celery_app(
    settings: Settings, *, task_modules: Sequence[str] = TASK_MODULES, name: str = "evalbot"
) -> Celery:
    """A Celery app configured from `settings`, importing `task_modules` at worker start."""
    app = Celery(name, set_as_current=False)
    app.conf.update(celery_config(settings))
    # Each worker's heartbeat, and the sweep that takes back a dead worker's messages long
    # before the visibility timeout (workers/heartbeat_and_sweep.py).
    app.steps["consumer"].add(heartbeat_step(settings))
    app.conf.imports = tuple(task_modules)
    return app


@cache
def app_from_environment() -> Celery:
    """The process's app, from `os.environ`, built once. A broken `config/bot.yaml` does not
    stop it: the app is then built from the environment alone, and each task parks its event
    naming the file's problems (`workers.tasks.runtime_for_process`)."""
    try:
        settings = Settings.from_env(os.environ)
    except SettingsError:
        settings = Settings.from_env(os.environ, read_bot_config=False)
    return create_celery_app(settings)


def __getattr__(name: str) -> Any:
    """`workers.app.app`: created from the environment on first use (for `celery -A`)."""
    if name == "app":
        return app_from_environment()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
