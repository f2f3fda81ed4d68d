"""Hub-token authentication over a recorded whoami: any token of a user identifies it."""

from __future__ import annotations

import pytest

from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.identity import HubIdentity, parse_whoami
from bot.issuer.hubauth import HubTokenAuthenticator
from bot.issuer.refusals import Refusal

FINE_GRAINED = {
    "type": "user",
    "name": "alice",
    "orgs": [{"name": "acme"}],
    "auth": {
        "type": "access_token",
        "accessToken": {
            "role": "fineGrained",
            "fineGrained": {
                "scoped": [
                    {"entity": {"type": "user", "name": "alice"}, "permissions": ["repo.write"]},
                    {
                        "entity": {"type": "org", "name": "acme"},
                        "permissions": ["repo.content.read"],
                    },
                ]
            },
        },
    },
}


def authenticator(answer: HubIdentity | Exception) -> HubTokenAuthenticator:
    def whoami(token: str) -> HubIdentity:
        if isinstance(answer, Exception):
            raise answer
        return answer

    return HubTokenAuthenticator(whoami)


def test_parse_whoami_reads_global_permissions() -> None:
    answer = {
        **FINE_GRAINED,
        "auth": {
            "accessToken": {
                "role": "fineGrained",
                "fineGrained": {"global": ["discussion.write"], "scoped": []},
            }
        },
    }
    assert parse_whoami(answer).permissions_on("global") == ("discussion.write",)


def test_parse_whoami_reads_role_scopes_and_orgs() -> None:
    found = parse_whoami(FINE_GRAINED)
    assert found.role == "fineGrained"
    assert found.orgs == ("acme",)
    assert found.permissions_on("user:alice") == ("repo.write",)
    assert found.permissions_on("org:acme") == ("repo.content.read",)
    with pytest.raises(ValueError, match="without a name"):
        parse_whoami({"type": "user"})


@pytest.mark.parametrize(
    "found",
    [
        HubIdentity("bob", "user", "read", auth_type="access_token"),
        HubIdentity(
            "bob",
            "user",
            "fineGrained",
            scopes=(("user:bob", ("repo.content.read",)),),
            auth_type="access_token",
        ),
        HubIdentity("bob", "user", "fineGrained", auth_type="access_token"),
        HubIdentity("bob", "user", "write", auth_type="access_token"),
    ],
)
def test_any_token_of_a_user_identifies_it_a_read_token_included(found: HubIdentity) -> None:
    """The issuer needs only whoami: a read-scoped token must do, so no job has to send the
    write token that opens its PR (a read token was refused as `hub-token-scope-missing`)."""
    assert authenticator(found).authenticate("t").subject == "hub:bob"
    assert authenticator(parse_whoami(FINE_GRAINED)).authenticate("t").name == "alice"


@pytest.mark.parametrize(
    ("answer", "reason", "status"),
    [
        (
            HubIdentity("acme", "org", "write", auth_type="access_token"),
            "hub-token-not-a-user",
            403,
        ),
        (HubPermanentError("401", status=401), "hub-token-rejected", 401),
        (HubTransientError("502", status=502), "hub-whoami-failed", 503),
        (ValueError("no name"), "hub-whoami-failed", 503),
    ],
)
def test_refusals(answer: HubIdentity | Exception, reason: str, status: int) -> None:
    with pytest.raises(Refusal) as refusal:
        authenticator(answer).authenticate("t")
    assert (refusal.value.reason, refusal.value.status) == (reason, status)


@pytest.mark.parametrize(
    "auth",
    [
        # what an app's token acting for the user looks like: no `accessToken` of the user's
        {"type": "oauth", "expiresAt": "2026-12-01T00:00:00.000Z"},
        {"type": "app_token_as_user"},
        # an access token's shape, but not said to be one
        {"accessToken": {"role": "read"}},
        {"type": "app_token_as_user", "accessToken": {"role": "read"}},
        # nothing said at all
        {},
    ],
)
def test_a_token_an_app_holds_for_the_user_does_not_identify_it(auth: dict[str, object]) -> None:
    """Every Space or site a user signed in to with "Sign in with HF" holds a token that
    `whoami-v2` answers with the user's name: it must not let that app get verify tokens as
    the user. Only an access token the user created identifies the account."""
    found = parse_whoami({"type": "user", "name": "alice", "auth": auth})
    with pytest.raises(Refusal) as refusal:
        authenticator(found).authenticate("hf_oauth_t")
    assert (refusal.value.reason, refusal.value.status) == ("hub-token-not-an-access-token", 401)


def test_an_oauth_token_is_refused_before_the_hub_is_asked() -> None:
    found = HubIdentity("alice", "user", "read", auth_type="access_token")
    with pytest.raises(Refusal) as refusal:
        authenticator(found).authenticate("hf_oauth_abc")
    assert refusal.value.reason == "hub-token-not-an-access-token"
    assert authenticator(found).authenticate("hf_abc").name == "alice"


@pytest.mark.parametrize(
    "odd",
    [
        {"orgs": 3},
        {"orgs": "acme"},
        {"auth": {"accessToken": {"role": "fineGrained", "fineGrained": {"scoped": 1}}}},
        {"auth": {"accessToken": {"role": "fineGrained", "fineGrained": {"scoped": {"a": 1}}}}},
    ],
)
def test_parse_whoami_reads_odd_shapes_as_nothing_granted(odd: dict[str, object]) -> None:
    """A whoami answer of an unexpected shape grants nothing (an int `orgs` was a TypeError:
    a 500 from the issuer)."""
    found = parse_whoami({"type": "user", "name": "alice", **odd})
    assert found.orgs == ()
    assert found.permissions_on("user:alice") == ()
