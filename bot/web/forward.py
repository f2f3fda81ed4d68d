"""The receiver's door to the web pages on a one-port deployment (a Space): paths it does not
serve go to `evalbot web` on loopback (docs/web.md, "Why a process of its own"); what it
guards against: docs/security.md, "The receiver"."""

from __future__ import annotations

import asyncio
from http.cookiejar import CookieJar, DefaultCookiePolicy
from urllib.parse import urlsplit

import httpx2
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from bot.httpguards import BodyRefused, read_body
from bot.settings import SettingsError
from bot.validation.limits import DEFAULT_LIMITS
from bot.web.errorpage import error_page

#: The option of `evalbot serve` naming the local `evalbot web` (the Space supervisor sets it).
UPSTREAM_OPTION = "--web-upstream"
MAX_BODY_BYTES = DEFAULT_LIMITS.max_file_bytes + 64 * 1024
#: Dropped both ways. `Host` is kept: the pages check a POST's `Origin` against it.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "content-encoding",  # httpx hands over the decoded body
    }
)


#: Headers that say who the client is; a client's own are dropped and ours set instead.
_CLIENT_CLAIMS = frozenset(
    {"x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "forwarded", "x-real-ip"}
)


def checked_upstream(raw: str | None) -> str | None:
    """`evalbot serve --web-upstream`: an http URL on loopback, or None; a bad value stops
    start-up."""
    raw = (raw or "").strip()
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SettingsError(
            f"invalid settings:\n  - {UPSTREAM_OPTION} must be an http URL on loopback "
            f"(the local `evalbot web`), got {parts.scheme}://{parts.hostname or ''}"
        )
    return raw.rstrip("/")


def _refusing_jar() -> CookieJar:
    """A cookie jar that neither stores a cookie nor adds one to a request (no domain allowed)."""
    return CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))


class PageForwarder:
    """An ASGI app forwarding HTTP requests to `upstream`; its error pages carry `bot_name`
    and allow framing by `hub_url` (a Space), like the pages' own."""

    def __init__(
        self,
        upstream: str,
        *,
        timeout_s: float = 60.0,
        body_timeout_s: float = 10.0,
        bot_name: str = "evalbot",
        hub_url: str = "https://huggingface.co",
    ) -> None:
        self._upstream = upstream
        self._timeout = httpx2.Timeout(timeout_s, connect=2.0)
        self._body_timeout_s = body_timeout_s
        self._bot_name = bot_name
        self._hub_url = hub_url
        self._client: httpx2.AsyncClient | None = None

    def _error(self, status: int) -> Response:
        return error_page(status, bot_name=self._bot_name, hub_url=self._hub_url)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        response = await self._forward(request)
        await response(scope, receive, send)

    async def _forward(self, request: Request) -> Response:
        try:
            async with asyncio.timeout(self._body_timeout_s):
                body = await read_body(request, MAX_BODY_BYTES)
        except TimeoutError:
            response = self._error(408)
            response.headers["connection"] = "close"  # uvicorn drops the connection
            return response
        except BodyRefused as refused:
            return self._error(413 if refused.problem == "too-large" else 400)
        if request.method in ("GET", "HEAD"):
            body = b""  # the pages read none; what a client sent with a GET is not forwarded
        headers = {
            k: v
            for k, v in request.headers.items()
            if k.lower() not in _HOP_BY_HOP and k.lower() not in _CLIENT_CLAIMS
        }
        # `evalbot web` trusts these from loopback (uvicorn's FORWARDED_ALLOW_IPS default):
        # they are the receiver's own view of the client, never what the client claimed.
        if request.client is not None:
            headers["x-forwarded-for"] = request.client.host
        headers["x-forwarded-proto"] = request.url.scheme
        url = self._upstream + request.url.path
        if request.url.query:
            url += "?" + request.url.query
        if self._client is None:
            self._client = httpx2.AsyncClient(
                timeout=self._timeout, follow_redirects=False, cookies=_refusing_jar()
            )
        try:
            answer = await self._client.request(request.method, url, headers=headers, content=body)
        except httpx2.InvalidURL:  # a path it will not send (a control character): no page
            return self._error(404)
        except httpx2.HTTPError:
            return self._error(502)
        kept = [(k, v) for k, v in answer.headers.multi_items() if k.lower() not in _HOP_BY_HOP]
        response = Response(answer.content, status_code=answer.status_code)
        for name, value in kept:
            response.headers.append(name, value)
        return response

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
