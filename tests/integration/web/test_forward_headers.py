"""The page forwarder tells `evalbot web` who the client is as the receiver saw it: a client's
own `X-Forwarded-For` (which `evalbot web` would trust, coming from loopback) is replaced, so
no visitor picks the address the pages' per-address bound counts them under."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from starlette.testclient import TestClient

from bot.web.forward import PageForwarder

pytestmark = pytest.mark.integration


class _EchoHeaders(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({k.lower(): v for k, v in self.headers.items()}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoHeaders)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_a_clients_own_forwarding_headers_are_replaced(upstream: str) -> None:
    visitor = TestClient(PageForwarder(upstream, timeout_s=5))
    seen = visitor.get(
        "/status",
        headers={
            "X-Forwarded-For": "203.0.113.7",
            "X-Forwarded-Proto": "https",
            "Forwarded": "for=203.0.113.7",
            "X-Real-IP": "203.0.113.7",
        },
    ).json()
    assert seen["x-forwarded-for"] == "testclient"  # the address the receiver saw
    assert seen["x-forwarded-proto"] == "http"
    assert "forwarded" not in seen
    assert "x-real-ip" not in seen
