"""The CSRF refusal and the operator cookie, on plain requests."""

from __future__ import annotations

from starlette.requests import Request

from bot.settings import Secret
from bot.web.guards import ADMIN_COOKIE, ADMIN_COOKIE_TTL_S, admin_cookie, cross_site, is_admin

TOKEN = Secret("operator-token-0123456789")


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
    cookie = admin_cookie(TOKEN, now)
    assert is_admin(cookie_request(cookie), TOKEN, now)
    assert not is_admin(cookie_request(cookie), TOKEN, now + ADMIN_COOKIE_TTL_S + 1)
    assert not is_admin(cookie_request(cookie), Secret("another-token-0123456789"), now)
    expires, _, signature = cookie.partition(".")
    later = str(int(expires) + 3600)
    assert not is_admin(cookie_request(f"{later}.{signature}"), TOKEN, now)
    assert not is_admin(cookie_request("9" * 5000 + ".x"), TOKEN, now)  # no int() blow-up
    assert not is_admin(request(), TOKEN, now)
