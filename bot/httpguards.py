"""Bounds on requests from clients the bot does not trust, in front of every port: a body read
under a size cap (`read_body`), a deadline and a per-address bound on slow bodies
(`SlowBodyGuard`), a deadline on request headers (`header_deadline_protocol`). What each stops,
and its tests: docs/security.md, "The receiver"."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal

import h11
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Why a body was not read: over the cap, a `Content-Length` that is not a number, or a
#: sender that went away mid-body.
Problem = Literal["too-large", "bad-length", "disconnected"]


class BodyRefused(Exception):
    """The body was not read; `problem` says why, for the service's own answer."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem)
        self.problem: Problem = problem


async def read_body(request: Request, cap: int) -> bytes:
    """The whole body, at most `cap` bytes; `BodyRefused` otherwise. A declared length over the
    cap is refused before a byte is read, a chunked body counted as it arrives; time is the
    caller's to bound."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()):
            raise BodyRefused("bad-length")
        if int(declared) > cap:
            raise BodyRefused("too-large")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > cap:
                raise BodyRefused("too-large")
            chunks.append(chunk)
    except ClientDisconnect as error:
        raise BodyRefused("disconnected") from error
    return b"".join(chunks)


#: Slow requests (a body still arriving after `SLOW_AFTER_S`) one client address may hold.
PER_CLIENT_DEFAULT = 8
#: A body not all in this long after its request started is a slow one. A burst of ordinary
#: requests (a webhook's body arrives with its headers) never counts.
SLOW_AFTER_S = 1.0
#: Seconds a request's body may take to arrive, and its headers (`header_deadline_protocol`), on
#: every HTTP port of the bot: beyond, 408 and the connection is closed. A webhook's body
#: arrives with its headers and a page's form in one round trip, so 10 s is far beyond any
#: honest client on a slow link, yet short enough that a trickling one holds little.
BODY_TIMEOUT_S = 10.0
#: What the guard answers, given the status (408: too slow; 429: too many at once).
Refusal = Callable[[int], Response]


def _expects_body(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-length":
            return value.strip() not in (b"", b"0")
        if name == b"transfer-encoding":
            return True
    return False


class SlowBodyGuard:
    """An ASGI middleware bounding request bodies in time and per client address."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        timeout_s: float,
        refuse: Refusal,
        per_client: int = PER_CLIENT_DEFAULT,
        slow_after_s: float = SLOW_AFTER_S,
    ) -> None:
        self._app = app
        self._timeout_s = timeout_s
        self._refuse = refuse
        self._per_client = per_client
        self._slow_after_s = slow_after_s
        self._slow: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _expects_body(scope):
            await self._app(scope, receive, send)
            return
        client = scope.get("client")
        address = str(client[0]) if client else "-"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout_s
        slow_at = loop.time() + self._slow_after_s
        arriving = True  # the body is not all in yet
        counted = False  # this request counts against its address's bound
        timed_out = False  # the app's next receive reads as a disconnect
        refusal = 408  # what answers a cut-off request: too slow, or one slow body too many
        started = False

        def body_done() -> None:
            nonlocal arriving, counted
            arriving = False
            if counted:
                counted = False
                self._slow[address] -= 1
                if self._slow[address] <= 0:
                    del self._slow[address]

        async def next_message(until: float) -> Message | None:
            try:
                async with asyncio.timeout_at(until):
                    return await receive()
            except TimeoutError:
                return None

        async def guarded_receive() -> Message:
            nonlocal timed_out, counted, refusal
            if not arriving:
                return await receive()
            if timed_out:
                return {"type": "http.disconnect"}
            message = None
            if not counted and loop.time() < slow_at:
                message = await next_message(min(deadline, slow_at))
            if message is None:
                if not counted and loop.time() < deadline:
                    # The bound is checked as a request turns slow, not as it starts: a burst
                    # started together would all pass a check at the start, and a body that
                    # arrives with its headers (a webhook) is never turned away because other
                    # clients behind the same proxy address hold the bound.
                    if self._slow[address] >= self._per_client:
                        refusal = 429
                        timed_out = True
                        body_done()
                        return {"type": "http.disconnect"}
                    counted = True  # slow: it holds a place until its body is in
                    self._slow[address] += 1
                message = await next_message(deadline)
            if message is None:
                timed_out = True
                body_done()
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done()
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if timed_out and not started:
                return  # the refusal below answers instead
            if message["type"] == "http.response.start":
                started = True
                if arriving:
                    # Answered before its body was all read (a route that reads none): uvicorn
                    # would keep the connection for as long as the rest trickles in, past any
                    # deadline. Closing it once the answer is out frees it.
                    headers = [(k, v) for k, v in message.get("headers", []) if k != b"connection"]
                    message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        try:
            await self._app(scope, guarded_receive, guarded_send)
        finally:
            body_done()
        if timed_out and not started:
            await self._answer(scope, receive, send, refusal)

    async def _answer(self, scope: Scope, receive: Receive, send: Send, status: int) -> None:
        response = self._refuse(status)
        response.headers["connection"] = "close"
        await response(scope, receive, send)


class _HeaderDeadline:
    """The timer both protocol classes share; `transport` and `loop` are uvicorn's."""

    header_timeout_s = 10.0
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    _header_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()


class HeaderDeadlineH11(_HeaderDeadline, H11Protocol):
    """uvicorn's h11 protocol with the header deadline."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._arm()  # a request's headers are still to come
        else:
            self._disarm()


def header_deadline_protocol(
    header_timeout_s: float, *, h11_only: bool = False
) -> type[asyncio.Protocol]:
    """The protocol class for uvicorn's `http=`: httptools' when installed (uvicorn's own
    choice) unless `h11_only`, else h11's, closing connections whose headers are late."""
    attributes: dict[str, Any] = {"header_timeout_s": header_timeout_s}
    try:
        if h11_only:
            raise ImportError("h11 asked for")
        # optional: httptools may not be installed
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol  # noqa: PLC0415
    except ImportError:  # httptools not installed: uvicorn would use h11 too
        return type("Deadline", (HeaderDeadlineH11,), attributes)

    class HeaderDeadlineHttpTools(_HeaderDeadline, HttpToolsProtocol):
        """uvicorn's httptools protocol with the header deadline."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

    return type("Deadline", (HeaderDeadlineHttpTools,), attributes)
