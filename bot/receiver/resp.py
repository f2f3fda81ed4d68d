"""A lean, pipelined Redis connection (RESP2) for the receiver's one hot command.

Why not redis-py here: its asyncio client spends ~170 us of CPU per call (connection pool,
retry wrapper, stream reader, timeouts per read) where a bare protocol spends ~40 us, measured
on this project's 2-core machine; at the receiver's target rate that difference is most of a
core (docs/operating.md, "Receiver throughput"). This module speaks just enough RESP2 for
`EVALSHA`/`EVAL`/`PING`/`AUTH`/`SELECT`: commands are written as they come and replies matched
to callers in order (pipelining). URLs are parsed by redis-py (`redis://`, `rediss://`,
`unix://`, credentials, database), so configuration is the same as everywhere else.

Everything else (tests, tools, the workers through Celery) uses redis-py.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from typing import Any

from redis.connection import parse_url


class RespError(Exception):
    """An error reply from Redis (`-ERR ...`, `-NOSCRIPT ...`, `-OOM ...`)."""


class ConnectionLost(ConnectionError):
    """The connection closed or failed while replies were outstanding."""


_INCOMPLETE = object()


def encode_command(*args: str | bytes | int) -> bytes:
    """A command as a RESP array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode("utf-8")
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def parse_reply(buffer: bytes | bytearray, pos: int = 0) -> tuple[Any, int]:
    """One reply starting at `pos`: `(value, next pos)`, or `(_INCOMPLETE, pos)` if more bytes
    are needed. Error replies come back as `RespError` values (raised by the caller)."""
    end = buffer.find(b"\r\n", pos)
    if end < 0:
        return _INCOMPLETE, pos
    kind = buffer[pos : pos + 1]
    line = bytes(buffer[pos + 1 : end])
    after = end + 2
    if kind == b"+":
        return line.decode("utf-8", "replace"), after
    if kind == b"-":
        return RespError(line.decode("utf-8", "replace")), after
    if kind == b":":
        return int(line), after
    if kind == b"$":
        length = int(line)
        if length < 0:
            return None, after
        if len(buffer) < after + length + 2:
            return _INCOMPLETE, pos
        return bytes(buffer[after : after + length]), after + length + 2
    if kind == b"*":
        count = int(line)
        if count < 0:
            return None, after
        items = []
        for _ in range(count):
            item, after = parse_reply(buffer, after)
            if item is _INCOMPLETE:
                return _INCOMPLETE, pos
            items.append(item)
        return items, after
    raise ValueError(f"not a RESP2 reply: {bytes(buffer[pos : pos + 20])!r}")


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.waiters: deque[asyncio.Future[Any]] = deque()
        self.buffer = bytearray()
        self.lost: BaseException | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it.
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        pos = 0
        try:
            while self.waiters:
                value, after = parse_reply(self.buffer, pos)
                if value is _INCOMPLETE:
                    break
                pos = after
                waiter = self.waiters.popleft()
                if waiter.done():
                    continue  # its caller gave up (timeout); the reply is dropped in order
                if isinstance(value, RespError):
                    waiter.set_exception(value)
                else:
                    waiter.set_result(value)
        except ValueError as error:  # a protocol error: the stream cannot be trusted any more
            del self.buffer[:]
            self._fail(ConnectionLost(f"bad reply from Redis: {error}"))
            if self.transport is not None:
                self.transport.close()
            return
        del self.buffer[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(ConnectionLost(f"connection to Redis lost: {exc or 'closed'}"))

    def _fail(self, error: BaseException) -> None:
        self.lost = self.lost or error
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_exception(error)


class RespConnection:
    """One pipelined connection. Not reconnecting by itself: the owner replaces a lost one."""

    def __init__(self, protocol: _Protocol) -> None:
        self._protocol = protocol

    @classmethod
    async def open(cls, url: str, *, timeout_s: float) -> RespConnection:
        options: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout_s):
            if "path" in options:
                _, protocol = await loop.create_unix_connection(_Protocol, options["path"])
            else:
                tls = ssl.create_default_context() if url.startswith("rediss://") else None
                _, protocol = await loop.create_connection(
                    _Protocol,
                    options.get("host", "localhost"),
                    int(options.get("port", 6379)),
                    ssl=tls,
                )
            connection = cls(protocol)
            try:
                if options.get("password"):
                    credentials = [options.get("username"), options["password"]]
                    await connection.call("AUTH", *[part for part in credentials if part])
                if int(options.get("db", 0)):
                    await connection.call("SELECT", int(options["db"]))
            except BaseException:
                connection.close()
                raise
        return connection

    @property
    def usable(self) -> bool:
        transport = self._protocol.transport
        return self._protocol.lost is None and transport is not None and not transport.is_closing()

    def call(self, *args: str | bytes | int) -> asyncio.Future[Any]:
        """Send a command now; the future resolves with its reply (or raises its error)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if not self.usable:
            future.set_exception(self._protocol.lost or ConnectionLost("connection closed"))
            return future
        assert self._protocol.transport is not None
        self._protocol.waiters.append(future)
        self._protocol.transport.write(encode_command(*args))
        return future

    def close(self) -> None:
        if self._protocol.transport is not None:
            self._protocol.transport.close()
        self._protocol._fail(ConnectionLost("connection closed"))
