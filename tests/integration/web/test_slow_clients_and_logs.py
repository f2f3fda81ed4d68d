"""Both HTTP ports of a running bot (the receiver, which forwards the pages as on a Space, and
`evalbot web`) cut off a body that never finishes, bound how many such bodies one address may
send at once, answer both with the styled error page, and log no visitor input."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest

from evalbot_dev.devstack.waiting import wait_until
from tests.support.stackbot import Bot, running_bot
from tests.support.trickle import trickle_headers
from tests.support.tuning import tuned

pytestmark = pytest.mark.integration

BODY_TIMEOUT_S = 4.0
PER_CLIENT = 8  # bot.httpguards.PER_CLIENT_DEFAULT
SLOW_AFTER_S = 1.0  # bot.httpguards.SLOW_AFTER_S
STYLED = b'<link rel="stylesheet" href="/static/style.css">'
MARKER = "zqxvisitortyped"  # what a visitor typed; no log may keep it


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    work_dir: Path = tmp_path_factory.mktemp("slow-clients")
    env = {
        **tuned({"bot.httpguards.BODY_TIMEOUT_S": BODY_TIMEOUT_S}),
        "EVALBOT_LOG_LEVEL": "DEBUG",
    }
    with running_bot(work_dir / "stack", web=True, env=env) as running:
        yield running


def ports(bot: Bot) -> list[tuple[str, int]]:
    """(host, port) of the receiver (pages forwarded) and of `evalbot web` itself."""
    found = []
    for url in (bot.stack.receiver_url, bot.stack.web_url):
        parts = urlsplit(url)
        assert parts.hostname is not None
        assert parts.port is not None
        found.append((parts.hostname, parts.port))
    return found


def start_slow_post(address: tuple[str, int], path: str = "/playground") -> socket.socket:
    """A POST that declares 1,000 bytes and sends 2, once the app has begun reading its body
    (uvicorn answers `Expect: 100-continue` when the app first asks for the body)."""
    sock = socket.create_connection(address, timeout=BODY_TIMEOUT_S + 10)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n"
        "Expect: 100-continue\r\n\r\n".encode()
    )
    head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 100"), head
    sock.sendall(b"ab")
    return sock


def read_to_end(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a timeout fails)."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("path", ["/playground", "/webhooks/hub"])
def test_a_body_that_never_finishes_is_cut_off_on_both_ports(bot: Bot, path: str) -> None:
    for address in ports(bot):
        if path == "/webhooks/hub" and address[1] == bot.stack.web_port:
            continue  # the webhook route is the receiver's own
        started = time.monotonic()
        with start_slow_post(address, path) as sock:
            answer = read_to_end(sock)  # the server closes the connection
        elapsed = time.monotonic() - started
        assert answer.startswith(b"HTTP/1.1 408"), (address, answer[:200])
        assert BODY_TIMEOUT_S - 0.5 <= elapsed < BODY_TIMEOUT_S + 4, (address, elapsed)
        if path == "/playground":
            assert STYLED in answer, answer[-400:]


def test_headers_that_never_finish_are_cut_off_on_both_ports(bot: Bot) -> None:
    """A request whose headers trickle in (a line now and then) is dropped by the same
    deadline as a body: the app never hears of it, so uvicorn's protocol does it."""
    for address in ports(bot):
        elapsed = trickle_headers(address, "/status", give_up_after_s=BODY_TIMEOUT_S + 4)
        assert elapsed is not None, address
        assert elapsed < BODY_TIMEOUT_S + 2, (address, elapsed)


def test_one_address_holds_a_bounded_number_of_unfinished_bodies(bot: Bot) -> None:
    """Eight slow bodies from one address are held (each counts once it is still arriving a
    second after its start); a ninth is answered 429 as it turns slow, well before the body
    timeout."""
    for address in ports(bot):
        held = [start_slow_post(address) for _ in range(PER_CLIENT)]
        started = time.monotonic()
        try:

            def ninth_refused(address: tuple[str, int] = address) -> bytes | None:
                with socket.create_connection(address, timeout=BODY_TIMEOUT_S) as extra:
                    extra.sendall(
                        f"POST /playground HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n"
                        "Content-Type: application/x-www-form-urlencoded\r\n"
                        "Content-Length: 1000\r\n\r\nab".encode()
                    )
                    extra.settimeout(SLOW_AFTER_S + 1)
                    try:
                        answer = read_to_end(extra)
                    except TimeoutError:
                        return None  # held: the first eight are not slow yet
                    return answer if answer.startswith(b"HTTP/1.1 429") else None

            answer = wait_until(ninth_refused, timeout=BODY_TIMEOUT_S - 1, what="a 429")
            assert time.monotonic() - started < BODY_TIMEOUT_S
            assert STYLED in answer
        finally:
            for sock in held:
                sock.close()


def test_the_forwarder_answers_an_oversize_body_with_the_styled_page(bot: Bot) -> None:
    answer = httpx2.post(
        f"{bot.stack.receiver_url}/playground",
        content=b"x" * (2 * 1024 * 1024),
        headers={"content-type": "application/x-www-form-urlencoded"},
        timeout=30,
    )
    assert answer.status_code == 413
    assert STYLED.decode() in answer.text
    assert answer.headers["content-security-policy"].startswith("default-src 'none'")


def test_logs_name_the_route_and_keep_no_visitor_input(bot: Bot) -> None:
    with httpx2.Client(base_url=bot.stack.receiver_url, timeout=30) as visitor:
        assert visitor.get(f"/history?repo=alice/{MARKER}").status_code == 303
        assert visitor.get(f"/history/alice/{MARKER}").status_code == 200
        assert visitor.get(f"/collections?cid={MARKER}").status_code == 404
        posted = visitor.post(
            "/playground",
            data={
                "kind": "results",
                "content": f"- dataset:\n    id: {MARKER}/b\n    task_id: t\n  value: 1\n",
                "benchmark": f"{MARKER}/bench",
                "model_repo": f"alice/{MARKER}",
            },
        )
        assert posted.status_code == 200
        assert MARKER in posted.text  # the page did read it (and looked it up on the Hub)

    def log(name: str) -> str:
        return (bot.stack.work_dir / f"{name}.log").read_text(errors="replace")

    # each line is written once its answer has gone: wait for the last one
    wait_until(
        lambda: '"route": "/playground", "status": 200' in log("web"),
        timeout=15,
        what="the playground's request line",
    )
    assert '"route": "/history/{owner}/{name}"' in log("web")
    for name in ("receiver", "web"):
        text = log(name)
        assert MARKER not in text, f"{name}.log keeps visitor input:\n{text[-3000:]}"
