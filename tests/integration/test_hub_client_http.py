"""`HfHubClient` over a real loopback HTTP server, with `huggingface_hub`'s default session.

The unit tests swap the client's transport for `httpx2.MockTransport`; this one leaves the
client exactly as production runs it (default client factory, real sockets, real headers) and
serves the same fake Hub over `http.server` on 127.0.0.1. The Hub emulator's own integration
tests take over after the merge.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import pytest
from huggingface_hub import HfApi

from bot.hub.client import HfHubClient
from bot.hub.errors import HubPermanentError, HubTransientError
from tests.unit.hub.fake_hub import FakeHub, sample_details

REPO = "acme/model-7b"
HEAD = "b" * 40


def serve(hub: FakeHub) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the test asserts on what the fake recorded."""

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = httpx2.Request(
                self.command,
                f"http://{self.headers['Host']}{self.path}",
                headers=dict(self.headers.items()),
                content=self.rfile.read(length) if length else b"",
            )
            response = hub.handle(request)
            body = response.read()
            self.send_response(response.status_code)
            for name, value in response.headers.items():
                if name.lower() not in ("content-length", "transfer-encoding"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_HEAD = _answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return server


@pytest.fixture
def hub() -> FakeHub:
    fake = FakeHub()
    fake.details[(REPO, 3)] = sample_details()
    return fake


@pytest.fixture
def client(hub: FakeHub) -> Iterator[HfHubClient]:
    server = serve(hub)
    try:
        endpoint = f"http://127.0.0.1:{server.server_port}"
        yield HfHubClient(HfApi(endpoint=endpoint, token="hf_integration"))
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.integration
def test_one_pr_run_over_real_http(client: HfHubClient, hub: FakeHub) -> None:
    hub.files[(REPO, HEAD, ".eval_results/gpqa.yaml")] = b"- value: 0.412\n"
    hub.datasets["idavidrein/gpqa"] = {"id": "Idavidrein/gpqa", "sha": "e" * 40}

    pr = client.pull_request(REPO, 3)
    assert pr.head_sha == HEAD
    assert pr.result_files == (".eval_results/gpqa.yaml", ".eval_results/hle.yaml")
    assert client.read_file(REPO, ".eval_results/gpqa.yaml", HEAD) == b"- value: 0.412\n"
    assert client.dataset_revision("Idavidrein/gpqa", None).sha == "e" * 40
    existing = pr.find_bot_comment("evalbot", "<!-- evalbot:pr-report -->")
    assert existing is not None
    client.edit_comment(REPO, 3, existing.id, "updated")

    assert hub.calls == [
        f"GET /api/models/{REPO}/discussions/3",
        f"GET /{REPO}/resolve/{HEAD}/.eval_results/gpqa.yaml",
        "GET /api/datasets/Idavidrein/gpqa",
        f"POST /api/models/{REPO}/discussions/3/comment/{existing.id}/edit",
    ]
    assert {r.headers["authorization"] for r in hub.requests} == {"Bearer hf_integration"}
    assert hub.posted[-1][1] == "updated"


@pytest.mark.integration
def test_errors_over_real_http(client: HfHubClient, hub: FakeHub) -> None:
    hub.faults.append(
        httpx2.Response(429, json={"error": "slow"}, headers={"RateLimit": '"api";r=0;t=12'})
    )
    with pytest.raises(HubTransientError) as transient:
        client.pull_request(REPO, 3)
    assert transient.value.retry_after == 12
    with pytest.raises(HubPermanentError) as missing:
        client.read_file(REPO, ".eval_results/none.yaml", HEAD)
    assert missing.value.not_found
