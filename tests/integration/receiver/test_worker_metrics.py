"""`/metrics` of `evalbot serve` shows the workers' counters, read from Redis at scrape time,
and still answers (saying so) when Redis is down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from bot.store.deadletters import park
from evalbot_dev.devstack.redis import RedisServer
from tests.support.processes import ReceiverProcess, bot_environment
from workers.hub_pause import HubPause

pytestmark = pytest.mark.integration


@pytest.fixture
def receiver(redis_server: RedisServer, tmp_path: Path) -> Iterator[ReceiverProcess]:
    process = ReceiverProcess.create(bot_environment(redis_server.url), tmp_path).start()
    try:
        yield process
    finally:
        process.stop()


def scrape(receiver: ReceiverProcess) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = httpx.get(f"{receiver.url}/metrics", timeout=10)
    assert response.status_code == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def test_worker_counters_queue_and_dead_letters_are_exposed(
    receiver: ReceiverProcess, redis_server: RedisServer
) -> None:
    client: redis.Redis = redis_server.client()
    try:
        client.hset(
            "evalbot:stats",
            mapping={
                "outcome:posted": 3,
                "outcome:no-results": 1,
                "retry:hub-transient": 4,
                "parked:crashed": 1,
                "reconcile-run:completed": 2,
                "catchup:queued": 5,
                "replayed:crashed": 1,
                "mystery:thing": 9,  # not a known family: not exposed
                "outcome:bad label!": 1,  # not a sane label: not exposed
            },
        )
        park(client, {"kind": "updated"}, "crashed")
        client.rpush("evalbot", "m1", "m2")
        client.hset("unacked", "tag", "message")
    finally:
        client.close()

    samples = scrape(receiver)
    assert samples[("evalbot_hub_paused_seconds", ())] == 0.0  # no pause: the key is absent

    assert samples[("evalbot_worker_stats_up", ())] == 1.0
    assert samples[("evalbot_worker_outcomes_total", (("outcome", "posted"),))] == 3.0
    assert samples[("evalbot_worker_outcomes_total", (("outcome", "no-results"),))] == 1.0
    assert samples[("evalbot_worker_retries_total", (("reason", "hub-transient"),))] == 4.0
    # park() counted one more `crashed` on top of the one set above
    assert samples[("evalbot_worker_parked_total", (("reason", "crashed"),))] == 2.0
    assert samples[("evalbot_worker_replayed_total", (("reason", "crashed"),))] == 1.0
    assert samples[("evalbot_reconcile_runs_total", (("result", "completed"),))] == 2.0
    assert samples[("evalbot_reconcile_catchups_total", (("result", "queued"),))] == 5.0
    assert samples[("evalbot_dead_letters", ())] == 1.0
    assert samples[("evalbot_queue_length", ())] == 2.0
    assert samples[("evalbot_queue_unacked", ())] == 1.0

    client = redis_server.client()
    try:
        HubPause(client).extend(30.0)  # what a worker told to wait 30 s does
    finally:
        client.close()
    assert 29.0 < scrape(receiver)[("evalbot_hub_paused_seconds", ())] <= 30.0
    assert not [name for name, _ in samples if "mystery" in name]
    assert ("evalbot_worker_outcomes_total", (("outcome", "bad label!"),)) not in samples
    # the receiver's own metrics are still there
    assert ("evalbot_receiver_ack_seconds_count", ()) in samples


def test_redis_down_keeps_the_scrape_and_says_so(
    receiver: ReceiverProcess, redis_server: RedisServer
) -> None:
    assert scrape(receiver)[("evalbot_worker_stats_up", ())] == 1.0
    redis_server.stop()
    samples = scrape(receiver)
    assert samples[("evalbot_worker_stats_up", ())] == 0.0
    assert ("evalbot_queue_length", ()) not in samples  # no stale values
    assert samples[("evalbot_worker_stats_read_seconds", ())] < 1.0
    redis_server.start()
    assert scrape(receiver)[("evalbot_worker_stats_up", ())] == 1.0
