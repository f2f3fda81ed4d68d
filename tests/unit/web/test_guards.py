"""The CSRF refusal and the operator cookie, on plain requests."""

from __future__ import annotations

from starlette.requests import Request

from bot.botconfig.sections import Operators
from bot.settings import Secret
from bot.web.guards import (
    ADMIN_COOKIE,
    ADMIN_COOKIE_TTL_S,
    HUB,
    MEMBERSHIP_RECHECK_S,
    SESSION_ENDED,
    TOKEN,
    UNCONFIRMED,
    Membership,
    OperatorGate,
    cross_site,
    session_key,
)

OPERATOR_TOKEN = Secret("operator-token-0123456789-0123456789")
ALICE, ORG = "6560b0f7e0d5d2c4a1b2c3d4", "6560b0f7e0d5d2c4a1b2c3d5"


def request(**headers: str) -> Request:
    raw = [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]
    return Request({"type": "http", "method": "POST", "path": "/", "headers": raw})


def test_cross_site_posts_are_refused_and_same_origin_ones_pass() -> None:
    assert cross_site(request(host="bot.example", sec_fetch_site="same-origin")) is None
    assert cross_site(request(host="bot.example", sec_fetch_site="none")) is None
    assert cross_site(request(host="bot.example", sec_fetch_site="cross-site")) is not None
    assert cross_site(request(host="bot.example", sec_fetch_site="same-site")) is not None
    assert cross_site(request(host="bot.example", origin="https://bot.example")) is None
    assert cross_site(request(host="bot.example", origin="https://evil.example")) is not None
    assert cross_site(request(host="bot.example", origin="null")) is not None
    assert cross_site(request(host="bot.example")) is None  # no browser: no ambient cookie


def cookie_request(value: str) -> Request:
    return request(cookie=f"{ADMIN_COOKIE}={value}")


def test_the_operator_cookie_is_signed_and_expires() -> None:
    now = 1_800_000_000.0
    gate = OperatorGate(session_key(OPERATOR_TOKEN), OPERATOR_TOKEN)
    cookie = gate.cookie(TOKEN, "-", "-", now)
    assert gate.is_operator(cookie_request(cookie), now)
    assert not gate.is_operator(cookie_request(cookie), now + ADMIN_COOKIE_TTL_S + 1)
    rotated = Secret("another-token-0123456789-0123456789")
    assert not OperatorGate(session_key(rotated), rotated).is_operator(cookie_request(cookie), now)
    expires, _, rest = cookie.partition(".")
    later = str(int(expires) + 3600)
    assert not gate.is_operator(cookie_request(f"{later}.{rest}"), now)
    assert not gate.is_operator(cookie_request("9" * 5000 + ".x"), now)  # no int() blow-up
    assert not gate.is_operator(request(), now)


class HubAnswers:
    """The Hub's membership answers, in order, and the calls made for them."""

    def __init__(self, *answers: Membership) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, str, str]] = []

    def __call__(self, access_token: str, sub: str, org: str) -> Membership:
        self.calls.append((access_token, sub, org))
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def test_a_hub_session_ends_when_its_allow_list_entry_is_removed() -> None:
    now = 1_800_000_000.0
    key = session_key(Secret("oauth-client-secret"))
    everyone = Operators(users={ALICE: "alice"}, orgs={ORG: "acme"})
    listed = OperatorGate(key, None, everyone, HubAnswers(Membership.MEMBER))
    by_org = listed.cookie(HUB, "6560b0f7e0d5d2c4a1b2c3d6", ORG, now, "hf_oauth_x")
    by_user = listed.cookie(HUB, ALICE, ALICE, now)
    assert listed.is_operator(cookie_request(by_org), now)
    assert listed.is_operator(cookie_request(by_user), now)
    delisted = OperatorGate(key, None, Operators(users={ALICE: "alice"}))
    assert not delisted.is_operator(cookie_request(by_org), now)
    assert delisted.is_operator(cookie_request(by_user), now)
    # a token session needs a configured token
    token_cookie = listed.cookie(TOKEN, "-", "-", now)
    assert not listed.is_operator(cookie_request(token_cookie), now)


