"""`/benchmarks`: benchmarks with results checked lately, and every result the bot checked for
one, public model repos only."""

from __future__ import annotations

import redis
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from bot.report.comment_texts import BADGE_LABELS, Badge
from bot.store.history import read_benchmark, recent_benchmarks
from bot.validation.model import is_repo_id
from bot.web.site import Site

RESULTS_SHOWN = 200
BENCHMARKS_LISTED = 100


def routes(site: Site) -> list[Route]:
    context = site.context

    def index(request: Request) -> Response:
        typed = (request.query_params.get("benchmark") or "").strip()[:200]
        if typed:
            if not is_repo_id(typed):
                return site.error(request, 400, "Not a benchmark id", "A benchmark is org/name.")
            return RedirectResponse(f"/benchmarks/{typed}", status_code=303)
        try:
            listed = recent_benchmarks(site.redis, BENCHMARKS_LISTED)
        except redis.RedisError:
            return site.error(request, 503, "Unavailable", "The bot's store does not answer.")
        return site.page("benchmarks.html", request, benchmark=None, listed=listed, results=[])

    def one(request: Request) -> Response:
        benchmark = f"{request.path_params['owner']}/{request.path_params['name']}"
        if not is_repo_id(benchmark):
            return site.error(request, 400, "Not a benchmark id", "A benchmark is org/name.")
        try:
            found = read_benchmark(site.redis, benchmark, RESULTS_SHOWN)
            public = set(site.public_among(sorted({result.repo_id for result in found})))
            results = [result for result in found if result.repo_id in public]
        except redis.RedisError:
            return site.error(request, 503, "Unavailable", "The bot's store does not answer.")
        return site.page(
            "benchmarks.html",
            request,
            benchmark=benchmark,
            listed=[],
            results=results,
            hub_url=context.hub_url,
            labels={badge.value: BADGE_LABELS[badge] for badge in Badge},
        )

    return [
        Route("/benchmarks", index, methods=["GET"]),
        Route("/benchmarks/{owner}/{name}", one, methods=["GET"]),
    ]
