"""`/badge/...svg`: the badge of a model or a datastore (`bot.web.badge`), grey "not found" for
a private, gated or unknown repo (docs/web.md, "Badges")."""

from __future__ import annotations

import logging

import redis
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.hub.errors import HubError
from bot.store.history import read_newest
from bot.validation.model import is_repo_id
from bot.web.badge import BadgeText, benchmark_badge, datastore_badge, render_svg, repo_badge
from bot.web.endpoints.api import etagged, for_datasets, repo_of, visible_repo
from bot.web.lookup import DATASETS
from bot.web.site import Site

log = logging.getLogger("evalbot.web")

BADGE_MAX_AGE_S = 300
PRS_COUNTED = 50


def routes(site: Site) -> list[Route]:
    def badge(request: Request) -> Response:
        benchmark = (request.query_params.get("benchmark") or "").strip()[:200]
        try:
            shown = visible_repo(site, repo_of(request))
            listed = read_newest(site.redis, shown, PRS_COUNTED) if shown else []
        except (redis.RedisError, HubError) as problem:
            log.warning("badge unavailable: %s", type(problem).__name__)
            text = BadgeText("evals", "unavailable", "none")
            return _svg(request, text, status=503, max_age=30)
        if shown is None:
            return _svg(request, BadgeText("evals", "not found", "none"), status=404)
        if shown.startswith(DATASETS):
            return _svg(request, datastore_badge(listed))
        if benchmark and is_repo_id(benchmark):
            return _svg(request, benchmark_badge(listed, benchmark))
        return _svg(request, repo_badge(listed))

    return [
        Route("/badge/{owner}/{name}.svg", badge, methods=["GET"]),
        Route("/badge/datasets/{owner}/{name}.svg", for_datasets(badge), methods=["GET"]),
    ]


def _svg(
    request: Request, text: BadgeText, *, status: int = 200, max_age: int = BADGE_MAX_AGE_S
) -> Response:
    content = render_svg(text).encode("utf-8")
    headers = {
        "Cache-Control": f"public, max-age={max_age}",
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
        "X-Content-Type-Options": "nosniff",
    }
    fresh, etag = etagged(request, content)
    headers["ETag"] = etag
    if fresh and status == 200:
        return Response(status_code=304, headers=headers)
    return Response(content, status_code=status, media_type="image/svg+xml", headers=headers)
