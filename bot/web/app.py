"""The web app: the page families of `bot.web.endpoints`, the guards, the styled 404 and the
background sampling of live figures (docs/web.md)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import redis
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.report.comment_texts import BADGE_LABELS, BADGE_MEANINGS, Badge
from bot.store.worker_counters import read_snapshot
from bot.web.endpoints import (
    api,
    badges,
    benchmark_pages,
    collections,
    history,
    playground,
    static,
    status,
)
from bot.web.live import record_sample
from bot.web.page_context import WebContext
from bot.web.site import Site, make_site

log = logging.getLogger("evalbot.web")

DOCS = (
    ("validate.md", "Check files before pushing: evalbot validate"),
    ("diagnostics.md", "Every diagnostic code, with its fix"),
    ("verification.md", "Verify tokens and their reason codes"),
    ("comment.md", "The PR comment, line by line"),
    ("web.md", "These pages, the badge and the JSON API"),
    ("operating.md", "Running the bot"),
)
_STATUS_TITLES = {404: "Not found", 405: "Method not allowed"}


def create_web_app(context: WebContext) -> Starlette:
    """The bot's pages, over its Redis (`context.redis`)."""
    client = context.redis
    if client is None:
        raise ValueError("the bot's pages need its Redis; `create_playground_app` needs none")
    site = make_site(context)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        sampler = asyncio.create_task(_sample_forever(client, context))
        try:
            yield
        finally:
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sampler
            client.close()

    return Starlette(
        routes=[
            Route("/", _landing(site), methods=["GET"]),
            *playground.routes(site),
            *history.routes(site),
            *collections.routes(site),
            *benchmark_pages.routes(site),
            *api.routes(site),
            *badges.routes(site),
            *status.routes(site),
            *static.routes(),
        ],
        exception_handlers={HTTPException: _http_error(site)},
        lifespan=lifespan,
    )


def create_playground_app(context: WebContext) -> Starlette:
    """`evalbot playground`: the landing and the playground, with no Redis, token or secret
    (`context.redis` is None); every other address is the pages' 404."""
    site = make_site(context)
    return Starlette(
        routes=[
            Route("/", _landing(site), methods=["GET"]),
            *playground.routes(site),
            *static.routes(),
        ],
        exception_handlers={HTTPException: _http_error(site)},
    )


def _landing(site: Site) -> Callable[[Request], Response]:
    def landing(request: Request) -> Response:
        badges = [(b.value, BADGE_LABELS[b], BADGE_MEANINGS[b]) for b in Badge]
        return site.page(
            "landing.html", request, live=site.live(), badges=badges, docs=_docs(site.context)
        )

    return landing


def _http_error(site: Site) -> Callable[[Request, Exception], Awaitable[Response]]:
    """Starlette's own refusals (an unknown address, a wrong method) as the pages' HTML error
    page, with its title, language and landmarks, not a bare text."""

    async def handle(request: Request, problem: Exception) -> Response:
        code = problem.status_code if isinstance(problem, HTTPException) else 500
        title = _STATUS_TITLES.get(code, "Refused")
        detail = (
            "There is no page at this address. The pages are listed at the top."
            if code == 404
            else "This address does not answer that kind of request."
        )
        response = site.error(request, code, title, detail)
        if isinstance(problem, HTTPException) and problem.headers:
            response.headers.update(problem.headers)
        return response

    return handle


async def _sample_forever(client: redis.Redis, context: WebContext) -> None:
    """Sample the figures every interval, so the charts fill even when nobody looks."""
    while True:
        try:
            snapshot = await run_in_threadpool(read_snapshot, client, context.queue)
            await run_in_threadpool(
                record_sample, client, snapshot, interval_s=context.sample_interval_s
            )
        except redis.RedisError as problem:
            log.warning("sampling skipped: %s", type(problem).__name__)
        await asyncio.sleep(context.sample_interval_s)


def _docs(context: WebContext) -> list[tuple[str, str, str | None]]:
    base = context.docs_url.rstrip("/") + "/" if context.docs_url else None
    return [(name, title, base + name if base else None) for name, title in DOCS]
