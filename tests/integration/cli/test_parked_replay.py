"""`evalbot parked` and `evalbot replay` against a real Redis holding parked events."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis

from bot.cli import main
from bot.queue.events import PrEvent
from bot.store import keys
from bot.store.deadletters import park, parked_events, replay
from evalbot_dev.devstack.redis import RedisServer
from tests.integration.cli.conftest import operator_env
from tests.support.queued import ledger_in_order
from workers.pr_lease import as_text

pytestmark = pytest.mark.integration


def event(num: int, kind: str = "updated") -> dict[str, object]:
    return PrEvent(
        kind=kind,  # type: ignore[arg-type]
        repo_id="alice/model",
        pr_num=num,
        delivery_id=f"delivery-{num}",
        received_at="2026-11-22T09:00:00.000Z",
    ).to_json()


@pytest.fixture
def client(redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[redis.Redis]:
    operator_env(monkeypatch, redis_server.url)
    monkeypatch.setattr("bot.store.REDIS_TIMEOUT_S", 0.5)
    connection = redis.Redis.from_url(redis_server.url)
    try:
        yield connection
    finally:
        connection.close()


def queued(client: redis.Redis) -> list[PrEvent]:
    """What is accepted and not yet sent: the ledger's events, in the order the sweep sends."""
    return [PrEvent.from_json(raw) for raw in ledger_in_order(client)]


def test_parked_lists_newest_first_with_reasons(
    client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["parked"]) == 0
    assert capsys.readouterr().out.strip() == "no parked events"

    park(client, event(1), "crashed", "Traceback...\nValueError: boom")
    park(client, event(2), "hub-refused", "404 Client Error")
    park(client, {"kind": "nonsense"}, "malformed-event", "unknown event kind")

    assert main(["parked", "--limit", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("3 parked event(s), showing 2")
    assert out[1].startswith("#0 ")
    assert "malformed-event" in out[1]
    assert "cannot be replayed" in out[1]
    assert out[3].startswith("#1 ")
    assert "hub-refused" in out[3]
    assert "alice/model#2 updated" in out[3]
    assert "delivery-2" in out[3]
    assert "404 Client Error" in out[4]

    assert main(["parked", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    listing = json.loads(captured.out)
    assert main(["parked", "--json"]) == 0  # the old spelling, with a one-line notice
    old = capsys.readouterr()
    assert json.loads(old.out) == listing
    assert (
        old.err == "evalbot parked: --json is deprecated and will be removed: use --format json\n"
    )
    assert [item["index"] for item in listing] == [0, 1, 2]
    assert [item["reason"] for item in listing] == ["malformed-event", "hub-refused", "crashed"]
    assert listing[2]["event"] == event(1)
    assert listing[2]["detail"].endswith("ValueError: boom")


def test_replay_one_by_index_queues_it_and_unparks_it(
    client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    park(client, event(1), "crashed")
    park(client, event(2), "hub-refused")

    assert main(["replay", "--index", "1"]) == 0
    assert "replayed #1: alice/model#1 updated" in capsys.readouterr().out
    assert [e.pr_num for e in queued(client)] == [1]
    assert [p.record["event"]["pr_num"] for p in parked_events(client)] == [2]
    assert as_text(client.hget("evalbot:stats", "replayed:crashed") or b"") == "1"

    assert main(["replay", "--index", "5"]) == 1
    assert "no parked event at position 5 (1 parked)" in capsys.readouterr().err


def test_replay_all_keeps_what_is_not_an_event(
    client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    park(client, event(1), "crashed")
    park(client, {"kind": "nonsense"}, "malformed-event")
    park(client, event(3, "closed"), "worker-lost")

    assert main(["replay", "--all"]) == 1  # one record kept
    out = capsys.readouterr().out
    assert "2 replayed, 1 kept" in out
    assert [(e.pr_num, e.kind) for e in queued(client)] == [(1, "updated"), (3, "closed")]
    left = parked_events(client)
    assert [p.record["reason"] for p in left] == ["malformed-event"]

    assert main(["replay", "--all"]) == 1
    assert len(queued(client)) == 2


def test_a_record_is_replayed_once_even_when_two_operators_race(client: redis.Redis) -> None:
    park(client, event(1), "crashed")
    seen_by_a = parked_events(client)[0]
    seen_by_b = parked_events(client)[0]
    assert replay(client, seen_by_a).value == "replayed"
    assert replay(client, seen_by_b).value == "gone"
    assert len(queued(client)) == 1
    assert client.llen(keys.DEAD_LETTERS) == 0


def test_usage_errors(client: redis.Redis, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["replay"])
    assert exited.value.code == 2
    assert main(["replay", "--index", "-1"]) == 2
    assert main(["parked", "--limit", "0"]) == 2


def test_redis_down_is_exit_2(
    client: redis.Redis, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from evalbot_dev.devstack.waiting import free_port

    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")
    assert main(["parked"]) == 2
    assert "cannot reach Redis" in capsys.readouterr().err
    assert main(["replay", "--all"]) == 2
