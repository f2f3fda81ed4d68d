"""A request body read under a cap (`bot.httpguards`), over hand-made ASGI messages."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from starlette.requests import Request
from starlette.types import Message

from bot.httpguards import BodyRefused, read_body


def request(chunks: Sequence[bytes], *, length: str | None = None, gone: bool = False) -> Request:
    """A POST whose body arrives in `chunks` (then the client leaves, when `gone`)."""
    headers = [] if length is None else [(b"content-length", length.encode())]
    messages: list[Message] = [
        {"type": "http.request", "body": chunk, "more_body": True} for chunk in chunks
    ]
    messages.append({"type": "http.disconnect"} if gone else {"type": "http.request", "body": b""})

    async def receive() -> Message:
        return messages.pop(0)

    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers}
    return Request(scope, receive)


def read(req: Request, cap: int) -> bytes:
    return asyncio.run(read_body(req, cap))


def test_a_body_within_the_cap_is_read_whole() -> None:
    assert read(request([b"ab", b"cd"], length="4"), cap=4) == b"abcd"
    assert read(request([b"ab", b"cd"]), cap=4) == b"abcd"  # chunked: no length declared


def test_a_declared_length_over_the_cap_is_refused_before_any_byte_is_read() -> None:
    received: list[Message] = []

    async def receive() -> Message:  # must not be called
        received.append({})
        return {"type": "http.request", "body": b"x"}

    scope = {"type": "http", "method": "POST", "path": "/", "headers": [(b"content-length", b"5")]}
    with pytest.raises(BodyRefused) as refused:
        read(Request(scope, receive), cap=4)
    assert refused.value.problem == "too-large"
    assert received == []


def test_a_chunked_body_stops_at_the_first_chunk_past_the_cap() -> None:
    with pytest.raises(BodyRefused) as refused:
        read(request([b"abc", b"def", b"never read"]), cap=4)
    assert refused.value.problem == "too-large"


@pytest.mark.parametrize("length", ["abc", "-1", "1e3", "٣"])
def test_a_length_that_is_not_a_number_is_refused(length: str) -> None:
    with pytest.raises(BodyRefused) as refused:
        read(request([b"abc"], length=length), cap=100)
    assert refused.value.problem == "bad-length"


def test_a_sender_that_leaves_mid_body_is_told_apart() -> None:
    with pytest.raises(BodyRefused) as refused:
        read(request([b"ab"], gone=True), cap=100)
    assert refused.value.problem == "disconnected"
