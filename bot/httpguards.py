"""Requests from clients the bot does not trust, bounded: every port of the bot sits behind these.

uvicorn bounds neither how long a request's headers or body may take to arrive nor how much a
body may hold, so three guards do, each where it can see the request:

- `read_body`: a request's body read under a size cap, the one way every service reads one
  (the webhook receiver, the token issuer, the web pages' forwarder on a one-port Space);
- `SlowBodyGuard`: an ASGI middleware giving each request's body a deadline, and each client
  address a bound on slow bodies (the receiver's and the pages' ports);
- `header_deadline_protocol`: uvicorn's HTTP protocol closing a connection whose request
  headers are not all in within a deadline (the app never hears of such a connection).

**Body size.** A declared `Content-Length` over the cap is refused before a single body byte
is read; a chunked body declares none, so the bytes are counted while they arrive and the read
stops at the first chunk past the cap. Memory is therefore bounded by the cap whatever the
sender says (docs/security.md#adversarial-inputs, item 2). Time is the caller's to bound,
around `read_body`: each service has its own budget.

**Slow bodies.** A sender that declares 1 MiB and trickles a byte now and then holds a
connection, a task and a buffer for as long as it likes, and a handful of such senders hold
the whole process. `SlowBodyGuard` gives each request's body a deadline (`timeout_s`, from the
request's start to its last body byte) and each client address a number of slow requests,
whose body is still arriving a second after the request started (`per_client`):

- past the deadline the app's next `receive` reads as a disconnect (its own code stops
  reading) and the client gets `refuse(408)` with `Connection: close`, which makes uvicorn
  drop the connection;
- a request that turns slow while its address already holds the bound is answered
  `refuse(429)` then, its body unread. The bound is checked then, not as a request starts: a
  body that arrives promptly (a webhook's) always passes, even when clients sharing its
  address (all of a Space's visitors come from its proxy) hold every place.

An answer sent before the body was all read (a route that reads none) closes the connection
once it is out: uvicorn would otherwise keep it open while the rest of the declared body
trickles in, bounded by nothing. Only the body is guarded: once it has arrived, `receive` is
the app's own again (Starlette listens on it for a disconnect while a response streams). The
address is the one uvicorn reports: the socket's peer, or the `X-Forwarded-For` of a proxy it
trusts (`FORWARDED_ALLOW_IPS`); behind a proxy it does not trust, every visitor shares the
proxy's address and the bound becomes one for the whole port.

**Slow headers.** A client that opens connections and trickles a header line now and then (or
sends nothing) holds each one for as long as it likes, and the ASGI app, where the body guard
sits, never hears of it. The protocol classes of `header_deadline_protocol` (one per uvicorn
HTTP implementation) close a connection whose request headers are not all in within
`header_timeout_s` of the connection opening, or of the request's first byte on a kept-alive
connection (between requests uvicorn's own keep-alive timeout applies).
"""

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
    """The whole body, at most `cap` bytes; `BodyRefused` otherwise."""
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
