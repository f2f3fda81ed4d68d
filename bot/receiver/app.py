"""The webhook receiver: a thin Starlette app that checks, parses, routes and enqueues, in the
order docs/decisions.md, "Receiver" fixes; its metrics: docs/operating.md, "Metrics"."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp

from bot.httpguards import BODY_TIMEOUT_S, BodyRefused
from bot.httpguards import read_body as read_capped_body
from bot.queue.enqueuer import EnqueueOutcome, Enqueuer, QueueUnavailable
from bot.queue.events import EVENT_KINDS
from bot.receiver.answers import ANSWERS, HEALTH_OK, READY_FAILED, READY_OK, READY_WORKERS_UNKNOWN
from bot.receiver.events import IGNORE_REASONS, Ignored, RoutingContext, route_delivery
from bot.receiver.worker_metrics import WorkerStatsCollector
from bot.settings import Settings
from bot.store.worker_counters import WorkerStatsSource
from bot.strictjson import JsonError, JsonReader

#: Every delivery outcome, in the order of `bot.receiver.answers.ANSWERS` (the one table).
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


logger = logging.getLogger("evalbot.receiver")

WEBHOOK_PATH = "/webhooks/hub"
#: Largest webhook body accepted, in bytes (413 beyond). A Hub payload is a few KiB; 1 MiB
#: takes any real one and bounds what one request can make the receiver hold.
MAX_BODY_BYTES = 1024 * 1024

#: `ANSWERS` with each body rendered once: (status, body, headers) by outcome.
_RESPONSES: dict[str, tuple[int, bytes, Mapping[str, str]]] = {
    outcome: (
        answer.status,
        json.dumps({"status": outcome, "detail": answer.text}).encode(),
        answer.headers,
    )
    for outcome, answer in ANSWERS.items()
}


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True)
class _Delivery:
    """What happened to one delivery: the response and the fields of its log line."""

    outcome: str
    delivery_id: str = "-"
    reason: str | None = None
    kind: str | None = None
    repo: str | None = None
    pr: int | None = None
    enqueue_ms: float | None = None


class _Rejected(Exception):
    def __init__(self, outcome: str) -> None:
        super().__init__(outcome)
        self.outcome = outcome


def create_app(
    settings: Settings,
    enqueuer: Enqueuer,
    *,
    clock: Callable[[], str] = utc_now_iso,
    metrics: ReceiverMetrics | None = None,
    worker_stats: WorkerStatsSource | None = None,
    pages: ASGIApp | None = None,
) -> Starlette:
    """The receiver app. `enqueuer` (and `worker_stats`, read at each `/metrics` scrape to
    expose the workers' counters) are owned by the app: closed on shutdown. `pages`, when
    given, answers every other path (`bot.web.forward`: the web pages on a one-port Space);
    the receiver's own routes match first."""
    metrics = metrics or ReceiverMetrics()
    collector = WorkerStatsCollector(worker_stats) if worker_stats is not None else None
    if collector is not None:
        metrics.registry.register(collector)
    webhook = WebhookEndpoint(settings, enqueuer, metrics, clock)
    probes = ProbeEndpoints(enqueuer, metrics, worker_stats, collector)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await enqueuer.close()
            if worker_stats is not None:
                await worker_stats.close()
            closer = getattr(pages, "close", None)
            if closer is not None:
                await closer()

    app = Starlette(
        routes=[
            Route(WEBHOOK_PATH, webhook.receive, methods=["POST"]),
            Route("/healthz", probes.healthz, methods=["GET"]),
            Route("/readyz", probes.readyz, methods=["GET"]),
            Route("/readyz/workers", probes.readyz_workers, methods=["GET"]),
            Route("/metrics", probes.metrics, methods=["GET"]),
            *([Mount("/", app=pages)] if pages is not None else []),
        ],
        lifespan=lifespan,
    )
    app.state.metrics = metrics
    return app


class WebhookEndpoint:
    """`POST /webhooks/hub`: the checks in the module's order, then routing and enqueueing;
    every outcome is counted, timed and logged once, and answered from `ANSWERS`."""

    def __init__(
        self,
        settings: Settings,
        enqueuer: Enqueuer,
        metrics: ReceiverMetrics,
        clock: Callable[[], str],
    ) -> None:
        self._settings = settings
        self._secrets = settings.webhook_secrets()
        self._enqueuer = enqueuer
        self._metrics = metrics
        self._clock = clock

    async def receive(self, request: Request) -> Response:
        started = time.perf_counter()
        delivery = _Delivery("error", delivery_id=_loggable_id(request.headers.get("webhook-id")))
        try:
            await self._handle(request, delivery)
        except _Rejected as rejected:
            delivery.outcome = rejected.outcome
        except Exception:
            delivery.outcome = "error"
            logger.exception(
                "unexpected error handling delivery %s",
                delivery.delivery_id,
                extra={"delivery": delivery.delivery_id},
            )
        elapsed = time.perf_counter() - started
        self._metrics.deliveries[delivery.outcome].inc()
        self._metrics.ack_seconds.observe(elapsed)
        _log_delivery(delivery, elapsed)
        status, body, headers = _RESPONSES[delivery.outcome]
        return Response(body, status_code=status, media_type="application/json", headers=headers)

    async def _read_body(self, request: Request) -> bytes:
        try:
            async with asyncio.timeout(BODY_TIMEOUT_S):
                return await read_capped_body(request, MAX_BODY_BYTES)
        except TimeoutError as error:
            raise _Rejected("timeout") from error
        except BodyRefused as refused:
            # a sender that went away mid-body gets the same (unread) answer as a bad length
            problem = "too_large" if refused.problem == "too-large" else "bad_request"
            raise _Rejected(problem) from refused

    def _authenticate(self, request: Request) -> None:
        presented = next(
            (value for name, value in request.scope["headers"] if name == b"x-webhook-secret"),
            None,
        )
        if presented is None:
            raise _Rejected("unauthorized")
        # Compare with every accepted secret, without short-circuit: the time taken does not
        # tell which one matched (or how far a wrong one got; compare_digest is constant-time).
        matched = [secret.matches(presented) for secret in self._secrets]
        if not any(matched):
            raise _Rejected("forbidden")

    async def _handle(self, request: Request, delivery: _Delivery) -> None:
        body = await self._read_body(request)
        self._authenticate(request)
        if not _is_json_utf8(request.headers.get("content-type")):
            raise _Rejected("unsupported_media")
        payload = _parse_json(body)
        settings = self._settings
        context = RoutingContext(
            bot_name=settings.bot_name,
            received_at=self._clock(),
            webhook_id=request.headers.get("webhook-id"),
            bot_user_id=settings.bot_user_id,
        )
        routed = route_delivery(payload, context)
        if isinstance(routed, Ignored):
            self._ignore(delivery, routed.reason)
            return
        event = routed.event
        delivery.delivery_id = event.delivery_id
        delivery.kind, delivery.repo, delivery.pr = event.kind, event.repo_id, event.pr_num
        enqueue_started = time.perf_counter()
        try:
            outcome = await self._enqueuer.enqueue(event, routed.dedupe)
        except QueueUnavailable as error:
            delivery.outcome, delivery.reason = "unavailable", str(error)[:200]
            return
        finally:
            enqueue_elapsed = time.perf_counter() - enqueue_started
            self._metrics.enqueue_seconds.observe(enqueue_elapsed)
            delivery.enqueue_ms = round(enqueue_elapsed * 1000, 3)
        if outcome is EnqueueOutcome.STRANGER:
            self._ignore(delivery, "stranger")
            return
        delivery.outcome = outcome.value
        if outcome is EnqueueOutcome.QUEUED:
            self._metrics.queued[event.kind].inc()

    def _ignore(self, delivery: _Delivery, reason: str) -> None:
        """Answer 202 with nothing queued; a command nobody may give is counted apart."""
        delivery.outcome, delivery.reason = "ignored", reason
        self._metrics.count_ignored(reason)
        if reason in ("unknown-command", "own-comment", "stranger"):
            self._metrics.commands_ignored.labels(reason).inc()


class ProbeEndpoints:
    """Health, readiness and metrics: what a load balancer and Prometheus ask."""

    def __init__(
        self,
        enqueuer: Enqueuer,
        metrics: ReceiverMetrics,
        worker_stats: WorkerStatsSource | None,
        collector: WorkerStatsCollector | None,
    ) -> None:
        self._enqueuer = enqueuer
        self._metrics = metrics
        self._worker_stats = worker_stats
        self._collector = collector

    async def healthz(self, request: Request) -> Response:
        return PlainTextResponse(HEALTH_OK)

    async def readyz(self, request: Request) -> Response:
        if await self._enqueuer.ready():
            return PlainTextResponse(READY_OK)
        return PlainTextResponse(READY_FAILED, status_code=503)

    async def readyz_workers(self, request: Request) -> Response:
        """200 when at least one worker is consuming (a recent heartbeat), else 503; the body
        lists the workers. `/readyz` itself stays about the receiver: it can queue events
        while no worker runs, and a load balancer must keep sending it webhooks then."""
        if self._worker_stats is None:
            return JSONResponse({"error": READY_WORKERS_UNKNOWN}, status_code=503)
        try:
            snapshot = await self._worker_stats.read()
        except Exception:  # Redis down or slow: nothing says a worker consumes
            return JSONResponse({"error": READY_FAILED}, status_code=503)
        workers = [worker.to_json() for worker in snapshot.workers]
        alive = sum(1 for worker in snapshot.workers if worker.alive)
        body = {"workers_alive": alive, "workers": workers, "queue_length": snapshot.queue_length}
        return JSONResponse(body, status_code=200 if alive else 503)

    async def metrics(self, request: Request) -> Response:
        if self._collector is not None:
            await self._collector.refresh()
        return Response(
            self._metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8"
        )


def _is_json_utf8(content_type: str | None) -> bool:
    """`application/json`, with no charset or a UTF-8 one (RFC 8259 §8.1: JSON is UTF-8)."""
    if content_type is None:
        return False
    media_type, _, params = content_type.partition(";")
    if media_type.strip().lower() != "application/json":
        return False
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in (
            "utf-8",
            "utf8",
        ):
            return False
    return True


#: A webhook body: no duplicate key (which "repo" would we trust?), no NaN or infinity (`"num":
#: 1e400` is no PR number); integers bounded by Python's digit limit, nesting by its stack.
WEBHOOK_JSON = JsonReader()


def _parse_json(body: bytes) -> dict[str, Any]:
    """Strict JSON (`WEBHOOK_JSON`), UTF-8 without BOM; the top level an object."""
    try:
        payload = WEBHOOK_JSON.read(body)
    except JsonError as error:
        raise _Rejected("bad_request") from error
    if not isinstance(payload, dict):
        raise _Rejected("bad_request")
    return payload


def _loggable_id(webhook_id: str | None) -> str:
    if webhook_id is None:
        return "-"
    return webhook_id[:100].encode("ascii", "replace").decode("ascii")


def _log_delivery(delivery: _Delivery, elapsed: float) -> None:
    if not logger.isEnabledFor(logging.INFO):
        return
    fields: dict[str, Any] = {
        "msg": "delivery",
        "delivery": delivery.delivery_id,
        "outcome": delivery.outcome,
        "status": ANSWERS[delivery.outcome].status,
        "ms": round(elapsed * 1000, 3),
    }
    for name in ("reason", "kind", "repo", "pr", "enqueue_ms"):
        value = getattr(delivery, name)
        if value is not None:
            fields[name] = value
    level = logging.WARNING if ANSWERS[delivery.outcome].status >= 500 else logging.INFO
    logger.log(level, json.dumps(fields, ensure_ascii=True))
