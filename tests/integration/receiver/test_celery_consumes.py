"""A real Celery worker consumes what the receiver publishes and runs the task with its event."""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bot.queue.events import PrEvent
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from tests.support.processes import (
    RECORDED_EVENTS,
    SLOW_REPO,
    TEST_SECRET,
    TEST_TUNING,
    ChildProcess,
    ReceiverProcess,
    bot_account_hub,
    bot_environment,
    celery_worker,
)
from tests.support.samples import webhook_bytes
from tests.support.tuning import tuned

pytestmark = pytest.mark.integration


@pytest.fixture
def stack(
    redis_server: RedisServer, tmp_path: Path
) -> Iterator[tuple[ReceiverProcess, ChildProcess]]:
    env = bot_environment(redis_server.url)
    receiver = ReceiverProcess.create(env, tmp_path).start()
    worker = celery_worker(env, "tests.support.celery_recorder", tmp_path, queue="evalbot")
    try:
        yield receiver, worker
    finally:
        worker.stop()
        receiver.stop()


def test_worker_runs_the_task_with_the_published_event(
    stack: tuple[ReceiverProcess, ChildProcess], redis_server: RedisServer
) -> None:
    receiver, worker = stack
    headers = {"Content-Type": "application/json", "X-Webhook-Secret": TEST_SECRET}
    deliveries = {
        "wid-push": "pr_push.repo_content_update",
        "wid-recheck": "comment_mention_recheck.discussion_comment_create",
        "wid-merged": "pr_merged.discussion_update",
    }
    for webhook_id, sample in deliveries.items():
        response = httpx.post(
            f"{receiver.url}/webhooks/hub",
            content=webhook_bytes(sample),
            headers=headers | {"Webhook-Id": webhook_id},
        )
        assert response.json()["status"] == "queued"
    broker = redis_server.client()
    try:
        # Queued before any worker runs: nothing is lost (sent just after each answer).
        wait_until(lambda: broker.llen("evalbot") == 3, timeout=10, what="three messages")
        worker.spawn()

        def three_recorded() -> list[bytes | str] | None:
            items = broker.lrange(RECORDED_EVENTS, 0, -1)
            return items if len(items) == 3 else None

        recorded = wait_until(three_recorded, timeout=30, what=f"3 events in {worker.log_path}")
        events = {
            event.delivery_id: event
            for event in (PrEvent.from_json(json.loads(raw)) for raw in recorded)
        }
        assert set(events) == set(deliveries)
        push, recheck, merged = events["wid-push"], events["wid-recheck"], events["wid-merged"]
        assert (push.kind, push.pr_num, push.head_sha) == (
            "updated",
            7,
            "b4d6f8a0c2e4a6b8d0f2c4e6a8b0d2f4c6e8a0b2",
        )
        assert (recheck.kind, recheck.command, recheck.comment_author_id) == (
            "command",
            "recheck",
            "6650a0aa0b1c2d3e4f567890",
        )
        assert merged.kind == "merged"
        # Acked after running (acks_late): nothing left in the queue or among the unacked.
        wait_until(
            lambda: broker.llen("evalbot") == 0 and broker.hlen("unacked") == 0,
            timeout=10,
            what="queue drained and all messages acked",
        )
    finally:
        broker.close()


def test_evalbot_worker_consumes_the_receivers_queue(
    stack: tuple[ReceiverProcess, ChildProcess], redis_server: RedisServer, tmp_path: Path
) -> None:
    """`evalbot worker` runs the production app: it takes the receiver's message off the queue
    and hands it to `evalbot.process_pr_event` (whatever the pipeline then does with it)."""
    receiver, _ = stack
    response = httpx.post(
        f"{receiver.url}/webhooks/hub",
        content=webhook_bytes("pr_push.repo_content_update"),
        headers={"Content-Type": "application/json", "X-Webhook-Secret": TEST_SECRET},
    )
    assert response.json()["status"] == "queued"
    # DEBUG: Celery's own "Task ... received" line, the proof sought here, is DEBUG-only.
    with bot_account_hub() as hub:  # the worker asks who its token belongs to
        env = bot_environment(redis_server.url, EVALBOT_LOG_LEVEL="DEBUG", HF_ENDPOINT=hub.url)
        command = [sys.executable, "-m", "bot", "worker", "--pool=solo", "--concurrency=1"]
        worker = ChildProcess(command=command, env=env, log_path=tmp_path / "evalbot-worker.log")
        worker.spawn()
        broker = redis_server.client()
        try:
            wait_until(
                lambda: (
                    "evalbot.process_pr_event[" in worker.output() and "received" in worker.output()
                ),
                timeout=30,
                what=f"the task received by `evalbot worker` (see {worker.log_path})",
            )
            assert broker.llen("evalbot") == 0
        finally:
            broker.close()
            worker.stop()


def test_task_of_a_killed_worker_is_redelivered(redis_server: RedisServer, tmp_path: Path) -> None:
    """acks_late + reject_on_worker_lost + the restore sweep: a worker SIGKILLed mid-task loses
    nothing; another worker runs the task once the visibility timeout has passed."""
    env = bot_environment(
        redis_server.url,
        **tuned(
            {
                **TEST_TUNING,
                "workers.app.TASK_SOFT_TIME_LIMIT_S": 1,
                "workers.app.TASK_TIME_LIMIT_S": 2,
                "workers.app.VISIBILITY_TIMEOUT_S": 3,
            }
        ),
    )
    receiver = ReceiverProcess.create(env, tmp_path).start()
    first = celery_worker(env, "tests.support.celery_recorder", tmp_path / "first", "evalbot")
    second = celery_worker(env, "tests.support.celery_recorder", tmp_path / "second", "evalbot")
    broker = redis_server.client()
    try:
        payload = json.loads(webhook_bytes("pr_push.repo_content_update"))
        payload["repo"]["name"] = SLOW_REPO
        response = httpx.post(
            f"{receiver.url}/webhooks/hub",
            content=json.dumps(payload).encode(),
            headers={
                "Content-Type": "application/json",
                "X-Webhook-Secret": TEST_SECRET,
                "Webhook-Id": "killed-mid-task",
            },
        )
        assert response.json()["status"] == "queued"
        first.spawn()
        wait_until(lambda: broker.llen(RECORDED_EVENTS) == 1, timeout=30, what="first attempt")
        assert broker.hlen("unacked") == 1  # running, not acked (late ack)
        first.stop(signal.SIGKILL)
        killed_at = time.monotonic()
        second.spawn()
        wait_until(lambda: broker.llen(RECORDED_EVENTS) == 2, timeout=30, what="redelivery")
        recovered_after = time.monotonic() - killed_at
        wait_until(lambda: broker.hlen("unacked") == 0, timeout=10, what="the redelivery acked")
        assert broker.llen("evalbot") == 0
        events = [
            PrEvent.from_json(json.loads(raw)) for raw in broker.lrange(RECORDED_EVENTS, 0, -1)
        ]
        assert [event.delivery_id for event in events] == ["killed-mid-task"] * 2
        # Visibility timeout (3 s) plus one restore sweep (1 s here), with start-up slack.
        assert recovered_after < 15
    finally:
        broker.close()
        second.stop()
        first.stop(signal.SIGKILL)
        receiver.stop()
