"""The ndjson commit parser: what the client sends parses; anything else is a 400, never a crash."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.routes.repos import _parse_ndjson


def line(key: str, value: object) -> bytes:
    return json.dumps({"key": key, "value": value}).encode() + b"\n"


def test_the_clients_lines_parse() -> None:
    body = (
        line("header", {"summary": "Add", "description": "", "parentCommit": "a" * 40})
        + line(
            "file",
            {
                "content": base64.b64encode(b"x: 1\n").decode(),
                "path": "a.yaml",
                "encoding": "base64",
            },
        )
        + line("deletedFile", {"path": "old.yaml"})
        + line("deletedFolder", {"path": "dir/"})
    )
    header, changes = _parse_ndjson(body)
    assert header["parentCommit"] == "a" * 40
    assert [(c.path, c.content, c.folder) for c in changes] == [
        ("a.yaml", b"x: 1\n", False),
        ("old.yaml", None, False),
        ("dir/", None, True),
    ]


@pytest.mark.parametrize(
    "body",
    [
        b"",
        line("file", {"content": "eA==", "path": "a", "encoding": "base64"}),
        line("header", {"summary": "s"}) + line("lfsFile", {"path": "a", "oid": "0" * 64}),
        line("header", {"summary": "s"})
        + line("file", {"content": "@@", "path": "a", "encoding": "base64"}),
        line("header", {"summary": "s"}) + b"{not json}\n",
    ],
)
def test_bad_bodies_are_400(body: bytes) -> None:
    with pytest.raises(HubError) as caught:
        _parse_ndjson(body)
    assert caught.value.status == 400


def outcome(body: bytes) -> int:
    """200 when the body parses, else the status of the HubError it raised."""
    try:
        _parse_ndjson(body)
    except HubError as error:
        return error.status
    return 200


@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash(body: bytes) -> None:
    assert outcome(body) in (200, 400)


values = st.one_of(st.text(max_size=5), st.integers(), st.none())
items = st.fixed_dictionaries(
    {
        "key": st.sampled_from(["header", "file", "deletedFile", "x"]),
        "value": st.one_of(
            values,
            st.dictionaries(st.sampled_from(["path", "content", "summary", "encoding"]), values),
        ),
    }
)


@given(st.lists(items, max_size=3))
def test_arbitrary_json_lines_never_crash(lines: list[dict[str, object]]) -> None:
    body = b"".join(json.dumps(item).encode() + b"\n" for item in lines)
    assert outcome(body) in (200, 400)
