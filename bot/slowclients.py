"""Slow request bodies are cut off: the guard every HTTP port of the bot sits behind.

uvicorn bounds neither how long a request body may take to arrive nor how many requests one
client may keep half-sent: a sender that declares 1 MiB and trickles a byte now and then holds
a connection, a task and a buffer for as long as it likes, and a handful of such senders hold
the whole process. `SlowBodyGuard` wraps an ASGI app and gives each request's body a deadline
(`timeout_s`, from the request's start to its last body byte) and each client address a
number of slow requests, whose body is still arriving a second after the request started
(`per_client`):

- past the deadline the app's next `receive` reads as a disconnect (its own code stops
  reading) and the client gets `refuse(408)` with `Connection: close`, which makes uvicorn
  drop the connection;
- a request that turns slow while its address already holds the bound is answered
  `refuse(429)` then, its body unread. The bound is checked then, not as a request starts: a
  body that arrives promptly (a webhook's) always passes, even when clients sharing its
  address (all of a Space's visitors come from its proxy) hold every place.

An answer sent before the body was all read (a route that reads none) closes the connection
once it is out: uvicorn would otherwise keep it open while the rest of the declared body
trickles in, bounded by nothing.

Only the body is guarded: once it has arrived, `receive` is the app's own again (Starlette
listens on it for a disconnect while a response streams). The address is the one uvicorn
reports: the socket's peer, or the `X-Forwarded-For` of a proxy it trusts
(`FORWARDED_ALLOW_IPS`); behind a proxy it does not trust, every visitor shares the proxy's
address and the bound becomes one for the whole port.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Slow requests (a body still arriving after `SLOW_AFTER_S`) one client address may hold.
PER_CLIENT_DEFAULT = 8
#: A body not all in this long after its request started is a slow one. A burst of ordinary
#: requests (a webhook's body arrives with its headers) never counts.
SLOW_AFTER_S = 1.0
#: Seconds a request's body may take to arrive, and its headers (`bot.cli.slowheaders`), on
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