def test_without_any_sign_in_configured_no_cookie_is_valid() -> None:
    """No secret to derive the key from: a random one, so no one can mint a session."""
    assert session_key() != session_key()
    assert session_key(OPERATOR_TOKEN) == session_key(OPERATOR_TOKEN)


MEMBER = "6560b0f7e0d5d2c4a1b2c3d6"


def org_gate(hub: HubAnswers) -> OperatorGate:
    key = session_key(Secret("oauth-client-secret"))
    return OperatorGate(key, None, Operators(orgs={ORG: "acme"}), hub)


def test_an_org_session_asks_the_hub_again_once_its_answer_is_older_than_the_recheck() -> None:
    now = 1_800_000_000.0
    hub = HubAnswers(Membership.MEMBER, Membership.MEMBER, Membership.GONE)
    gate = org_gate(hub)
    cookie = cookie_request(gate.cookie(HUB, MEMBER, ORG, now, "hf_oauth_carol"))
    assert gate.access(cookie, now).allowed
    assert gate.access(cookie, now + MEMBERSHIP_RECHECK_S - 1).allowed
    assert hub.calls == [("hf_oauth_carol", MEMBER, ORG)]  # one Hub read within the window
    assert gate.access(cookie, now + MEMBERSHIP_RECHECK_S).allowed
    gone = gate.access(cookie, now + 2 * MEMBERSHIP_RECHECK_S)
    assert (gone.allowed, gone.notice, gone.ended) == (False, SESSION_ENDED, True)
    assert len(hub.calls) == 3


def test_the_cache_is_per_session() -> None:
    """Another session of the same user and org (another sign-in) asks the Hub for itself."""
    now = 1_800_000_000.0
    hub = HubAnswers(Membership.MEMBER, Membership.GONE)
    gate = org_gate(hub)
    first = cookie_request(gate.cookie(HUB, MEMBER, ORG, now, "hf_oauth_first"))
    second = cookie_request(gate.cookie(HUB, MEMBER, ORG, now + 1, "hf_oauth_second"))
    assert gate.access(first, now).allowed
    assert not gate.access(second, now + 1).allowed
    assert gate.access(first, now + 2).allowed  # its own answer is still fresh


def test_an_unanswered_recheck_withholds_the_view_without_ending_the_session() -> None:
    now = 1_800_000_000.0
    hub = HubAnswers(Membership.MEMBER, Membership.UNKNOWN, Membership.MEMBER)
    gate = org_gate(hub)
    cookie = cookie_request(gate.cookie(HUB, MEMBER, ORG, now, "hf_oauth_carol"))
    assert gate.access(cookie, now).allowed
    later = now + MEMBERSHIP_RECHECK_S
    unconfirmed = gate.access(cookie, later)
    assert (unconfirmed.allowed, unconfirmed.notice, unconfirmed.ended) == (
        False,
        UNCONFIRMED,
        False,
    )
    assert gate.access(cookie, later + 1).allowed  # the Hub answers again: back, and kept
    assert gate.access(cookie, later + 2).allowed
    assert len(hub.calls) == 3


def test_an_org_session_without_an_access_token_is_no_operators() -> None:
    now = 1_800_000_000.0
    hub = HubAnswers(Membership.MEMBER)
    gate = org_gate(hub)
    assert not gate.access(cookie_request(gate.cookie(HUB, MEMBER, ORG, now)), now).allowed
    no_check = OperatorGate(gate.key, None, gate.operators)
    cookie = no_check.cookie(HUB, MEMBER, ORG, now, "hf_oauth_carol")
    assert not no_check.access(cookie_request(cookie), now).allowed
    assert hub.calls == []
