"""`evalbot worker`: a Celery worker for the bot's queue, settings from the environment."""

from __future__ import annotations

import argparse
import os
import sys

from bot.cli import command_texts


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "worker",
        help="run a Celery worker that processes queued PR events",
        description="Run a Celery worker on the queue the receiver publishes to. Settings come "
        "from the environment (docs/operating.md); scale out by running more workers.",
    )
    parser.add_argument(
        "--concurrency", type=int, default=1, help="worker processes (default: %(default)s)"
    )
    parser.add_argument(
        "--pool",
        choices=("prefork", "solo", "threads"),
        default="prefork",
        help="Celery execution pool (default: %(default)s)",
    )
    parser.add_argument("--hostname", default=None, help="node name (default: Celery's)")
    parser.add_argument("--beat", action="store_true", help=command_texts.WORKER_BEAT_HELP)
    parser.set_defaults(run=run, needs_server=True)


def run(args: argparse.Namespace) -> int:
    from bot.logs import configure_logging
    from bot.queue.publishing import QUEUE
    from bot.settings import Settings, SettingsError
    from workers.app import create_celery_app
    from workers.startup import StartupError, worker_runtime
    from workers.tasks import install_runtime

    if args.concurrency < 1:
        print("evalbot worker: --concurrency must be at least 1", file=sys.stderr)
        return 2
    try:
        settings = Settings.from_env(os.environ)
    except SettingsError as error:
        print(f"evalbot worker: {error}", file=sys.stderr)
        return 2
    if getattr(args, "beat", False) and settings.reconcile_interval_s == 0:
        print(command_texts.RECONCILE_DISABLED.format(command="worker --beat"), file=sys.stderr)
        return 2
    try:
        # Before the consumer starts (the settings checked the configuration file): whom
        # HF_TOKEN belongs to (one Hub call). The pool's processes inherit the runtime when
        # they fork.
        install_runtime(worker_runtime(settings))
    except StartupError as error:
        print(f"evalbot worker: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    quiet_celery_task_lines()
    app = create_celery_app(settings)
    argv = worker_argv(args, queue=QUEUE, log_level=settings.log_level)
    app.worker_main(argv)  # exits the process when the worker stops
    return 0  # type: ignore[unreachable]  # (for ruff: a function returning int returns)


#: Celery's own per-task lines ("Task ... received", "Task ... succeeded in ..."): each run
#: already logs one structured line (`pr event processed`, workers/pipeline.py) with more in
#: it, so at INFO these two would triple the log volume and its CPU. Failures still show.
CELERY_TASK_LOGGERS = ("celery.worker.strategy", "celery.app.trace")


def quiet_celery_task_lines() -> None:
    """Celery's per-task lines only at DEBUG (where an operator asked for everything)."""
    import logging

    for name in CELERY_TASK_LOGGERS:
        logger = logging.getLogger(name)
        if logger.getEffectiveLevel() > logging.DEBUG:
            logger.setLevel(max(logger.getEffectiveLevel(), logging.WARNING))


def worker_argv(args: argparse.Namespace, *, queue: str, log_level: str) -> list[str]:
    """Celery worker arguments; mingle and gossip are off: they add broker chatter at start-up
    and were part of the "worker stops consuming after a Redis restart" reports
    (docs/security.md#celery-and-redis), and a bot worker needs neither."""
    argv = [
        "worker",
        f"--concurrency={args.concurrency}",
        f"--pool={args.pool}",
        f"--queues={queue}",
        f"--loglevel={log_level}",
        "--without-mingle",
        "--without-gossip",
    ]
    if args.hostname:
        argv.append(f"--hostname={args.hostname}")
    if getattr(args, "beat", False):
        # Celery's embedded beat (-B): the scheduler in a child of this worker (docs/operating.md,
        # "Reconciliation": one beat per deployment).
        argv.append("--beat")
    return argv
