"""The job's identity for the issuer found in the environment, in its order of preference; a
Hub token only when named, and only a read-only one."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Callable
from pathlib import Path

import id as ambient_id
import jwt
import pytest

from bot.hub.identity import HubIdentity
from bot.submit.credentials import NO_IDENTITY, ambient_credential, ci_credential, is_read_only
from bot.submit.errors import SubmitError
from evalbot_dev.devstack.oidc import LocalOidcProvider


def audience() -> str:
    return "https://issuer.example"


def never() -> str:
    raise AssertionError("the issuer's metadata was read for a job with an identity")


@pytest.fixture
def outside_ci(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No CI variable `id` reads is set (whatever runs these tests)."""
    for name in ("GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GOOGLE_SERVICE_ACCOUNT_NAME", raising=False)
    return monkeypatch


def no_ci(audience: str) -> str | None:
    """The ambient detection outside any CI."""
    return None


def test_github_actions_token_is_requested_for_the_issuer_audience(
    outside_ci: pytest.MonkeyPatch,
) -> None:
    with LocalOidcProvider() as provider:
        for name, value in provider.actions_environment().items():
            outside_ci.setenv(name, value)
        credential = ci_credential({"HF_TOKEN": "hf_x"}, audience)
        assert credential.kind == "ci-oidc"
        claims = jwt.decode(credential.value, options={"verify_signature": False})
        assert claims["aud"] == "https://issuer.example"
        assert "***" in repr(credential)
        outside_ci.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "wrong")
        with pytest.raises(SubmitError, match="id-token: write"):
            ci_credential({"HF_TOKEN": "hf_x"}, audience)
        outside_ci.delenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
        with pytest.raises(SubmitError, match=r"ACTIONS_ID_TOKEN_REQUEST_TOKEN.*id-token: write"):
            ci_credential({"HF_TOKEN": "hf_x"}, audience)


def test_a_variable_naming_an_identity_wins_over_the_ci_and_asks_no_audience(
    outside_ci: pytest.MonkeyPatch,
) -> None:
    """A job given an ID token (GitLab's `id_tokens:`) or client credentials on purpose uses
    them, in GitHub Actions too: the issuer's metadata is not read, no token is minted."""
    with LocalOidcProvider() as provider:
        job = {**provider.actions_environment(), "EVALBOT_ID_TOKEN": "x.y.z"}
        for name, value in job.items():
            outside_ci.setenv(name, value)
        given = ci_credential(job, never)
        assert (given.kind, given.value) == ("id-token", "x.y.z")


def test_a_ci_agent_that_never_answers_is_given_up_in_time() -> None:
    """`id` runs the Buildkite and CircleCI agents with no timeout: the whole detection has one."""
    release = threading.Event()

    def stuck(audience: str) -> str:
        release.wait(30)
        return "never.used.token"

    started = time.monotonic()
    try:
        with pytest.raises(SubmitError, match=r"no ID token within 0.2 s.*id-token: write"):
            ambient_credential_with(stuck, timeout_s=0.2)
    finally:
        release.set()
    assert time.monotonic() - started < 5


def ambient_credential_with(detect: Callable[[str], str | None], timeout_s: float) -> str | None:
    """`ambient_credential` with `id.detect_credential` standing as `detect`."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ambient_id, "detect_credential", detect)
        return ambient_credential("https://issuer.example", timeout_s=timeout_s)


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
        ci_credential({"HF_TOKEN": "hf_t"}, audience, ambient=no_ci)
    assert str(error.value) == NO_IDENTITY
    assert "permissions: id-token: write" in NO_IDENTITY
    with pytest.raises(SubmitError, match="pass --hub-identity EVALBOT_ISSUER_HF_TOKEN"):
        ci_credential(
            {"HF_TOKEN": "hf_t", "EVALBOT_ISSUER_HF_TOKEN": "hf_u"}, audience, ambient=no_ci
        )


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
        ci_credential(by_setting, audience, whoami=lambda t: whoami_as("read"), ambient=no_ci)
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
