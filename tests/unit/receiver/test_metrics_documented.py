"""Every metric `/metrics` can show is in docs/operating.md's Metrics section, and nothing more."""

from __future__ import annotations

import asyncio
import re

from prometheus_client.parser import text_string_to_metric_families

from bot.receiver.app import ReceiverMetrics
from bot.receiver.worker_metrics import WorkerStatsCollector
from bot.store.worker_counters import FAMILIES, WorkerSnapshot
from tests.conftest import REPO_ROOT


class FullSource:
    async def read(self) -> WorkerSnapshot:
        return WorkerSnapshot({f"{family.prefix}:x": 1 for family in FAMILIES}, 1, 1, 1)

    async def close(self) -> None:
        return None


def exposed_names() -> set[str]:
    metrics = ReceiverMetrics()
    collector = WorkerStatsCollector(FullSource())
    metrics.registry.register(collector)
    asyncio.run(collector.refresh())
    text = metrics.render().decode()
    names = set()
    for family in text_string_to_metric_families(text):
        if family.name.endswith("_created"):
            continue  # prometheus_client's creation-time companion of each counter/histogram
        suffix = "_total" if family.type == "counter" else ""
        names.add(family.name + suffix)
    return names


def documented_names() -> set[str]:
    doc = (REPO_ROOT / "docs" / "operating.md").read_text()
    section = doc.split("\n## Metrics\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(evalbot_[a-z_]+)", section, flags=re.MULTILINE))


def test_every_exposed_metric_is_documented_and_every_documented_one_exists() -> None:
    documented = documented_names()
    assert len(documented) >= 15
    assert exposed_names() == documented
