"""`bot.hub.identity` on the Hub's own answer shape, and the one rule for Hub names."""

from __future__ import annotations

from bot.hub.identity import parse_whoami
from bot.validation.model import same_hub_name

# The shape of the Hub's answer for a fine-grained token (huggingface.js api-who-am-i.ts).
REAL_SHAPE = {
    "type": "user",
    "id": "6640ffee00112233445566bb",
    "name": "Acme-Evalbot",
    "fullname": "Acme evalbot",
    "orgs": [{"type": "org", "name": "acme", "roleInOrg": "write"}],
    "auth": {
        "type": "access_token",
        "accessToken": {
            "displayName": "evalbot-prod",
            "role": "fineGrained",
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


def test_the_hubs_answer_is_read() -> None:
    identity = parse_whoami(REAL_SHAPE)
    assert (identity.name, identity.type, identity.role, identity.orgs) == (
        "Acme-Evalbot",
        "user",
        "fineGrained",
        ("acme",),
    )
    assert identity.permissions_on("org:acme") == ("repo.content.read",)


def test_names_compare_case_insensitively() -> None:
    assert same_hub_name("Evalbot", "evalbot")
    assert not same_hub_name("evalbot", "evalbot-ci")
    assert parse_whoami(REAL_SHAPE).is_named("acme-evalbot")
    assert not parse_whoami(REAL_SHAPE).is_named("acme")
