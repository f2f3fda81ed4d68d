"""The web pages' guards: cross-site POSTs refused, and operators known by a signed, stateless
session cookie (`OperatorGate`; docs/web.md, "Operators"; docs/security.md, "The web pages")."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from urllib.parse import urlsplit

from starlette.requests import Request

from bot.botconfig.sections import Operators
from bot.logs import log_json
from bot.settings import Secret

audit = logging.getLogger("evalbot.web.audit")

ADMIN_COOKIE = "evalbot_admin"
ADMIN_COOKIE_TTL_S = 8 * 3600
#: Seconds an org member's session trusts the Hub's last "still a member" before asking again:
#: how long an operator removed from the org keeps the operator view at most.
MEMBERSHIP_RECHECK_S = 120
#: Sessions whose last answer is remembered (per process); the oldest are forgotten first and
#: simply ask again.
MEMBERSHIP_SESSIONS_KEPT = 4096
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


class Membership(Enum):
    """The Hub's answer about a session's org: a member, no longer one (or the sign-in's access
    token is refused), or no answer."""

    MEMBER = "member"
    GONE = "gone"
    UNKNOWN = "unknown"


#: Asks the Hub whether the user `sub` is still a member of org `org_id`, with the access
#: token of their sign-in: `(access_token, sub, org_id)`
#: (`bot.web.hubsignin.HubSignIn.membership`).
MembershipCheck = Callable[[str, str, str], Membership]

#: What the status page says when an org member's session is not an operator's right now.
SESSION_ENDED = (
    "Your operator session has ended: the Hub no longer lists you as a member of the org that "
    "let you in. Sign in again if that changes."
)
UNCONFIRMED = (
    "The Hub did not confirm that you are still a member of the org that let you in; the "
    "operator view comes back once it does (reload in a moment)."
)


@dataclass(frozen=True, slots=True)
class Access:
    """One request's operator standing: allowed or not, what to tell the user, and whether
    the session's cookie is to be dropped (the session is over)."""

    allowed: bool
    notice: str | None = None
    ended: bool = False


class MembershipCache:
    """Per session (by its cookie's signature), when the Hub last said "still a member"."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._confirmed: OrderedDict[str, float] = OrderedDict()

    def fresh(self, session: str, now: float) -> bool:
        with self._lock:
            at = self._confirmed.get(session)
            return at is not None and 0 <= now - at < MEMBERSHIP_RECHECK_S

    def confirm(self, session: str, now: float) -> None:
        with self._lock:
            self._confirmed[session] = now
            self._confirmed.move_to_end(session)
            while len(self._confirmed) > MEMBERSHIP_SESSIONS_KEPT:
                self._confirmed.popitem(last=False)

    def forget(self, session: str) -> None:
        with self._lock:
            self._confirmed.pop(session, None)


@dataclass(frozen=True, slots=True)
class OperatorGate:
    """Who is an operator: the session key, the fallback token (or None), the allow-list and
    the Hub's membership check for sessions granted through an org (None: no Hub sign-in)."""

    key: bytes
    token: Secret | None = None
    operators: Operators = field(default_factory=Operators)
    membership: MembershipCheck | None = None
    confirmed: MembershipCache = field(default_factory=MembershipCache)

    def token_matches(self, presented: bytes) -> bool:
        return self.token is not None and self.token.matches(presented)

    def cookie(self, kind: str, sub: str, via: str, now: float, access_token: str = "") -> str:
        """A session cookie; `access_token` (the sign-in's) only for a session granted
        through an org, whose membership is asked again with it."""
        access = _b64(access_token.encode()) if access_token else "-"
        payload = f"{int(now) + ADMIN_COOKIE_TTL_S}.{kind}.{sub}.{via}.{access}"
        return f"{payload}.{self._sign(payload)}"

    def _sign(self, payload: str) -> str:
        return hmac.new(self.key, b"operator:" + payload.encode(), hashlib.sha256).hexdigest()

    def is_operator(self, request: Request, now: float) -> bool:
        return self.access(request, now).allowed

    def access(self, request: Request, now: float) -> Access:
        """The request's operator standing. For a session granted through an org whose last
        confirmation is older than `MEMBERSHIP_RECHECK_S`, this asks the Hub (a blocking call:
        run it off the event loop)."""
        payload, _, signature = request.cookies.get(ADMIN_COOKIE, "").rpartition(".")
        if not payload or not hmac.compare_digest(signature, self._sign(payload)):
            return Access(False)
        parts = payload.split(".")
        if len(parts) != 5 or not parts[0].isdigit() or int(parts[0]) < now:
            return Access(False)
        kind, sub, via, access = parts[1:]
        if kind == TOKEN:
            return Access(self.token is not None)
        if kind != HUB or not self.operators.allows(via):
            return Access(False)
        if via == sub and via in self.operators.users:
            return Access(True)  # listed in person: the list alone decides
        return self._org_member(signature, sub, via, access, now)

    def _org_member(self, session: str, sub: str, org: str, access: str, now: float) -> Access:
        if self.confirmed.fresh(session, now):
            return Access(True)
        token = _unb64(access)
        answer = (
            self.membership(token, sub, org)
            if self.membership is not None and token
            else Membership.GONE
        )
        if answer is Membership.MEMBER:
            self.confirmed.confirm(session, now)
            return Access(True)
        self.confirmed.forget(session)
        if answer is Membership.UNKNOWN:
            log_json(audit, logging.WARNING, "operator unconfirmed", user=sub, via=org)
            return Access(False, UNCONFIRMED)
        log_json(audit, logging.INFO, "operator session ended", user=sub, via=org)
        return Access(False, SESSION_ENDED, ended=True)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> str:
    """The access token of a cookie's `<access>` field ("" for `-` or anything unreadable)."""
    if text == "-":
        return ""
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
    except (binascii.Error, ValueError):
        return ""
