"""Prometheus metrics of the receiver, in a registry of their own (one per app instance).

Names follow `evalbot_receiver_<what>`; label values are the small fixed vocabularies of
`OUTCOMES` and `events.IGNORE_REASONS`, never user input, so cardinality stays bounded.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from bot.contract.events import EVENT_KINDS
from bot.receiver.events import IGNORE_REASONS
from bot.receiver.texts import ANSWERS

#: Every delivery outcome, in the order of `bot.receiver.texts.ANSWERS` (the one table).
OUTCOMES = tuple(ANSWERS)

_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class ReceiverMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        deliveries = Counter(
            "evalbot_receiver_deliveries",
            "Webhook deliveries by outcome.",
            ["outcome"],
            registry=self.registry,
        )
        self._ignored = ignored = Counter(
            "evalbot_receiver_ignored",
            "Deliveries answered 202 without queueing, by reason.",
            ["reason"],
            registry=self.registry,
        )
        queued = Counter(
            "evalbot_receiver_events_queued",
            "Events queued for the workers, by kind.",
            ["kind"],
            registry=self.registry,
        )
        self.commands_ignored = Counter(
            "evalbot_receiver_commands_ignored",
            "Comments addressed to the bot that were not accepted (unknown command, own comment).",
            ["reason"],
            registry=self.registry,
        )
        self.enqueue_seconds = Histogram(
            "evalbot_receiver_enqueue_seconds",
            "Time to dedupe and publish one event to Redis.",
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.ack_seconds = Histogram(
            "evalbot_receiver_ack_seconds",
            "Time from request start to response for POST /webhooks/hub.",
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        # Children resolved once: a label lookup per delivery takes a lock and a dict probe.
        self.deliveries = {outcome: deliveries.labels(outcome) for outcome in OUTCOMES}
        self.ignored = {reason: ignored.labels(reason) for reason in IGNORE_REASONS}
        self.queued = {kind: queued.labels(kind) for kind in EVENT_KINDS}

    def count_ignored(self, reason: str) -> None:
        child = self.ignored.get(reason)
        if child is None:  # a reason added to events without a pre-made child: still counted
            child = self.ignored[reason] = self._ignored.labels(reason)
        child.inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
