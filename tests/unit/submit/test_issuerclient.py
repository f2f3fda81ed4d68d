"""What `evalbot submit` sends the issuer: entries it cannot sign are refused before any call,
with the entry named (httpx raised a bare ValueError for YAML's `.nan`: a traceback)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bot.submit.credentials import Credential
from bot.submit.errors import SubmitError
from bot.submit.issuerclient import issuer_audience, request_tokens

UNREACHABLE = "http://127.0.0.1:9"  # discard port: a call would fail with a different error


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), -float("inf"), 2**53 + 1, {"deep": [float("nan")]}]
)
def test_an_entry_the_issuer_cannot_sign_is_named_before_any_call(value: Any) -> None:
    entries = [{"value": 1.0}, {"value": value}]
    with pytest.raises(SubmitError, match=r"entry 1 cannot be signed"):
        request_tokens(
            UNREACHABLE, Credential("hf-token", "hf_x"), model_repo="a/b", entries=entries
        )


def test_a_dry_run_refuses_what_the_issuer_could_not_sign_and_asks_it_nothing() -> None:
    from bot.submit import submit

    entry = {"dataset": {"id": "a/b", "task_id": "t"}, "value": float("nan")}
    with pytest.raises(SubmitError, match=r"entry 0 cannot be signed"):
        submit([entry], model_repo="a/m", issuer_url=UNREACHABLE, dry_run=True, environ={})
    with pytest.raises(SubmitError, match=r"entry 0: `dataset.id` names no benchmark repo"):
        submit([{"value": 1.0}], model_repo="a/m", issuer_url=UNREACHABLE, dry_run=True)


@contextmanager
def issuer_metadata(audience: Any) -> Iterator[str]:
    """A loopback issuer whose metadata names `audience` (`{base}` is replaced by its URL)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            named = audience.replace("{base}", base) if isinstance(audience, str) else audience
            body = json.dumps({"audience": named}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    "audience",
    [
        "sts.amazonaws.com",  # AWS's token exchange
        "api://AzureADTokenExchange",
        "pypi",
        "https://another-issuer.example",
        "{base}.evil.example",
        "{base}/elsewhere",
    ],
)
def test_an_audience_other_than_the_issuers_own_url_is_not_asked_for(audience: str) -> None:
    """GitHub signs an ID token for whatever audience the job asks: an issuer (compromised, or
    not the one the job meant) naming a cloud's audience would get a token that acts there as
    this job. Only the issuer's own URL is taken from its metadata."""
    with issuer_metadata(audience) as base, pytest.raises(SubmitError, match="--audience"):
        issuer_audience(base)


def test_the_issuers_own_url_is_its_audience_however_written() -> None:
    with issuer_metadata("{base}/") as base:
        assert issuer_audience(base) == f"{base}/"
    with issuer_metadata("{base}") as base:
        assert issuer_audience(base + "/") == base
        assert issuer_audience(base.replace("http://", "HTTP://")) == base
