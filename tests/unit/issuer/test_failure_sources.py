"""What a failed authentication counts against: the address, and the client id Basic names."""

from __future__ import annotations

import base64

from bot.issuer.authenticators import failure_sources


def basic(text: str) -> str:
    return "Basic " + base64.b64encode(text.encode()).decode()


def test_the_address_always_and_the_client_id_for_basic_credentials() -> None:
    assert failure_sources("Bearer hf_x", "10.0.0.1") == ["addr:10.0.0.1"]
    assert failure_sources(None, None) == ["addr:unknown"]
    assert failure_sources(basic("acme-offline:secret"), "10.0.0.1") == [
        "addr:10.0.0.1",
        "client:acme-offline",
    ]
    # Percent-encoded as RFC 6749 asks: the same client as its decoded id.
    assert failure_sources(basic("acme%2Doffline:s"), "a")[1] == "client:acme-offline"


def test_unreadable_basic_credentials_count_against_the_address_only() -> None:
    assert failure_sources("Basic !!!", "10.0.0.1") == ["addr:10.0.0.1"]
    assert failure_sources(basic("no-colon"), "10.0.0.1") == ["addr:10.0.0.1"]
    assert failure_sources(basic(":secret"), "10.0.0.1") == ["addr:10.0.0.1"]
