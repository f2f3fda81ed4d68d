"""Wire details the client relies on, checked on raw HTTP (docs/hub-api.md#wire-details,
#emulator-checklist)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from evalbot_dev.emulator.git import blob_oid
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, TOKENS, client

pytestmark = pytest.mark.integration
HUB_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def dates(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from dates(v, k)
    elif isinstance(value, list):
        for item in value:
            yield from dates(item, key)
    elif key in ("createdAt", "updatedAt", "date", "lastModified"):
        yield key, value


@pytest.fixture
def http(emulated_hub: EmulatorServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=emulated_hub.url, trust_env=False) as session:
        yield session


def test_resolve_head_and_get_agree_and_carry_no_xet_headers(
    emulated_hub: EmulatorServer, http: httpx.Client
) -> None:
    url = f"/{MODEL}/resolve/main/README.md"
    head = http.head(url, headers={"Accept-Encoding": "identity"})
    get = http.get(url, headers={"Accept-Encoding": "gzip, deflate"})
    assert head.status_code == get.status_code == 200
    assert head.headers["X-Repo-Commit"] == client(emulated_hub, None).model_info(MODEL).sha
    assert head.headers["ETag"] == f'"{blob_oid(get.content)}"'
    assert int(head.headers["Content-Length"]) == len(get.content)
    assert "content-encoding" not in get.headers
    assert not [name for name in head.headers if name.lower().startswith("x-xet")]
    assert "location" not in head.headers
    missing = http.head(f"/{MODEL}/resolve/refs%2Fheads%2Fmain/nope.txt")
    assert missing.status_code == 404
    assert missing.headers["X-Error-Code"] == "EntryNotFound"
    assert missing.headers["X-Repo-Commit"] == head.headers["X-Repo-Commit"]


def test_errors_carry_codes_messages_and_json(http: httpx.Client) -> None:
    answer = http.get("/api/models/alice/nope")
    assert answer.status_code == 401  # anonymous
    assert answer.headers["X-Error-Code"] == "RepoNotFound"
    assert answer.headers["Content-Type"] == "application/json"
    assert answer.json() == {"error": answer.headers["X-Error-Message"]}
    answer = http.get(
        "/api/models/alice/nope", headers={"authorization": f"Bearer {TOKENS['bob']}"}
    )
    assert answer.status_code == 404
    answer = http.get(f"/api/models/{MODEL}/revision/nope")
    assert answer.headers["X-Error-Code"] == "RevisionNotFound"
    answer = http.get("/api/whoami-v2", headers={"authorization": "Bearer hf_forged"})
    assert answer.status_code == 401
    assert answer.headers["X-Error-Message"] == "Invalid credentials in Authorization header"
    assert "X-Error-Code" not in answer.headers


def test_every_date_has_the_hub_form(emulated_hub: EmulatorServer, http: httpx.Client) -> None:
    bob = client(emulated_hub, "bob")
    num = bob.create_discussion(MODEL, title="t", description="d").num
    bob.comment_discussion(MODEL, num, "c")
    auth = {"authorization": f"Bearer {TOKENS['alice']}"}
    documents = [
        http.get(f"/api/models/{MODEL}/discussions/{num}?diff=1").json(),
        http.get(f"/api/models/{MODEL}/discussions").json(),
        http.get(f"/api/models/{MODEL}").json(),
        http.get(f"/api/models/{MODEL}/commits/main").json(),
        http.get(f"/api/models/{MODEL}/tree/main?expand=true").json(),
        http.get("/api/whoami-v2", headers=auth).json(),
    ]
    found = [pair for document in documents for pair in dates(document)]
    assert len(found) > 10
    assert [value for _, value in found if not HUB_DATE.fullmatch(value)] == []
