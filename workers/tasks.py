"""Celery tasks: thin shims from a queued message to the pipeline.

The receiver publishes `evalbot.process_pr_event` with one kwarg, `event` (a
`PrEvent.to_json()` dict); the work itself lives in `workers.pipeline.process_event`.
"""

from __future__ import annotations

import importlib
from typing import Any

from celery import shared_task

from bot.receiver.queue import TASK_NAME


@shared_task(name=TASK_NAME)
def process_pr_event(event: dict[str, Any]) -> None:
    # Looked up at call time: `workers.pipeline` is heavy (Hub client, validator) and is
    # written with the pipeline (issue 5 item 3); a worker without it fails loudly per task.
    pipeline = importlib.import_module("workers.pipeline")
    pipeline.process_event(event)
