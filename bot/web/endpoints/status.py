"""`/status`: the live figures and charts for everyone; parked events and their replay for a
signed-in operator."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
from typing import Any

import redis
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from bot.store.deadletters import parked_events, replay
from bot.web.charts import build_charts
from bot.web.guards import ADMIN_COOKIE, cross_site
from bot.web.signin import signin_routes
from bot.web.site import Site, field_text

REPLAY_NOTICES = {
    "replayed": "Queued again: a worker will run it shortly.",
    "gone": "Already gone: someone replayed it meanwhile.",
    "not-an-event": "Kept: the record holds no event the workers accept.",
}
PARKED_SHOWN = 20


def routes(site: Site) -> list[Route]:
    context = site.context

    def status(request: Request) -> Response:
        access = context.operators.access(request, context.clock())
        admin = access.allowed
        state = site.live()
        parked: list[dict[str, Any]] = []
        if admin and state["snapshot"] is not None:
            with contextlib.suppress(redis.RedisError):
                parked = [_parked_view(p) for p in parked_events(site.redis, limit=PARKED_SHOWN)]
        shown = site.page(
            "status.html",
            request,
            live=state,
            charts=build_charts(state["samples"], context.clock()),
            admin=admin,
            signin=context.signin is not None,
            token_signin=context.operators.token is not None,
            parked=parked,
            notice=REPLAY_NOTICES.get(request.query_params.get("notice", "")),
            operator_notice=access.notice,
        )
        # what it shows depends on the operator cookie: no cache (a proxy, a CDN) may keep it
        shown.headers["Cache-Control"] = "no-store"
        if access.ended:
            shown.delete_cookie(ADMIN_COOKIE, path="/")
        return shown

    async def replay_post(request: Request) -> Response:
        refused = cross_site(request)
        if refused:
            return site.error(request, 403, "Refused", refused)
        # a session granted through an org may ask the Hub: off the event loop
        access = await run_in_threadpool(context.operators.access, request, context.clock())
        if not access.allowed:
            denied = site.error(
                request, 403, "Operators only", access.notice or "Sign in on the status page first."
            )
            if access.ended:
                denied.delete_cookie(ADMIN_COOKIE, path="/")
            return denied
        form = await request.form(max_files=0, max_fields=2, max_part_size=4096)
        wanted = field_text(form.get("digest"))
        return await run_in_threadpool(replay_one, wanted)

    def replay_one(wanted: str) -> Response:
        outcome = "gone"
        for parked_event in parked_events(site.redis, limit=PARKED_SHOWN):
            if hmac.compare_digest(_digest(parked_event.raw), wanted):
                outcome = replay(site.redis, parked_event).value
                break
        return RedirectResponse(f"/status?notice={outcome}", status_code=303)

    return [
        Route("/status", status, methods=["GET"]),
        *signin_routes(
            context.operators,
            context.signin,
            site.error,
            context.clock,
            public_https=context.public_https,
        ),
        Route("/status/replay", replay_post, methods=["POST"]),
    ]


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:32]


def _parked_view(parked_event: Any) -> dict[str, Any]:
    record = parked_event.record
    event = record.get("event") if isinstance(record.get("event"), dict) else {}
    return {
        "digest": _digest(parked_event.raw),
        "at": str(record.get("parked_at", ""))[:19],
        "reason": str(record.get("reason", "unknown"))[:60],
        "detail": str(record.get("detail", ""))[:300],
        "repo": str(event.get("repo_id", ""))[:100],
        "pr": str(event.get("pr_num", ""))[:10],
        "kind": str(event.get("kind", ""))[:20],
    }
