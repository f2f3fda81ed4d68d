"""One log line per request: its method, route template (`/history/{owner}/{name}`; `-` when
no route matches), status and time, never the path, query or form a visitor typed."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.logs import log_json


def route_template(routes: Sequence[BaseRoute], scope: Scope) -> str:
    """The template of the first route matching `scope`'s path, or `-`."""
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.NONE:
            continue
        if isinstance(route, Route):
            return route.path
        if isinstance(route, Mount):
            return (route.path or "") + "/*"
        return "-"
    return "-"


class RouteLog:
    """An ASGI middleware logging each HTTP request's route template and status at INFO."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute], logger: logging.Logger) -> None:
        self._app = app
        self._routes = routes
        self._logger = logger

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._logger.isEnabledFor(logging.INFO):
            await self._app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self._app(scope, receive, record_status)
        finally:
            log_json(
                self._logger,
                logging.INFO,
                "request",
                method=str(scope["method"])[:10],
                route=route_template(self._routes, scope),
                status=status,
                ms=round((time.perf_counter() - started) * 1000, 3),
            )
