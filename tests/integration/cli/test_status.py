"""`evalbot status` against a real Redis holding worker heartbeats
(workers/heartbeat_and_sweep.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from bot.cli import main
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from tests.integration.cli.conftest import operator_env
from workers.heartbeat_and_sweep import Heartbeat

pytestmark = pytest.mark.integration


@pytest.fixture
def client(redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[redis.Redis]:
    operator_env(monkeypatch, redis_server.url)
    monkeypatch.setattr("bot.queue.publishing.QUEUE", "evalbot-status")
    connection = redis.Redis.from_url(redis_server.url)
    try:
        yield connection
    finally:
        connection.close()


def test_status_exits_1_without_workers_and_0_while_one_beats(
    client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status"]) == 1
    out, err = capsys.readouterr()
    assert "workers: 0 alive, 0 dead" in out
    assert "no worker is alive" in err

    client.rpush("evalbot-status", "m1", "m2")
    client.rpush("evalbot:dead-letters", "{}")
    worker = Heartbeat(client, worker_id="w1@host:42", interval_s=0.2, concurrency=2)
    worker.beat(1)
    assert main(["status"]) == 0
    out, _ = capsys.readouterr()
    assert "workers: 1 alive, 0 dead" in out
    assert "alive  w1@host:42  last heartbeat" in out
    assert "holding 1" in out
    assert "queue: 2 waiting" in out
    assert "parked: 1" in out
    assert "Hub pause: none" in out


def test_status_reports_a_silent_worker_dead_and_exits_1(
    client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    Heartbeat(client, worker_id="gone", interval_s=0.2).beat(0)

    def dead() -> dict[str, Any] | None:
        capsys.readouterr()
        code = main(["status", "--format", "json"])
        report = json.loads(capsys.readouterr().out)
        return report if code == 1 else None

    report = wait_until(dead, timeout=10, what="the worker to be seen dead")
    assert main(["status", "--json"]) == 1  # the old spelling, still read
    captured = capsys.readouterr()
    assert json.loads(captured.out)["workers_alive"] == 0
    assert captured.err == (
        "evalbot status: --json is deprecated and will be removed: use --format json\n"
    )
    assert report["workers_alive"] == 0
    (worker,) = report["workers"]
    assert worker["id"] == "gone"
    assert worker["alive"] is False


def test_status_exits_2_when_redis_is_unreachable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    operator_env(monkeypatch, "redis://127.0.0.1:1")
    monkeypatch.setattr("bot.store.REDIS_TIMEOUT_S", 0.2)
    assert main(["status"]) == 2
    assert "cannot reach Redis" in capsys.readouterr().err
