"""Hostile bodies against the issuer's app in process (Starlette's TestClient): whatever a
caller sends, the answer is a refusal or tokens, never a 500 (docs/issuer.md, "Refusals")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from bot.issuer.app import create_app
from bot.issuer.authenticators import Authenticators
from bot.issuer.identity import Identity
from bot.issuer.refusals import Unauthenticated
from tests.unit.issuer.test_service import LIVE, MODEL, TARGET, build_issuer


def _alice(token: str) -> Identity:
    return Identity(kind="hub", name="alice")


def _nobody(value: str) -> Identity:
    raise Unauthenticated("credentials-unrecognised")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    issuer, recorder = build_issuer(tmp_path_factory.mktemp("issuer"))
    app = create_app(
        issuer,
        Authenticators(oidc=_nobody, hub=_alice, client=_nobody),
        redis_client=None,  # type: ignore[arg-type]  # only /readyz uses it
        audience="https://tokens.example.org",
        auth_failures=recorder,
    )
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def post(client: TestClient, body: bytes) -> int:
    response = client.post(
        "/v1/tokens",
        content=body,
        headers={"Authorization": "Bearer hf_alice", "Content-Type": "application/json"},
    )
    return response.status_code


def request(*entries: Any, **extra: Any) -> bytes:
    return json.dumps({"model_repo": MODEL, "entries": list(entries), **extra}).encode()


def test_a_good_request_is_signed(client: TestClient) -> None:
    assert post(client, request(TARGET)) == 200


def test_nesting_beyond_what_json_can_parse_is_a_400(client: TestClient) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    assert (
        post(client, b'{"model_repo": "alice/model", "entries": [{"notes": ' + deep + b"}]}") == 400
    )


@pytest.mark.parametrize("depth", [40, 500, 900])
def test_entries_nested_deeper_than_a_results_file_may_be_are_a_400(
    client: TestClient, depth: int
) -> None:
    nested: Any = "x"
    for _ in range(depth):
        nested = [nested]
    assert post(client, request({**TARGET, "notes": nested})) == 400


def test_an_entry_as_deep_as_a_results_file_may_be_is_judged_on_its_content(
    client: TestClient,
) -> None:
    nested: Any = "x"
    for _ in range(29):  # the entry is level 2, `details` level 3: 32 levels in all
        nested = [nested]
    assert post(client, request({**TARGET, "details": nested})) in (200, 422)


@pytest.mark.parametrize("text", ["\ud800", "ok\udfff"])
def test_text_without_a_utf8_form_is_a_400(client: TestClient, text: str) -> None:
    assert post(client, request({**TARGET, "notes": text})) == 400
    assert post(client, request({**TARGET, text: "x"})) == 400


#: Any I-JSON value (what `parse_request` can let through), nested a little.
ijson_text = st.text(max_size=20)
ijson_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | ijson_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ijson_text, inner, max_size=4),
    max_leaves=30,
)
_fields = st.sampled_from(
    ["dataset", "metrics", "framework", "value", "notes", "model_revision", "evaluation_framework"]
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(base=st.sampled_from([TARGET, LIVE]), field=_fields, value=ijson_values)
def test_any_json_in_any_field_is_never_a_500(
    client: TestClient, base: dict[str, Any], field: str, value: Any
) -> None:
    body = json.dumps(
        {"model_repo": MODEL, "entries": [{**base, field: value}], "framework": "lighteval"}
    ).encode()
    assert post(client, body) in (200, 400, 403, 422)
