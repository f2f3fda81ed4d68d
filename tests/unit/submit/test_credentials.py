"""The job's identity for the issuer found in the environment, in its order of preference; a
Hub token only when named, and only a read-only one."""

from __future__ import annotations

import base64
from pathlib import Path

import jwt
import pytest

from bot.hub.identity import HubIdentity
from bot.submit.credentials import NO_IDENTITY, ci_credential, is_read_only
from bot.submit.errors import SubmitError
from evalbot_dev.devstack.oidc import LocalOidcProvider


def audience() -> str:
    return "https://issuer.example"


def never() -> str:
    raise AssertionError("the issuer's metadata was read without GitHub Actions")


def test_github_actions_token_is_requested_for_the_issuer_audience() -> None:
    with LocalOidcProvider() as provider:
        env = {**provider.actions_environment(), "HF_TOKEN": "hf_x"}
        credential = ci_credential(env, audience)
        assert credential.kind == "github-actions"
        claims = jwt.decode(credential.value, options={"verify_signature": False})
        assert claims["aud"] == "https://issuer.example"
        assert "***" in repr(credential)
        bad = {**env, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "wrong"}
        with pytest.raises(SubmitError, match="id-token: write"):
            ci_credential(bad, audience)


def test_generic_id_token_then_client_credentials(tmp_path: Path) -> None:
    path = tmp_path / "id-token"
    path.write_text("a.b.c\n")
    given = ci_credential({"EVALBOT_ID_TOKEN": "x.y.z", "HF_TOKEN": "hf"}, never)
    assert (given.kind, given.value) == ("id-token", "x.y.z")
    assert ci_credential({"EVALBOT_ID_TOKEN_FILE": str(path)}, never).value == "a.b.c"
    client = ci_credential(
        {"EVALBOT_CLIENT_ID": "acme offline", "EVALBOT_CLIENT_SECRET": "evs_s:1"}, never
    )
    scheme, _, value = client.authorization.partition(" ")
    assert scheme == "Basic"
    assert base64.b64decode(value).decode() == "acme%20offline:evs_s%3A1"
    with pytest.raises(SubmitError, match="EVALBOT_CLIENT_SECRET is not set"):
        ci_credential({"EVALBOT_CLIENT_ID": "acme"}, never)


def test_hf_token_alone_is_no_identity_and_the_message_says_how_to_get_one() -> None:
    """HF_TOKEN (a write token: it opens the PR) used to be sent to the issuer."""
    with pytest.raises(SubmitError) as error:
        ci_credential({"HF_TOKEN": "hf_t"}, never)
    assert str(error.value) == NO_IDENTITY
    assert "permissions: id-token: write" in NO_IDENTITY
    with pytest.raises(SubmitError, match="pass --hub-identity EVALBOT_ISSUER_HF_TOKEN"):
        ci_credential({"HF_TOKEN": "hf_t", "EVALBOT_ISSUER_HF_TOKEN": "hf_u"}, never)


def whoami_as(role: str, *permissions: str) -> HubIdentity:
    scopes = (("user:alice", permissions),) if permissions else ()
    return HubIdentity("alice", "user", role, scopes=scopes)


def test_a_named_hub_token_is_sent_only_when_read_only() -> None:
    env = {"ISSUER_ID": "hf_read", "HF_TOKEN": "hf_write"}
    sent = ci_credential(env, never, hub_variable="ISSUER_ID", whoami=lambda t: whoami_as("read"))
    assert (sent.kind, sent.value) == ("hf-token", "hf_read")
    # named only by the option: a variable naming it is no longer read
    by_setting = {**env, "EVALBOT_HUB_IDENTITY": "ISSUER_ID"}
    with pytest.raises(SubmitError, match="no identity for the issuer"):
        ci_credential(by_setting, never, whoami=lambda t: whoami_as("read"))
    with pytest.raises(SubmitError, match="the token in HF_TOKEN can write"):
        ci_credential(env, never, hub_variable="HF_TOKEN", whoami=lambda t: whoami_as("write"))
    with pytest.raises(SubmitError, match="the variable NOPE is not set"):
        ci_credential(env, never, hub_variable="NOPE", whoami=lambda t: whoami_as("read"))


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        (whoami_as("read"), True),
        (whoami_as("fineGrained", "repo.content.read", "collection.read"), True),
        (whoami_as("fineGrained"), True),
        (whoami_as("fineGrained", "repo.content.read", "repo.write"), False),
        (
            HubIdentity("a", "user", "fineGrained", scopes=(("global", ("discussion.write",)),)),
            False,
        ),
        (whoami_as("write"), False),
        (HubIdentity("a", "user", None), False),
    ],
)
def test_read_only_tokens(found: HubIdentity, expected: bool) -> None:
    assert is_read_only(found) is expected
