"""A real HTTP server on 127.0.0.1 that plays an issuer's JWKS endpoint, faults included.

Tests switch what it answers (`respond`) between requests: a key set, garbage, an error
status, a redirect, a slow or oversized body. It counts requests, so tests can assert how
often the registry fetched.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bot.tokens.signer import public_jwk
from evalbot_dev.devstack.signing import LocalIssuer


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # the server stalls before answering (a slow issuer)


class JwksServer:
    def __init__(self) -> None:
        self.answer = Answer(status=503)
        self.by_path: dict[str, Answer] = {}  # answers for particular paths, over `answer`
        self.requests: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with server._lock:
                    server.requests.append(self.path)
                    answer = server.by_path.get(self.path, server.answer)
                if answer.delay_s:
                    time.sleep(answer.delay_s)  # the server side of a slow answer
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                # The client may give up (size or time cap): that is the point of those tests.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(answer.body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def url(self, path: str = "/.well-known/jwks.json", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def respond(self, answer: Answer, *, path: str | None = None) -> None:
        with self._lock:
            if path is None:
                self.answer = answer
            else:
                self.by_path[path] = answer

    @property
    def fetches(self) -> int:
        with self._lock:
            return len(self.requests)

    def start(self) -> JwksServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)


@contextmanager
def running_jwks_server() -> Iterator[JwksServer]:
    server = JwksServer().start()
    try:
        yield server
    finally:
        server.stop()


class FakeClock:
    """A monotonic clock the test moves by hand, to step through refetch cooldowns."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def key_set(*issuers: LocalIssuer) -> Answer:
    """The JWKS document publishing the public keys of `issuers`, as an answer to serve."""
    document = {"keys": [public_jwk(issuer.key, issuer.kid) for issuer in issuers]}
    return Answer(body=json.dumps(document).encode(), headers={"Content-Type": "application/json"})
