"""The web pages' two guards: POSTs from other sites are refused, and operators are known by
a signed cookie.

- CSRF: every POST is refused when the browser's `Sec-Fetch-Site` says it came from another
  site, or its `Origin` names another host than `Host`. The playground changes nothing and the
  operator cookie is `SameSite=Strict`, so that is all the guard these forms need.
- Operators sign in with who they are ("Sign in with Hugging Face", `bot.web.hubsignin`,
  checked against the allow-list of `bot.web.operators`) or, where no OAuth app is set up,
  with a dedicated operator token of at least 32 bytes, compared in constant time
  (`Secret.matches`); never with the webhook secret, which whoever reads the Hub webhook's
  settings knows. `OperatorGate` issues and checks the session cookie
  `<expiry>.<kind>.<user id>.<granted via>.<HMAC-SHA256 under the session key>`, in constant
  time: nothing is stored server-side, rotating the OAuth client secret or the token signs
  everyone out, a session ends by itself after `ADMIN_COOKIE_TTL_S`, and a session granted
  through an allow-list entry ends as soon as that entry is removed.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.requests import Request

from bot.settings import Secret
from bot.web.operators import Operators

ADMIN_COOKIE = "evalbot_admin"
ADMIN_COOKIE_TTL_S = 8 * 3600
#: The shortest operator token accepted (bytes of UTF-8): 256 bits if random.
MIN_ADMIN_TOKEN_BYTES = 32
#: Session kinds: signed in with the Hub (`hub`) or with the operator token (`token`).
HUB, TOKEN = "hub", "token"


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


def session_key(*secrets: Secret | None) -> bytes:
    """The key operator cookies are signed with, derived from every sign-in secret configured
    (the OAuth client secret, the operator token): rotating either signs everyone out."""
    given = [s.reveal().encode("utf-8") for s in secrets if s is not None]
    if not given:  # no sign-in configured: a key no one knows, so no cookie is ever valid
        return os.urandom(32)
    return hashlib.sha256(b"evalbot-web-session\0" + b"\0".join(given)).digest()


@dataclass(frozen=True, slots=True)
class OperatorGate:
    """Who is an operator: the session key, the fallback token (or None) and the allow-list."""

    key: bytes
    token: Secret | None = None
    operators: Operators = field(default_factory=Operators)

    def token_matches(self, presented: bytes) -> bool:
        return self.token is not None and self.token.matches(presented)

    def cookie(self, kind: str, sub: str, via: str, now: float) -> str:
        payload = f"{int(now) + ADMIN_COOKIE_TTL_S}.{kind}.{sub}.{via}"
        return f"{payload}.{self._sign(payload)}"

    def _sign(self, payload: str) -> str:
        return hmac.new(self.key, b"operator:" + payload.encode(), hashlib.sha256).hexdigest()

    def is_operator(self, request: Request, now: float) -> bool:
        payload, _, signature = request.cookies.get(ADMIN_COOKIE, "").rpartition(".")
        if not payload or not hmac.compare_digest(signature, self._sign(payload)):
            return False
        parts = payload.split(".")
        if len(parts) != 4 or not parts[0].isdigit() or int(parts[0]) < now:
            return False
        kind, via = parts[1], parts[3]
        if kind == TOKEN:
            return self.token is not None
        return kind == HUB and self.operators.allows(via)
