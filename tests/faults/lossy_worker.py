"""`python -m tests.faults.lossy_worker worker ...`: `evalbot worker` with Celery's default for
a dead pool process, `task_reject_on_worker_lost` off (test only; no production setting).

Everything else is the production worker: the same command line, settings and Celery app
(`workers.app.create_celery_app`), with only that flag flipped, on the app's configuration and
on the task (in case it ever sets the flag itself). `test_lossy_worker.py` shows what the flag
is for: with it off, a task whose pool process is SIGKILLed mid-run is acknowledged and lost.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from celery import Celery

import workers.app
from bot.queue.publishing import TASK_NAME
from bot.settings import Settings

_production_app = workers.app.create_celery_app


def create_lossy_celery_app(settings: Settings, **options: Any) -> Celery:
    """The production app, with `task_reject_on_worker_lost` off."""
    app = _production_app(settings, **options)
    app.conf.task_reject_on_worker_lost = False
    import workers.tasks  # noqa: F401 - registers the task, so the app can bind it now

    # The parent process decides ack or requeue when a pool child dies (celery.worker.request),
    # from the task's attribute: set it too, before the pool forks.
    app.tasks[TASK_NAME].reject_on_worker_lost = False
    return app


def main(argv: Sequence[str]) -> int:
    workers.app.create_celery_app = create_lossy_celery_app  # what `evalbot worker` calls
    from bot.cli import main as evalbot

    return evalbot(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
