"""A test-only Celery app: the production configuration, with a task that records its input.

Run as `celery -A tests.support.celery_recorder worker` (the environment holds the settings).
The task has the production name and signature and appends each event it receives, checked
by `PrEvent.from_json`, to the Redis list `RECORDED_EVENTS`, so a test can see exactly what a
real worker consumed from what the receiver published.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import redis

from bot.queue.events import PrEvent
from bot.queue.publishing import TASK_NAME
from bot.settings import Settings
from tests.support.processes import RECORDED_EVENTS, SLOW_REPO
from workers.app import create_celery_app

settings = Settings.from_env(os.environ)
app = create_celery_app(settings, task_modules=(), name="evalbot-test-recorder")
_recorder = redis.Redis.from_url(settings.redis_url)


@app.task(name=TASK_NAME)
def record_event(event: dict[str, Any]) -> None:
    checked = PrEvent.from_json(event)  # raises (and the test sees no record) if malformed
    _recorder.rpush(RECORDED_EVENTS, json.dumps(checked.to_json(), sort_keys=True))
    attempt = _recorder.incr(f"evalbot:test:attempts:{checked.delivery_id}")
    if checked.repo_id == SLOW_REPO and attempt == 1:
        time.sleep(120)
