"""The page forwarder holds no visitor's state: an upstream `Set-Cookie` goes back to the one
visitor whose request it answers and is never stored nor sent with anyone else's request."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from starlette.testclient import TestClient

from bot.web.forward import PageForwarder

pytestmark = pytest.mark.integration


class _CookieUpstream(BaseHTTPRequestHandler):
    """`/login` sets a session cookie; every other path echoes the `Cookie` header it got."""

    def do_GET(self) -> None:
        if self.path == "/login":
            body = b"signed in"
            self.send_response(303)
            self.send_header("Location", "/status")
            self.send_header("Set-Cookie", "evalbot_admin=operator-session; Path=/; HttpOnly")
        else:
            body = ("cookie=" + self.headers.get("cookie", "")).encode()
            self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CookieUpstream)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_an_upstream_cookie_is_never_stored_nor_sent_for_another_visitor(upstream: str) -> None:
    forwarder = PageForwarder(upstream, timeout_s=5)
    operator, visitor = TestClient(forwarder), TestClient(forwarder)  # two browsers
    signed_in = operator.get("/login", follow_redirects=False)
    assert signed_in.status_code == 303
    assert "evalbot_admin=operator-session" in signed_in.headers["set-cookie"]
    assert visitor.get("/status").text == "cookie="  # nothing of the operator's
    assert operator.get("/status").text == "cookie=evalbot_admin=operator-session"
    assert visitor.get("/status").text == "cookie="
    client = forwarder._client
    assert client is not None
    assert list(client.cookies.jar) == []  # the shared client stored nothing
