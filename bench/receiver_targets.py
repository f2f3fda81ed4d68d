"""The servers `bench/receiver.py` compares, as uvicorn app factories (`--factory`).

- `bare_app`: a Starlette POST handler that reads the body and answers 202: the ceiling.
- `naive_app`: the evalbot receiver with the textbook enqueue (a `SET NX` dedupe key, then
  Celery `send_task`, i.e. `apply_async` by name, with the key undone if publishing fails),
  called from the handler as most code does: the cost being measured.
The evalbot receiver itself runs as `evalbot serve`.
"""

from __future__ import annotations

import os

import redis
from celery import Celery
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.queue.enqueuer import EnqueueOutcome, QueueUnavailable
from bot.queue.events import DedupeKey, PrEvent
from bot.queue.publishing import TASK_NAME
from bot.receiver.app import WEBHOOK_PATH, create_app
from bot.settings import Settings
from bot.store.keys import DEDUPE_PREFIX
from workers.app import create_celery_app


def bare_app() -> Starlette:
    async def receive(request: Request) -> Response:
        await request.body()
        return Response(b'{"status":"queued"}', status_code=202, media_type="application/json")

    return Starlette(routes=[Route(WEBHOOK_PATH, receive, methods=["POST"])])


class NaiveCeleryEnqueuer:
    """SET NX, then `send_task`; two round trips and kombu's publish path per delivery."""

    def __init__(self, settings: Settings) -> None:
        self._redis = redis.Redis.from_url(settings.redis_url)
        self._celery: Celery = create_celery_app(settings, task_modules=())

    async def enqueue(self, event: PrEvent, dedupe: DedupeKey) -> EnqueueOutcome:
        key = DEDUPE_PREFIX + dedupe.key
        try:
            if not self._redis.set(key, event.delivery_id, nx=True, ex=dedupe.ttl_s):
                return EnqueueOutcome.DUPLICATE
            try:
                self._celery.send_task(TASK_NAME, kwargs={"event": event.to_json()})
            except Exception:
                self._redis.delete(key)
                raise
        except Exception as error:
            raise QueueUnavailable(str(error)) from error
        return EnqueueOutcome.QUEUED

    async def ready(self) -> bool:
        return bool(self._redis.ping())

    async def close(self) -> None:
        self._redis.close()


def naive_app() -> Starlette:
    settings = Settings.from_env(os.environ)
    return create_app(settings, NaiveCeleryEnqueuer(settings))
