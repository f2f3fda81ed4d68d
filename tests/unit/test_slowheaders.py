"""`bot.httpguards`: uvicorn closes a connection whose request headers are late (trickled,
or never sent), and serves prompt requests, kept-alive ones included, as before."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from bot.httpguards import header_deadline_protocol

HEADER_TIMEOUT_S = 1.0


async def page(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "http":
        await PlainTextResponse("page")(scope, receive, send)


@pytest.fixture(params=["auto", "h11"])
def server(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    protocol = header_deadline_protocol(HEADER_TIMEOUT_S, h11_only=request.param == "h11")
    config = uvicorn.Config(page, http=protocol, log_config=None, lifespan="off")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not running.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield sock.getsockname()
    finally:
        running.should_exit = True
        thread.join(timeout=10)
        sock.close()


def closed_after(sock: socket.socket, trickle: bytes, limit_s: float) -> float | None:
    """Seconds until the server closes `sock` while `trickle` is sent every 0.2 s, or None."""
    sock.settimeout(0.2)
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        try:
            if trickle:
                sock.sendall(trickle)
            if sock.recv(100) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - started
    return None


def test_headers_trickled_in_are_cut_off(server: tuple[str, int]) -> None:
    with socket.create_connection(server) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        elapsed = closed_after(sock, b"X-A: b\r\n", HEADER_TIMEOUT_S + 3)
    assert elapsed is not None
    assert elapsed < HEADER_TIMEOUT_S + 1


def test_a_silent_connection_is_cut_off(server: tuple[str, int]) -> None:
    with socket.create_connection(server) as sock:
        elapsed = closed_after(sock, b"", HEADER_TIMEOUT_S + 3)
    assert elapsed is not None
    assert elapsed < HEADER_TIMEOUT_S + 1


def test_prompt_requests_on_a_kept_alive_connection_are_served(server: tuple[str, int]) -> None:
    with socket.create_connection(server, timeout=5) as sock:
        for _ in range(3):
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 200"), answer
            time.sleep(HEADER_TIMEOUT_S * 0.7)  # idle between requests: not a late header
