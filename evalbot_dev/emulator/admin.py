"""The emulator's own control API under `/_emulator/`, for another process (a benchmark, the demo).

Not part of the Hub: no auth, not counted, no faults. It reads counters, the delivery log and
the CDN's request log, sets faults and quotas, and registers webhooks without a token.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from evalbot_dev.emulator import views
from evalbot_dev.emulator.faults import Quota, RouteFault, WebhookFaults

if TYPE_CHECKING:
    from evalbot_dev.emulator.app import Emulator

PREFIX = "/_emulator"


def routes(emulator: Emulator) -> list[Route]:
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True, "endpoint": emulator.endpoint})

    async def counters(request: Request) -> JSONResponse:
        if request.method == "DELETE":
            emulator.faults.reset_counters()
        return JSONResponse(emulator.faults.count_snapshot())

    async def rate_limited(request: Request) -> JSONResponse:
        return JSONResponse(emulator.faults.rate_limited_snapshot())

    async def faults(request: Request) -> JSONResponse:
        if request.method == "DELETE":
            emulator.faults.clear()
            emulator.dispatcher.set_faults(WebhookFaults())
        elif request.method == "PUT":
            body: dict[str, Any] = await request.json()
            try:
                emulator.faults.set_rules(
                    [RouteFault.from_json(rule) for rule in body.get("routes", [])]
                )
                emulator.faults.set_quota(Quota.from_json(body.get("quota", {})))
                emulator.dispatcher.set_faults(WebhookFaults.from_json(body.get("webhooks", {})))
            except (TypeError, ValueError) as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(
            {
                "routes": [rule.to_json() for rule in emulator.faults.rules],
                "quota": emulator.faults.quota.to_json(),
                "webhooks": emulator.dispatcher.faults.to_json(),
            }
        )

    async def deliveries(request: Request) -> JSONResponse:
        since = int(request.query_params.get("since", "0") or 0)
        log = emulator.dispatcher.log()[since:]
        return JSONResponse(
            {"deliveries": [record.to_json() for record in log], "idle": emulator.dispatcher.idle()}
        )

    async def flush(request: Request) -> JSONResponse:
        emulator.dispatcher.flush_held()
        return JSONResponse({"idle": emulator.dispatcher.idle()})

    async def cdn(request: Request) -> JSONResponse:
        requests = emulator.state.cdn.requests()
        return JSONResponse(
            {"endpoint": emulator.state.cdn.endpoint, "requests": [r.to_json() for r in requests]}
        )

    async def webhooks(request: Request) -> JSONResponse:
        body: dict[str, Any] = await request.json()
        if not isinstance(body.get("url"), str) or body.get("owner") not in emulator.state.accounts:
            return JSONResponse({"error": "owner (a known user) and url are required"}, 400)
        webhook = emulator.state.add_webhook(
            str(body["owner"]),
            str(body["url"]),
            list(body.get("watched", [])),
            list(body.get("domains", ["repo", "discussion"])),
            body.get("secret"),
        )
        return JSONResponse({"webhook": views.webhook(webhook)})

    return [
        Route(PREFIX + "/health", health, methods=["GET"]),
        Route(PREFIX + "/counters", counters, methods=["GET", "DELETE"]),
        Route(PREFIX + "/rate-limited", rate_limited, methods=["GET"]),
        Route(PREFIX + "/faults", faults, methods=["GET", "PUT", "DELETE"]),
        Route(PREFIX + "/deliveries", deliveries, methods=["GET"]),
        Route(PREFIX + "/deliveries/flush", flush, methods=["POST"]),
        Route(PREFIX + "/webhooks", webhooks, methods=["POST"]),
        Route(PREFIX + "/cdn", cdn, methods=["GET"]),
    ]
