"""The issuer's port closes a connection whose request headers never finish, as the receiver's
and the pages' ports do: the app never hears of such a request, so only uvicorn's protocol
can bound it (`bot.httpguards.header_deadline_protocol`)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from tests.integration.issuer.conftest import IssuerEnv, issuer_env
from tests.support.tuning import tuned

#: Short enough for a test, long enough that a loaded machine sends the request line in time.
BODY_TIMEOUT_S = 3


@pytest.fixture(scope="module")
def slow_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerEnv]:
    with issuer_env(
        tmp_path_factory.mktemp("issuer-slow"),
        settings=tuned({"bot.httpguards.BODY_TIMEOUT_S": BODY_TIMEOUT_S}),
    ) as started:
        yield started


def test_headers_that_never_finish_are_cut_off(slow_env: IssuerEnv) -> None:
    url = urlsplit(slow_env.issuer.url)
    address = (url.hostname or "127.0.0.1", url.port or 80)
    started = time.monotonic()
    with socket.create_connection(address, timeout=1) as sock:
        sock.sendall(f"POST /v1/tokens HTTP/1.1\r\nHost: {address[0]}\r\n".encode())
        closed = False
        while not closed and time.monotonic() - started < BODY_TIMEOUT_S + 6:
            try:
                sock.sendall(b"X-Trickle: 1\r\n")
                closed = sock.recv(100) == b""
            except TimeoutError:
                continue
            except OSError:
                closed = True
    elapsed = time.monotonic() - started
    assert closed
    assert elapsed < BODY_TIMEOUT_S + 3, elapsed


def test_a_request_sent_at_once_is_still_answered(slow_env: IssuerEnv) -> None:
    answer = httpx.get(f"{slow_env.issuer.url}/.well-known/jwks.json", timeout=10)
    assert answer.status_code == 200
    assert answer.json()["keys"]
