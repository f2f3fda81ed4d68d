"""The emulator answers the Trusted Publishers token exchange as the Hub does.

The request is huggingface_hub's own (`_oidc.exchange_oidc_token`, what `HF_OIDC_RESOURCE`
triggers); the ID tokens come from a local OIDC provider whose JWKS the emulator fetches. A
registered publisher's claims must all match exactly; every refusal is the same
`400 invalid_grant`, whichever claim, issuer, audience or repo failed; the token changes its
one repo only and stops working after an hour.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from huggingface_hub import CommitOperationAdd, HfApi
from huggingface_hub._oidc import exchange_oidc_token
from huggingface_hub.errors import HfHubHTTPError

from evalbot_dev.devstack.oidc import LocalOidcProvider
from evalbot_dev.emulator import publishers
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, ORG_MODEL, running_emulator

pytestmark = pytest.mark.integration

WORKFLOW = "acme/evals/.github/workflows/eval.yml@refs/heads/main"


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[EmulatorServer, LocalOidcProvider, LocalOidcProvider]]:
    """The emulator trusting one provider (`oidc`), and a second provider it does not trust."""
    with running_emulator() as hub, LocalOidcProvider() as oidc, LocalOidcProvider() as other:
        publishers.trust_issuer(hub.state, oidc.url, oidc.jwks_url)
        publishers.register_publisher(
            hub.state,
            "model",
            MODEL,
            issuer=oidc.url,
            claims={"repository": "acme/evals", "workflow_ref": WORKFLOW},
        )
        yield hub, oidc, other


def exchange(hub: EmulatorServer, subject_token: str, resource: str = MODEL) -> dict[str, Any]:
    return exchange_oidc_token(subject_token=subject_token, resource=resource, endpoint=hub.url)


def refusal(hub: EmulatorServer, subject_token: str, resource: str = MODEL) -> dict[str, Any]:
    with pytest.raises(HfHubHTTPError) as raised:
        exchange(hub, subject_token, resource)
    response = raised.value.response
    assert response.status_code == 400
    body: dict[str, Any] = response.json()
    return body


def test_a_registered_workflow_gets_a_token_for_its_repo_valid_an_hour(world: Any) -> None:
    hub, oidc, _ = world
    answer = exchange(hub, oidc.mint(hub.url))
    assert answer["token_type"] == "bearer"
    assert answer["expires_in"] == 3600
    assert answer["access_token"].startswith("hf_jwt_")
    api = HfApi(endpoint=hub.url, token=answer["access_token"])
    commit = api.create_commit(
        MODEL,
        [CommitOperationAdd(".eval_results/x.yaml", b"[]\n")],
        commit_message="from CI",
        create_pr=True,
    )
    assert commit.pr_num is not None
    held = hub.state.tokens[answer["access_token"]]
    assert held.repo_scope == ("model", MODEL)
    assert held.expires_at is not None
    assert 3590 < held.expires_at - time.time() <= 3600


def test_every_refusal_is_the_same_and_names_no_claim(world: Any) -> None:
    hub, oidc, other = world
    refusals = [
        refusal(hub, oidc.mint(hub.url, overrides={"repository": "acme/other"})),
        refusal(hub, oidc.mint(hub.url, overrides={"workflow_ref": WORKFLOW + "x"})),
        refusal(hub, oidc.mint(hub.url, drop=("workflow_ref",))),
        refusal(hub, oidc.mint("https://huggingface.co")),  # another audience
        refusal(hub, oidc.mint(hub.url, now=int(time.time()) - 3600)),  # expired
        refusal(hub, other.mint(hub.url)),  # an issuer the Hub does not trust
        refusal(hub, oidc.mint(hub.url, key=other.key)),  # signed by another key
        refusal(hub, oidc.mint(hub.url), resource=ORG_MODEL),  # no publisher on that repo
        refusal(hub, oidc.mint(hub.url), resource="acme/no-such-model"),
        refusal(hub, "not-a-jwt"),
    ]
    assert all(body == refusals[0] for body in refusals)
    assert refusals[0]["error"] == "invalid_grant"
    for word in ("repository", "workflow_ref", "aud", "exp", "issuer", "signature"):
        assert word not in str(refusals[0])


def test_a_request_that_is_no_token_exchange_is_refused(world: Any) -> None:
    hub, oidc, _ = world
    answer = httpx.post(
        f"{hub.url}/oauth/token",
        json={"grant_type": "client_credentials", "subject_token": oidc.mint(hub.url)},
        timeout=10,
    )
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_grant"


def test_the_token_changes_its_repo_only(world: Any) -> None:
    hub, oidc, _ = world
    token = exchange(hub, oidc.mint(hub.url))["access_token"]
    api = HfApi(endpoint=hub.url, token=token)
    with pytest.raises(HfHubHTTPError) as raised:
        api.create_commit(
            ORG_MODEL,
            [CommitOperationAdd(".eval_results/x.yaml", b"[]\n")],
            commit_message="elsewhere",
            create_pr=True,
        )
    assert raised.value.response.status_code == 403
    with pytest.raises(HfHubHTTPError) as created:
        api.create_repo("alice/new-model")
    assert created.value.response.status_code == 403
    assert api.model_info(ORG_MODEL).id == ORG_MODEL  # a public repo reads as for anyone


def test_an_expired_token_is_refused(world: Any) -> None:
    hub, oidc, _ = world
    token = exchange(hub, oidc.mint(hub.url))["access_token"]
    held = hub.state.tokens[token]
    with hub.state.lock:
        hub.state.tokens[token] = dataclasses.replace(held, expires_at=time.time() - 1)
    answer = httpx.get(
        f"{hub.url}/api/whoami-v2", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    assert answer.status_code == 401
