"""The style sheet and the fonts (only those `bot/web/static/FONTS.md` names, cached by
digest), and the web process's health check."""

from __future__ import annotations

import hashlib

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from bot.web.site import WEB_ROOT

FONTS = (
    "source-sans-pro-latin-400-normal",
    "source-sans-pro-latin-600-normal",
    "source-sans-pro-latin-700-normal",
    "ibm-plex-mono-latin-400-normal",
)


def routes() -> list[Route]:
    stylesheet = (WEB_ROOT / "static" / "style.css").read_bytes()
    etag = '"' + hashlib.sha256(stylesheet).hexdigest()[:16] + '"'
    fonts = {name: (WEB_ROOT / "static" / f"{name}.woff2").read_bytes() for name in FONTS}

    def font(request: Request) -> Response:
        content = fonts.get(request.path_params["name"])
        if content is None:
            return PlainTextResponse("no such font", status_code=404)
        headers = {"Cache-Control": "public, max-age=604800, immutable"}
        return Response(content, media_type="font/woff2", headers=headers)

    def style(request: Request) -> Response:
        headers = {"ETag": etag, "Cache-Control": "public, max-age=3600"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(stylesheet, media_type="text/css", headers=headers)

    def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    return [
        Route("/static/style.css", style, methods=["GET"]),
        Route("/static/{name}.woff2", font, methods=["GET"]),
        Route("/web/healthz", healthz, methods=["GET"]),
    ]
