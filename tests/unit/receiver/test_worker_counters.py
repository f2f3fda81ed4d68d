"""Parsing the workers' stats hash and rendering it as Prometheus families (no Redis)."""

from __future__ import annotations

import asyncio

from prometheus_client import CollectorRegistry, generate_latest

from bot.receiver.worker_metrics import WorkerStatsCollector
from bot.store.worker_counters import FAMILIES, MAX_FIELDS, WorkerSnapshot, parse_stats


def test_parse_keeps_known_families_with_sane_labels_and_integer_counts() -> None:
    reply = [
        b"outcome:posted", b"3",
        b"parked:HubPermanentError", b"2",
        b"catchup:queued", b"7",
        b"unknown:x", b"1",
        b"outcome:", b"1",
        b"outcome:<script>", b"1",
        b"retry:busy", b"not-a-number",
    ]  # fmt: skip
    assert parse_stats(reply) == {
        "outcome:posted": 3,
        "parked:HubPermanentError": 2,
        "catchup:queued": 7,
    }


def test_parse_caps_the_number_of_fields() -> None:
    reply: list[bytes] = []
    for index in range(MAX_FIELDS + 50):
        reply += [f"retry:r{index}".encode(), b"1"]
    assert len(parse_stats(reply)) == MAX_FIELDS


class StaticSource:
    def __init__(self, snapshot: WorkerSnapshot | None) -> None:
        self.snapshot = snapshot

    async def read(self) -> WorkerSnapshot:
        if self.snapshot is None:
            raise ConnectionError("redis is down")
        return self.snapshot

    async def close(self) -> None:
        return None


def render(source: StaticSource) -> str:
    registry = CollectorRegistry()
    collector = WorkerStatsCollector(source)
    registry.register(collector)
    asyncio.run(collector.refresh())
    return generate_latest(registry).decode()


def test_every_family_renders_as_a_counter() -> None:
    counters = {f"{family.prefix}:x": 1 for family in FAMILIES}
    text = render(StaticSource(WorkerSnapshot(counters, 4, 5, 6, hub_paused_s=12.5, accepted=7)))
    for family in FAMILIES:
        assert f"# TYPE {family.name}_total counter" in text
        assert f'{family.name}_total{{{family.label_name}="x"}} 1.0' in text
    assert "evalbot_dead_letters 4.0" in text
    assert "evalbot_queue_length 5.0" in text
    assert "evalbot_queue_unacked 6.0" in text
    assert "evalbot_ledger_accepted 7.0" in text
    assert "evalbot_hub_paused_seconds 12.5" in text
    assert "evalbot_worker_stats_up 1.0" in text


def test_a_failed_read_is_up_0_without_stale_values() -> None:
    source = StaticSource(WorkerSnapshot({"outcome:posted": 1}, 0, 0, 0))
    registry = CollectorRegistry()
    collector = WorkerStatsCollector(source)
    registry.register(collector)
    asyncio.run(collector.refresh())
    assert (
        'evalbot_worker_outcomes_total{outcome="posted"} 1.0' in generate_latest(registry).decode()
    )
    source.snapshot = None
    asyncio.run(collector.refresh())
    text = generate_latest(registry).decode()
    assert "evalbot_worker_stats_up 0.0" in text
    assert 'outcome="posted"' not in text
