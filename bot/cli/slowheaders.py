"""Request headers must arrive within a deadline: the guard `bot.slowclients` cannot give.

uvicorn bounds neither how long a connection may take to send its request's headers nor how
long a fresh connection may stay silent: a client that opens connections and trickles a header
line now and then (or sends nothing) holds each one for as long as it likes, and the ASGI app,
where `bot.slowclients` bounds bodies, never hears of them. These protocol classes (one per
uvicorn HTTP implementation) close a connection whose request headers are not all in within
`header_timeout_s` of the connection opening, or of the request's first byte on a kept-alive
connection (between requests uvicorn's own keep-alive timeout applies).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


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
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
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
