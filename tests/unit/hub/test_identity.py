"""Parsing `whoami-v2` answers (`bot.hub.identity`) and the one rule for Hub names."""

from __future__ import annotations

import pytest

from bot.hub.identity import HubIdentity, TokenScope, identity_from_whoami
from bot.hub.names import same_hub_name

# The shape of the Hub's answer for a fine-grained token (huggingface.js api-who-am-i.ts).
REAL_SHAPE = {
    "type": "user",
    "id": "6640ffee00112233445566bb",
    "name": "Acme-Evalbot",
    "fullname": "Acme evalbot",
    "email": None,
    "emailVerified": False,
    "isPro": False,
    "orgs": [{"type": "org", "name": "acme", "roleInOrg": "write"}],
    "auth": {
        "type": "access_token",
        "accessToken": {
            "displayName": "evalbot-prod",
            "role": "fineGrained",
            "createdAt": "2026-01-01T00:00:00.000Z",
            "fineGrained": {
                "canReadGatedRepos": True,
                "global": ["discussion.write"],
                "scoped": [
                    {
                        "entity": {"_id": "1", "type": "org", "name": "acme"},
                        "permissions": ["repo.content.read"],
                    }
                ],
            },
        },
    },
}


def test_every_field_the_bot_reads() -> None:
    assert identity_from_whoami(REAL_SHAPE) == HubIdentity(
        name="Acme-Evalbot",
        type="user",
        id="6640ffee00112233445566bb",
        orgs=("acme",),
        token_role="fineGrained",
        token_name="evalbot-prod",
        scopes=(TokenScope("org", "acme", ("repo.content.read",)),),
        global_permissions=("discussion.write",),
    )


def test_a_minimal_answer() -> None:
    identity = identity_from_whoami({"name": "alice"})
    assert (identity.type, identity.orgs, identity.token_role, identity.scopes) == (
        "user",
        (),
        None,
        (),
    )


@pytest.mark.parametrize("answer", [{}, {"name": ""}, {"name": 3}])
def test_an_answer_without_a_name_is_refused(answer: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="names no account"):
        identity_from_whoami(answer)


def test_names_compare_case_insensitively() -> None:
    assert same_hub_name("Evalbot", "evalbot")
    assert identity_from_whoami(REAL_SHAPE).is_named("acme-evalbot")
    assert not same_hub_name("evalbot", "evalbot-ci")
