"""The web pages' two guards: POSTs from other sites are refused, and operators are known by
a signed cookie.

- CSRF: every POST is refused when the browser's `Sec-Fetch-Site` says it came from another
  site, or its `Origin` names another host than `Host`. The playground changes nothing and the
  operator cookie is `SameSite=Strict`, so that is all the guard these forms need.
- Operators sign in with a token compared in constant time (`Secret.matches`); the cookie is
  `<expiry>.<HMAC-SHA256 of the expiry under the token>`, checked in constant time: nothing
  is stored server-side, rotating the token signs everyone out, and it expires by itself.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlsplit

from starlette.requests import Request

from bot.settings import Secret

ADMIN_COOKIE = "evalbot_admin"
ADMIN_COOKIE_TTL_S = 8 * 3600


REFUSED = "This form only accepts posts from its own page."


def cross_site(request: Request) -> str | None:
    """Why a POST is refused as coming from another site, or None.

    A browser's `Sec-Fetch-Site` (no page can set it) decides when present; else `Origin` must
    name this host (`null`, sent from sandboxed frames, is refused). A request with neither is
    no browser's cross-site form post (curl, a script): it carries no one's cookie either."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return None if fetch_site in ("same-origin", "none") else REFUSED
    origin = request.headers.get("origin")
    if origin is None:
        return None
    host = request.headers.get("host", "")
    if origin == "null" or urlsplit(origin).netloc.lower() != host.lower():
        return REFUSED
    return None


def admin_cookie(token: Secret, now: float) -> str:
    expires = int(now) + ADMIN_COOKIE_TTL_S
    return f"{expires}.{_sign(token, expires)}"


def _sign(token: Secret, expires: int) -> str:
    key = token.reveal().encode("utf-8")
    return hmac.new(key, f"evalbot-web-admin:{expires}".encode(), hashlib.sha256).hexdigest()


def is_admin(request: Request, token: Secret, now: float) -> bool:
    cookie = request.cookies.get(ADMIN_COOKIE, "")
    expires, _, signature = cookie.partition(".")
    if not (expires.isdigit() and len(expires) <= 12) or int(expires) < now:
        return False
    return hmac.compare_digest(signature, _sign(token, int(expires)))
