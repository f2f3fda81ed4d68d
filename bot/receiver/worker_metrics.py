"""The workers' state on the receiver's `/metrics`, read from their Redis keys; a scrape never
fails because of Redis (docs/operating.md, "Metrics")."""

from __future__ import annotations

import time
from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from bot.store.worker_counters import FAMILIES, WorkerSnapshot, WorkerStatsSource


class WorkerStatsCollector:
    """A Prometheus collector showing the last snapshot read (`refresh` before rendering)."""

    def __init__(self, source: WorkerStatsSource) -> None:
        self.source = source
        self._snapshot: WorkerSnapshot | None = None
        self._read_seconds = 0.0

    async def refresh(self) -> None:
        """Read a new snapshot; on any failure, forget the old one (stale values would lie)."""
        started = time.perf_counter()
        try:
            self._snapshot = await self.source.read()
        except Exception:  # never fail the scrape: evalbot_worker_stats_up says it
            self._snapshot = None
        self._read_seconds = time.perf_counter() - started

    def describe(self) -> Iterator[Metric]:
        return self._families(None)

    def collect(self) -> Iterator[Metric]:
        return self._families(self._snapshot)

    def _families(self, snapshot: WorkerSnapshot | None) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "evalbot_worker_stats_up",
            "1 when the worker metrics were read from Redis for this scrape, else 0 (the "
            "worker metrics are then absent).",
        )
        up.add_metric([], 1.0 if snapshot is not None else 0.0)
        yield up
        took = GaugeMetricFamily(
            "evalbot_worker_stats_read_seconds", "Time this scrape spent reading Redis."
        )
        took.add_metric([], self._read_seconds)
        yield took
        if snapshot is None:
            return
        for family in FAMILIES:
            counter = CounterMetricFamily(family.name, family.help, labels=[family.label_name])
            for field, count in sorted(snapshot.counters.items()):
                prefix, _, label = field.partition(":")
                if prefix == family.prefix:
                    counter.add_metric([label], float(count))
            yield counter
        for name, text, value in (
            (
                "evalbot_dead_letters",
                "Parked events on the dead-letter list now.",
                snapshot.dead_letters,
            ),
            ("evalbot_queue_length", "Events waiting in the queue now.", snapshot.queue_length),
            (
                "evalbot_ledger_accepted",
                "Events accepted and not yet finished (in the ledger: queued, running, or "
                "waiting for a retry); one that stays is sent again once overdue.",
                snapshot.accepted,
            ),
            (
                "evalbot_queue_unacked",
                "Events delivered to a worker and not yet acknowledged (running, or waiting "
                "for a retry's countdown).",
                snapshot.unacked,
            ),
            (
                "evalbot_hub_paused_seconds",
                "Seconds left of the workers' shared Hub pause, set when the Hub answered 429 "
                "or 503 with a wait (0: the workers call the Hub).",
                snapshot.hub_paused_s,
            ),
        ):
            gauge = GaugeMetricFamily(name, text)
            gauge.add_metric([], float(value))
            yield gauge
        alive = GaugeMetricFamily(
            "evalbot_workers_alive",
            "Workers whose last heartbeat is recent (consuming now); 0 means events queue up "
            "and nothing runs them.",
        )
        alive.add_metric([], float(sum(1 for worker in snapshot.workers if worker.alive)))
        yield alive
        age = GaugeMetricFamily(
            "evalbot_worker_heartbeat_age_seconds",
            "Seconds since each known worker's last heartbeat (dead ones are listed for an "
            "hour after their last).",
            labels=["worker"],
        )
        for worker in snapshot.workers:
            age.add_metric([worker.id[:120]], worker.age_s)
        yield age
