"""The lean RESP2 codec: commands out, replies in, byte by byte."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.receiver.resp import _INCOMPLETE, RespError, encode_command, parse_reply


def encode_reply(value: Any) -> bytes:
    """What Redis sends for `value` (test-side encoder)."""
    if value is None:
        return b"$-1\r\n"
    if isinstance(value, RespError):
        return b"-" + str(value).encode() + b"\r\n"
    if isinstance(value, int):
        return b":%d\r\n" % value
    if isinstance(value, bytes):
        return b"$%d\r\n%s\r\n" % (len(value), value)
    if isinstance(value, list):
        return b"*%d\r\n" % len(value) + b"".join(encode_reply(item) for item in value)
    raise TypeError(value)


REPLIES = st.recursive(
    st.none() | st.integers(-(2**63), 2**63 - 1) | st.binary(max_size=40),
    lambda children: st.lists(children, max_size=5),
    max_leaves=20,
)


@given(REPLIES)
def test_every_reply_parses_back_and_every_prefix_is_incomplete(value: Any) -> None:
    data = encode_reply(value) + b"+NEXT\r\n"
    parsed, end = parse_reply(data)
    assert parsed == value
    assert parse_reply(data, end) == ("NEXT", len(data))
    for cut in range(end):
        assert parse_reply(data[:cut])[0] is _INCOMPLETE


def test_simple_string_and_error() -> None:
    assert parse_reply(b"+PONG\r\n") == ("PONG", 7)
    error, _ = parse_reply(b"-NOSCRIPT No matching script\r\n")
    assert isinstance(error, RespError)
    assert str(error).startswith("NOSCRIPT")
    assert parse_reply(b"*-1\r\n") == (None, 5)


def test_garbage_is_a_protocol_error() -> None:
    with pytest.raises(ValueError, match="not a RESP2 reply"):
        parse_reply(b"HTTP/1.1 400 Bad Request\r\n")


def test_encode_command_is_binary_safe() -> None:
    assert encode_command("SET", "k", b"a\r\nb", 5) == (
        b"*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n$1\r\n5\r\n"
    )
    assert encode_command("ECHO", "é") == b"*2\r\n$4\r\nECHO\r\n$2\r\n\xc3\xa9\r\n"
