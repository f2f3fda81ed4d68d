"""A TCP proxy on 127.0.0.1 that can hold back the next reply: a slow Redis, for real.

`DelayProxy(port)` forwards every connection to `127.0.0.1:port` (a redis-server) from an
asyncio loop in a background thread. Requests pass straight through, so the server executes
them at once; `delay_next_reply(seconds, after=b"EVAL")` arms a one-shot delay: the first
reply that follows a request containing `after` (on whichever connection) is held for that
long, and everything behind it on that connection (a TCP stream keeps its order). Matching on
the request keeps a health check or a metrics read from using up the delay. That is the fault
a slow network or a stalled Redis gives a client: its command took effect, its answer comes
late (docs/security.md#fault-injection item 10). If the client gives up and closes meanwhile, the
reply is dropped.

`drop_requests(b"/resolve/")` makes one kind of HTTP request fail as an unreachable server
would: a request whose first line contains it is never forwarded, and its connection is closed
without a reply (the client sees the server disconnect), while every other request passes.
With `answer=503` the proxy answers that status itself before closing (a load balancer whose
backend is down).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from http import HTTPStatus
from urllib.parse import urlsplit, urlunsplit

CHUNK = 65536


class DelayProxy:
    def __init__(self, upstream_port: int, upstream_host: str = "127.0.0.1") -> None:
        self.upstream = (upstream_host, upstream_port)
        self.port = 0
        self._armed: tuple[float, bytes] | None = None
        self._delayed: list[float] = []
        self._drop: tuple[bytes, int | None] | None = None
        self._dropped: list[bytes] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    # -- control, from the test's thread ------------------------------------------------------

    def delay_next_reply(self, seconds: float, *, after: bytes) -> None:
        """Hold for `seconds` the reply to the next request that contains `after` (once)."""
        with self._lock:
            self._armed = (seconds, after)

    def drop_requests(self, line_containing: bytes | None, *, answer: int | None = None) -> None:
        """Close the connection of every HTTP request whose request line contains
        `line_containing`, unanswered or after an `answer` status (None: drop nothing)."""
        with self._lock:
            self._drop = None if line_containing is None else (line_containing, answer)

    @property
    def dropped(self) -> list[bytes]:
        """The request lines dropped so far."""
        with self._lock:
            return list(self._dropped)

    @property
    def delays_applied(self) -> list[float]:
        """The delays consumed so far (a test checks its fault really happened)."""
        with self._lock:
            return list(self._delayed)

    def url_for(self, redis_url: str) -> str:
        """`redis_url` with its port replaced by the proxy's."""
        parts = urlsplit(redis_url)
        netloc = f"{parts.hostname}:{self.port}"
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))

    def start(self) -> DelayProxy:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._listen(), self._loop)
        self.port = future.result(timeout=10)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    # -- the loop's side ------------------------------------------------------------------------

    def _drops(self, chunk: bytes) -> bytes | None:
        """What to answer (b"": nothing) if `chunk` starts a request the drop rule matches
        (recording its line); None to forward it."""
        line = chunk.split(b"\r\n", 1)[0]
        with self._lock:
            if self._drop is None or self._drop[0] not in line:
                return None
            self._dropped.append(line)
            status = self._drop[1]
        if status is None:
            return b""
        return (
            f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Length: 0\r\n"
            "Connection: close\r\n\r\n"
        ).encode()

    def _claim_delay(self, request: bytes) -> float:
        """The armed delay if `request` matches it (disarming it), else 0."""
        with self._lock:
            if self._armed is None or self._armed[1] not in request:
                return 0.0
            delay, self._armed = self._armed[0], None
            self._delayed.append(delay)
            return delay

    async def _listen(self) -> int:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.wait(self._connections, timeout=5)

    async def _accept(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            upstream_in, upstream_out = await asyncio.open_connection(*self.upstream)
        except OSError:
            client_out.close()
            self._connections.discard(task)
            return
        held: list[float] = []  # the delay claimed by a request, for its reply
        try:
            await asyncio.gather(
                self._requests(client_in, upstream_out, held, client_out),
                self._replies(upstream_in, client_out, held),
            )
        except asyncio.CancelledError:
            pass  # `stop()`: end quietly (a cancelled connection callback is logged as an error)
        finally:
            for writer in (client_out, upstream_out):
                writer.close()
            self._connections.discard(task)

    async def _requests(
        self,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        held: list[float],
        client: asyncio.StreamWriter,
    ) -> None:
        async def forward(chunk: bytes) -> None:
            if (answer := self._drops(chunk)) is not None:
                if answer:
                    client.write(answer)
                    await client.drain()
                raise ConnectionResetError("dropped by the proxy")
            if (delay := self._claim_delay(chunk)) > 0:
                held.append(delay)
            sink.write(chunk)
            await sink.drain()

        await _copy(source, sink, forward)

    async def _replies(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, held: list[float]
    ) -> None:
        async def forward(chunk: bytes) -> None:
            if held:
                await asyncio.sleep(held.pop(0))
            sink.write(chunk)
            await sink.drain()

        await _copy(source, sink, forward)


async def _copy(
    source: asyncio.StreamReader,
    sink: asyncio.StreamWriter,
    forward: Callable[[bytes], Awaitable[None]],
) -> None:
    """Copy one direction until either side closes, then end the other (so a client that gave
    up frees its upstream connection, and the reverse)."""
    try:
        while chunk := await source.read(CHUNK):
            await forward(chunk)
    except (ConnectionError, OSError, RuntimeError):
        pass
    finally:
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            sink.close()


@contextmanager
def running_delay_proxy(upstream_port: int) -> Iterator[DelayProxy]:
    proxy = DelayProxy(upstream_port).start()
    try:
        yield proxy
    finally:
        proxy.stop()
