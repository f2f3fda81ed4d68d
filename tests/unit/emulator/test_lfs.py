"""LFS pointers, and the emulator's app when no CDN origin listens (an app served without
`EmulatorServer`): the object is then served directly, never its pointer."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from evalbot_dev.emulator.app import Emulator
from evalbot_dev.emulator.lfs import parse_pointer, pointer_for
from evalbot_dev.emulator.state import HubState


@given(st.binary(max_size=300))
def test_a_pointer_names_its_object_and_parses_back(content: bytes) -> None:
    stored, pointer = pointer_for(content)
    assert stored.oid == hashlib.sha256(content).hexdigest()
    assert (stored.size, stored.pointer_size) == (len(content), len(pointer))
    assert parse_pointer(pointer) == stored
    assert parse_pointer(pointer + b"\n") is None  # only exact pointers
    assert parse_pointer(content) is None or content == pointer


def test_without_a_cdn_the_object_is_served_directly() -> None:
    state = HubState()
    content = b"- value: 1\n"
    state.seed_repo("model", "a/m", {"r.yaml": content}, lfs=["r.yaml"])
    emulator = Emulator(state)
    with TestClient(emulator.asgi) as http:
        response = http.get("/a/m/resolve/main/r.yaml", follow_redirects=False)
    assert response.status_code == 200
    assert response.content == content
    assert response.headers["X-Linked-Etag"] == f'"{hashlib.sha256(content).hexdigest()}"'
