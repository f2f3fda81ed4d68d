"""The CSRF refusal and the operator cookie, on plain requests."""

from __future__ import annotations

from starlette.requests import Request

from bot.settings import Secret
from bot.web.guards import (
    ADMIN_COOKIE,
    ADMIN_COOKIE_TTL_S,
    HUB,
    TOKEN,
    OperatorGate,
    cross_site,
    session_key,
)
from bot.web.operators import Operators

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


def test_a_hub_session_ends_when_its_allow_list_entry_is_removed() -> None:
    now = 1_800_000_000.0
    key = session_key(Secret("oauth-client-secret"))
    listed = OperatorGate(key, None, Operators(users={ALICE: "alice"}, orgs={ORG: "acme"}))
    by_org = listed.cookie(HUB, "6560b0f7e0d5d2c4a1b2c3d6", ORG, now)
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
