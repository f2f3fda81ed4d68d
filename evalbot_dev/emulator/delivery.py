"""Webhook delivery: a background worker pool that POSTs payloads like the Hub does.

Each change in the state becomes one delivery per matching webhook, with its payload frozen at
that moment. Workers POST the JSON with `X-Webhook-Secret` (and `Webhook-Id`, stable across
retries, as the Hub documents since hub-docs #2749; it can be switched off to emulate the older
Hub). A non-2xx answer or a network error is retried with exponential backoff. Every attempt is
recorded in the delivery log. `WebhookFaults` can delay, drop, duplicate and reorder deliveries.
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2

from evalbot_dev.emulator import payloads
from evalbot_dev.emulator.faults import WebhookFaults
from evalbot_dev.emulator.hubtime import hub_format, now
from evalbot_dev.emulator.state import HubState, Trigger


@dataclass
class DeliverySettings:
    send_webhook_id: bool = True
    max_attempts: int = 5
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0
    timeout_s: float = 10.0
    #: One worker sends in the order changes happened (retries aside); more workers send
    #: faster to slow receivers but may reorder deliveries.
    workers: int = 1


@dataclass
class Delivery:
    id: str
    webhook_id: str
    url: str
    secret: str | None
    scope: str
    action: str
    body: bytes
    attempt: int = 0


@dataclass
class DeliveryRecord:
    """One line of the delivery log: an attempt, a drop, or a final failure."""

    delivery_id: str
    webhook_id: str
    scope: str
    action: str
    url: str
    attempt: int
    outcome: str  # delivered | retrying | failed | dropped
    status: int | None
    error: str | None
    at: str
    payload: dict[str, Any] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Dispatcher:
    """Turns state triggers into deliveries and sends them from worker threads."""

    def __init__(
        self, state: HubState, endpoint: Callable[[], str], settings: DeliverySettings | None = None
    ) -> None:
        self.state = state
        self.endpoint = endpoint
        self.settings = settings or DeliverySettings()
        self.faults = WebhookFaults()
        self._random = random.Random(0)  # noqa: S311 - seeded, reproducible faults
        self._log: list[DeliveryRecord] = []
        self._heap: list[tuple[float, int, Delivery]] = []
        self._order = itertools.count()
        self._held: list[Delivery] = []
        self._in_flight = 0
        self._cond = threading.Condition()
        self._stopping = False
        self._threads: list[threading.Thread] = []
        state.listeners.append(self.on_trigger)

    # -- configuration ----------------------------------------------------------------------

    def set_faults(self, faults: WebhookFaults) -> None:
        with self._cond:
            self.faults = faults
            self._random = random.Random(faults.seed)  # noqa: S311
            self._release_held()

    # -- producing --------------------------------------------------------------------------

    def on_trigger(self, trigger: Trigger) -> None:
        """Called under the state lock: build the payloads now, queue them, never block."""
        for webhook in self.state.webhooks_for(trigger):
            payload = payloads.build(self.state, trigger, webhook, self.endpoint())
            delivery = Delivery(
                id=self.state.ids.new(),
                webhook_id=webhook.id,
                url=webhook.url,
                secret=webhook.secret,
                scope=trigger.scope,
                action=trigger.action,
                body=json.dumps(payload, separators=(",", ":")).encode(),
            )
            self._admit(delivery)

    def _admit(self, delivery: Delivery) -> None:
        with self._cond:
            faults = self.faults
            if faults.drop_next > 0 or (
                faults.drop_rate and self._random.random() < faults.drop_rate
            ):
                faults.drop_next = max(0, faults.drop_next - 1)
                self._record(delivery, "dropped", None, None)
                return
            copies = 1
            if faults.duplicate_next > 0 or (
                faults.duplicate_rate and self._random.random() < faults.duplicate_rate
            ):
                faults.duplicate_next = max(0, faults.duplicate_next - 1)
                copies = 2
            for _ in range(copies):
                if faults.reorder_window > 1:
                    self._held.append(delivery)
                    if len(self._held) >= faults.reorder_window:
                        self._release_held()
                else:
                    self._schedule(delivery, faults.delay_s)

    def _release_held(self) -> None:
        held, self._held = self._held, []
        for delivery in reversed(held):
            self._schedule(delivery, self.faults.delay_s)

    def flush_held(self) -> None:
        """Send deliveries held back for reordering now (when fewer than the window arrived)."""
        with self._cond:
            self._release_held()

    def replay(self, delivery_id: str) -> None:
        """Send a logged delivery again, as the Hub's Activity-tab "Replay" button does: the
        same payload and `Webhook-Id`, to the webhook's *current* URL and secret
        (docs/hub-api.md#webhook-delivery; a retry, by contrast, keeps what the delivery was built
        with). Retried like a new delivery; raises `KeyError` for an unknown delivery or a deleted
        webhook."""
        with self._cond:
            matches = [r for r in self._log if r.delivery_id == delivery_id]
        if not matches:
            raise KeyError(delivery_id)
        record = matches[-1]
        with self.state.locked():
            webhook = self.state.webhooks[record.webhook_id]
            url, secret = webhook.url, webhook.secret
        delivery = Delivery(
            id=record.delivery_id,
            webhook_id=record.webhook_id,
            url=url,
            secret=secret,
            scope=record.scope,
            action=record.action,
            body=json.dumps(record.payload, separators=(",", ":")).encode(),
        )
        with self._cond:
            self._schedule(delivery, 0.0)

    def _schedule(self, delivery: Delivery, delay_s: float) -> None:
        heapq.heappush(self._heap, (time.monotonic() + delay_s, next(self._order), delivery))
        self._cond.notify()

    # -- sending ----------------------------------------------------------------------------

    def start(self) -> None:
        for index in range(self.settings.workers):
            thread = threading.Thread(
                target=self._work, name=f"emulator-webhooks-{index}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        for thread in self._threads:
            thread.join(timeout=self.settings.timeout_s + 1)
        self._threads.clear()

    def _next(self) -> Delivery | None:
        with self._cond:
            while not self._stopping:
                if self._heap:
                    due = self._heap[0][0] - time.monotonic()
                    if due <= 0:
                        self._in_flight += 1
                        return heapq.heappop(self._heap)[2]
                    self._cond.wait(timeout=due)
                else:
                    self._cond.wait()
            return None

    def _work(self) -> None:
        with httpx2.Client(timeout=self.settings.timeout_s, trust_env=False) as client:
            while (delivery := self._next()) is not None:
                try:
                    self._send(client, delivery)
                finally:
                    with self._cond:
                        self._in_flight -= 1
                        self._cond.notify_all()

    def _send(self, client: httpx2.Client, delivery: Delivery) -> None:
        delivery.attempt += 1
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "huggingface-hub-emulator-webhooks",
        }
        if delivery.secret is not None:
            headers["X-Webhook-Secret"] = delivery.secret
        if self.settings.send_webhook_id:
            headers["Webhook-Id"] = delivery.id
        status: int | None = None
        error: str | None = None
        try:
            response = client.post(delivery.url, content=delivery.body, headers=headers)
            status = response.status_code
        except httpx2.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"
        if status is not None and 200 <= status < 300:
            self._record(delivery, "delivered", status, None)
            return
        if delivery.attempt >= self.settings.max_attempts:
            self._record(delivery, "failed", status, error)
            return
        self._record(delivery, "retrying", status, error)
        wait = min(
            self.settings.max_backoff_s, self.settings.backoff_s * 2 ** (delivery.attempt - 1)
        )
        with self._cond:
            self._schedule(delivery, wait)

    # -- the log ----------------------------------------------------------------------------

    def _record(
        self, delivery: Delivery, outcome: str, status: int | None, error: str | None
    ) -> None:
        record = DeliveryRecord(
            delivery.id,
            delivery.webhook_id,
            delivery.scope,
            delivery.action,
            delivery.url,
            delivery.attempt,
            outcome,
            status,
            error,
            hub_format(now()),
            json.loads(delivery.body),
        )
        with self._cond:
            self._log.append(record)

    def log(self) -> list[DeliveryRecord]:
        with self._cond:
            return list(self._log)

    def idle(self) -> bool:
        """Nothing queued, held or being sent."""
        with self._cond:
            return not self._heap and not self._held and self._in_flight == 0
