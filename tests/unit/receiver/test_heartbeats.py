"""Worker heartbeats as the readers see them (bot/store/heartbeats.py): parsing, the
metrics, and `GET /readyz/workers`; no Redis (the writer is tested against a real one in
tests/integration/workers/test_ledger_redis.py)."""

from __future__ import annotations

import json

from starlette.testclient import TestClient

from bot.receiver.app import create_app
from bot.store.heartbeats import pairs, parse_workers
from bot.store.worker_counters import WorkerSnapshot
from tests.unit.receiver.test_app import SETTINGS, RecordingEnqueuer
from tests.unit.receiver.test_worker_counters import StaticSource, render

NOW = 1_800_000_000.0


def record(dead_after_s: float = 30.0, held: int = 0) -> bytes:
    return json.dumps(
        {"host": "h", "pid": 7, "concurrency": 2, "dead_after_s": dead_after_s, "held": held}
    ).encode()


def test_workers_are_alive_while_their_heartbeat_is_younger_than_they_said() -> None:
    records = {b"fresh": record(held=2), b"old": record(), b"broken": b"{"}
    beats = [(b"old", str(NOW - 31)), (b"fresh", str(NOW - 2)), (b"broken", str(NOW))]
    fresh, old = parse_workers(records, beats, NOW)
    assert (fresh.id, fresh.alive, fresh.held, fresh.concurrency) == ("fresh", True, 2, 2)
    assert (old.id, old.alive) == ("old", False)
    assert round(old.age_s) == 31
    assert parse_workers({}, beats, NOW) == []  # a beat without its record is no worker


def test_zrange_replies_are_read_flat_or_paired() -> None:
    assert pairs([b"a", b"1", b"b", b"2"]) == [(b"a", b"1"), (b"b", b"2")]
    assert pairs([(b"a", 1.0)]) == [(b"a", 1.0)]
    assert pairs([]) == []


def snapshot(*ages: float) -> WorkerSnapshot:
    beats = [(f"w{i}".encode(), str(NOW - age)) for i, age in enumerate(ages)]
    records = {f"w{i}".encode(): record() for i in range(len(ages))}
    return WorkerSnapshot({}, 0, 3, 0, workers=tuple(parse_workers(records, beats, NOW)))


def test_metrics_show_the_workers_alive_and_each_heartbeat_age() -> None:
    text = render(StaticSource(snapshot(1.5, 45.0)))
    assert "evalbot_workers_alive 1.0" in text
    assert 'evalbot_worker_heartbeat_age_seconds{worker="w0"} 1.5' in text
    assert 'evalbot_worker_heartbeat_age_seconds{worker="w1"} 45.0' in text


def test_readyz_workers_is_200_with_a_live_worker_and_503_without() -> None:
    for source, status, alive in (
        (StaticSource(snapshot(1.0)), 200, 1),
        (StaticSource(snapshot(40.0)), 503, 0),
        (StaticSource(snapshot()), 503, 0),
    ):
        app = create_app(SETTINGS, RecordingEnqueuer(), worker_stats=source)
        with TestClient(app, base_url="http://127.0.0.1") as client:
            answer = client.get("/readyz/workers")
            assert answer.status_code == status
            assert answer.json()["workers_alive"] == alive
            assert answer.json()["queue_length"] == 3
            assert client.get("/readyz").status_code == 200  # the receiver itself is ready


def test_readyz_workers_is_503_when_redis_cannot_be_read() -> None:
    app = create_app(SETTINGS, RecordingEnqueuer(), worker_stats=StaticSource(None))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert client.get("/readyz/workers").status_code == 503
