"""The CI identity found in the environment, in its order of preference."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.submit.credentials import ci_credential
from bot.submit.errors import SubmitError
from evalbot_dev.devstack.oidc import LocalOidcProvider


def test_github_actions_token_is_requested_for_the_issuer_audience() -> None:
    with LocalOidcProvider() as provider:
        env = {**provider.actions_environment(), "HF_TOKEN": "hf_x"}
        credential = ci_credential(env, "https://issuer.example")
        assert credential.kind == "github-actions"
        import jwt

        claims = jwt.decode(credential.value, options={"verify_signature": False})
        assert claims["aud"] == "https://issuer.example"
        assert "***" in repr(credential)
        bad = {**env, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "wrong"}
        with pytest.raises(SubmitError, match="id-token: write"):
            ci_credential(bad, "aud")


def test_generic_id_token_then_hub_token(tmp_path: Path) -> None:
    path = tmp_path / "id-token"
    path.write_text("a.b.c\n")
    assert ci_credential({"EVALBOT_ID_TOKEN": "x.y.z", "HF_TOKEN": "hf"}, "a").value == "x.y.z"
    assert ci_credential({"EVALBOT_ID_TOKEN_FILE": str(path)}, "a").value == "a.b.c"
    assert ci_credential({"HF_TOKEN": "hf_t"}, "a").kind == "hf-token"
    with pytest.raises(SubmitError, match="no CI identity"):
        ci_credential({}, "a")
