""" "Sign in with Hugging Face" for operators: the OpenID Connect code flow with PKCE, against the
Hub (a Space's built-in OAuth app, `hf_oauth: true`) or an OAuth app the operator made.

The flow, and what each step guards against:

1. `/login` makes a fresh `state`, `nonce` and PKCE verifier (32 random bytes each), keeps them
   in a short-lived cookie signed with the session key (HttpOnly, `SameSite=Lax`: it must come
   back on the Hub's top-level redirect, and only there: its path is `/login`), and sends the
   browser to the Hub's authorization endpoint with the S256 challenge.
2. `/login/callback` accepts the Hub's answer only with that cookie: `state` equal to the
   cookie's (constant time), so a code an attacker obtained for *their* account cannot be
   planted in an operator's browser (login CSRF); the cookie is spent at once.
3. The code is exchanged at the token endpoint with the verifier and the client's secret
   (HTTP Basic), so an intercepted code is worthless to anyone else (RFC 7636).
4. The ID token is verified: RS256 only (the algorithm pinned, never read from the token),
   the key from the provider's JWKS, `iss` the provider, `aud` our client id, `exp`/`iat`
   within 30 s, and `nonce` equal to the cookie's, so no token minted for another sign-in is
   accepted. Its `sub` (the user's immutable id) is who signed in.
5. userinfo, read with the access token, must name the same `sub` (OpenID Connect Core
   5.3.2); its `orgs` (each with its own `sub`) decide org membership, never for an org whose
   SSO, MFA or other security requirement the member has not completed (the Hub lists it as
   pending: the org itself would not let them in yet). The access token (scopes `openid
   profile`: it reads who the user is and their orgs, nothing else) is kept only for a
   session granted through an org, inside the user's own operator cookie, so the pages can ask
   userinfo again whether they are still a member (`membership`, `bot.web.guards`).

The allow-list (`bot.web.operators`) then decides; every refusal reads the same to the
browser ("Sign-in failed") and the reason goes to the audit log with the user's id and name,
never the code, a token or the query. Every call to the provider has a timeout.

Configuration (read once at start, `SignInConfig.from_env`): `OAUTH_CLIENT_ID`,
`OAUTH_CLIENT_SECRET`, `OPENID_PROVIDER_URL` and `OAUTH_SCOPES`, as a Space sets them; the
pages' public address from `EVALBOT_WEB_PUBLIC_URL`, else `https://$SPACE_HOST`; the
redirect URI is that address + `/login/callback`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx2
import jwt

from bot.settings import Secret, SettingsError
from bot.web.guards import Membership
from bot.web.operators import Operators

audit = logging.getLogger("evalbot.web.audit")

CALLBACK_PATH = "/login/callback"
STATE_COOKIE = "evalbot_signin"
STATE_TTL_S = 600
ID_TOKEN_ALGORITHMS = ["RS256"]
LEEWAY_S = 30
HTTP_TIMEOUT_S = 10.0
#: The membership re-check runs while a page is answered: a shorter wait, then "unconfirmed".
RECHECK_TIMEOUT_S = 5.0
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True, slots=True)
class SignInConfig:
    client_id: str
    client_secret: Secret
    provider_url: str
    scopes: str
    redirect_uri: str

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> SignInConfig | None:
        """The OAuth app's settings, or None when `OAUTH_CLIENT_ID` is not set; a partial or
        insecure configuration raises `SettingsError` naming every problem."""
        client_id = environ.get("OAUTH_CLIENT_ID", "").strip()
        if not client_id:
            return None
        problems = []
        secret = environ.get("OAUTH_CLIENT_SECRET", "").strip()
        if not secret:
            problems.append("OAUTH_CLIENT_SECRET must be set with OAUTH_CLIENT_ID")
        provider = environ.get("OPENID_PROVIDER_URL", "").strip().rstrip("/")
        if not _secure_url(provider):
            problems.append(
                "OPENID_PROVIDER_URL must be an https URL (http only on loopback), "
                f"got {provider!r}"
            )
        scopes = environ.get("OAUTH_SCOPES", "").strip() or "openid profile"
        if "openid" not in scopes.split():
            problems.append(f"OAUTH_SCOPES must include openid, got {scopes!r}")
        public = environ.get("EVALBOT_WEB_PUBLIC_URL", "").strip().rstrip("/")
        space_host = environ.get("SPACE_HOST", "").strip()
        if not public and space_host:
            public = f"https://{space_host}"
        if not _secure_url(public):
            problems.append(
                "EVALBOT_WEB_PUBLIC_URL (the pages' public address, for the OAuth redirect) "
                f"must be an https URL (http only on loopback), got {public!r}"
            )
        if problems:
            raise SettingsError("invalid settings:\n  - " + "\n  - ".join(problems))
        return cls(client_id, Secret(secret), provider, scopes, public + CALLBACK_PATH)


def _secure_url(url: str) -> bool:
    parts = urlsplit(url)
    if not parts.netloc or parts.query or parts.fragment:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOOPBACK)


@dataclass(frozen=True, slots=True)
class SignedIn:
    """Who signed in (the user's Hub id and name), the allow-list entry that let them, and,
    when that entry is an org, the access token its membership is asked again with."""

    sub: str
    name: str
    via: str
    access_token: str = field(default="", repr=False)


class SignInFailed(Exception):
    """Refused; the reason is for the audit log, never for the browser."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _requirements_pending(org: Mapping[str, Any]) -> bool:
    """Whether the Hub lists the member as not having completed one of the org's security
    requirements (SSO, MFA, allowed IPs, token policy): `securityRestrictions`, `pendingSSO`,
    `missingMFA` in the org's userinfo entry. The org would refuse them its resources."""
    return bool(org.get("securityRestrictions") or org.get("pendingSSO") or org.get("missingMFA"))


class HubSignIn:
    """The flow's two steps; `session_key` signs the state cookie (and the operator cookie)."""

    def __init__(self, config: SignInConfig, operators: Operators, session_key: bytes) -> None:
        self.config = config
        self._operators = operators
        self._key = session_key
        self._metadata: dict[str, Any] | None = None

    # -- step 1 ------------------------------------------------------------------------------

    def start(self, now: float) -> tuple[str, str]:
        """The authorization URL to send the browser to, and the state cookie's value."""
        metadata = self._provider()
        state, nonce, verifier = (_b64(secrets.token_bytes(32)) for _ in range(3))
        challenge = _b64(hashlib.sha256(verifier.encode()).digest())
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.config.client_id,
                "redirect_uri": self.config.redirect_uri,
                "scope": self.config.scopes,
                "state": state,
                "nonce": nonce,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            }
        )
        payload = f"{int(now) + STATE_TTL_S}.{state}.{nonce}.{verifier}"
        return f"{metadata['authorization_endpoint']}?{query}", f"{payload}.{self._sign(payload)}"

    def _sign(self, payload: str) -> str:
        return hmac.new(self._key, b"signin:" + payload.encode(), hashlib.sha256).hexdigest()

    # -- step 2 ------------------------------------------------------------------------------

    def finish(self, query: Mapping[str, str], cookie: str, now: float) -> SignedIn:
        """Check the Hub's answer against the state cookie, exchange the code, verify the ID
        token and userinfo, apply the allow-list. `SignInFailed` on any problem."""
        payload, _, signature = cookie.rpartition(".")
        if not payload or not hmac.compare_digest(signature, self._sign(payload)):
            raise SignInFailed("no valid sign-in cookie (expired, another browser, or forged)")
        parts = payload.split(".")
        if len(parts) != 4:
            raise SignInFailed("the sign-in cookie is not one this process made")
        expires, state, nonce, verifier = parts
        if not expires.isdigit() or int(expires) < now:
            raise SignInFailed("the sign-in took longer than its cookie lives")
        if not hmac.compare_digest(query.get("state", "").encode(), state.encode()):
            raise SignInFailed("state does not match this browser's sign-in")
        if "error" in query:
            raise SignInFailed("the provider answered with an error (the user declined?)")
        code = query.get("code", "")
        if not code:
            raise SignInFailed("no code in the provider's answer")
        metadata = self._provider()
        with httpx2.Client(timeout=HTTP_TIMEOUT_S, follow_redirects=False) as client:
            tokens = self._json(
                client.post(
                    metadata["token_endpoint"],
                    data={
                        "grant_type": "authorization_code",
                        "code": code,
                        "redirect_uri": self.config.redirect_uri,
                        "code_verifier": verifier,
                    },
                    auth=(self.config.client_id, self.config.client_secret.reveal()),
                ),
                "token endpoint",
            )
            claims = self._id_claims(client, metadata, tokens.get("id_token"), nonce)
            access = tokens.get("access_token")
            if not isinstance(access, str) or not access:
                raise SignInFailed("the token endpoint gave no access token")
            info = self._json(
                client.get(
                    metadata["userinfo_endpoint"], headers={"Authorization": f"Bearer {access}"}
                ),
                "userinfo",
            )
        sub = claims["sub"]
        if info.get("sub") != sub:
            raise SignInFailed("userinfo names another subject than the ID token")
        name = str(info.get("preferred_username") or claims.get("preferred_username") or "?")
        if sub in self._operators.users:
            return SignedIn(sub, name[:100], sub)
        orgs = info.get("orgs")
        pending = False
        for org in orgs if isinstance(orgs, list) else []:
            if not (isinstance(org, dict) and org.get("sub") in self._operators.orgs):
                continue
            if _requirements_pending(org):
                pending = True  # the org would not let them in yet: neither do the pages
                continue
            return SignedIn(sub, name[:100], str(org["sub"]), access)
        if pending:
            raise SignInFailed(
                f"a listed org's SSO, MFA or other requirement is pending: {sub} ({name[:100]})"
            )
        raise SignInFailed(f"not on the operators' allow-list: {sub} ({name[:100]})")

    def membership(self, access_token: str, sub: str, org_id: str) -> Membership:
        """Whether userinfo, read with the sign-in's `access_token`, still names `sub` a member
        of `org_id` with its requirements met. A refused token (401: expired, or the user
        revoked the app) is `GONE`; any other failure, `UNKNOWN` (never "still a member")."""
        try:
            metadata = self._provider()
            with httpx2.Client(timeout=RECHECK_TIMEOUT_S, follow_redirects=False) as client:
                answer = client.get(
                    metadata["userinfo_endpoint"],
                    headers={"Authorization": f"Bearer {access_token}"},
                )
            if answer.status_code == 401:
                return Membership.GONE
            info = self._json(answer, "userinfo")
        except (SignInFailed, httpx2.HTTPError):
            return Membership.UNKNOWN
        if info.get("sub") != sub:
            return Membership.GONE
        orgs = info.get("orgs")
        for org in orgs if isinstance(orgs, list) else []:
            if isinstance(org, dict) and org.get("sub") == org_id:
                return Membership.GONE if _requirements_pending(org) else Membership.MEMBER
        return Membership.GONE

    def _id_claims(
        self, client: httpx2.Client, metadata: dict[str, Any], id_token: object, nonce: str
    ) -> dict[str, Any]:
        if not isinstance(id_token, str):
            raise SignInFailed("the token endpoint gave no ID token")
        keys = self._json(client.get(metadata["jwks_uri"]), "jwks")
        try:
            kid = jwt.get_unverified_header(id_token).get("kid")
            jwk_set = jwt.PyJWKSet.from_dict(keys)
            key = next((k for k in jwk_set.keys if k.key_id == kid), None)
            if key is None:
                raise SignInFailed("the ID token's key is not in the provider's JWKS")
            claims: dict[str, Any] = jwt.decode(
                id_token,
                key.key,
                algorithms=ID_TOKEN_ALGORITHMS,
                audience=self.config.client_id,
                issuer=metadata["issuer"],
                leeway=LEEWAY_S,
                options={
                    "require": ["iss", "aud", "sub", "exp", "iat", "nonce"],
                    "strict_aud": True,
                },
            )
        except jwt.PyJWTError as error:
            raise SignInFailed(f"ID token refused: {type(error).__name__}") from error
        if not hmac.compare_digest(str(claims["nonce"]).encode(), nonce.encode()):
            raise SignInFailed("the ID token's nonce is not this sign-in's")
        if not isinstance(claims["sub"], str) or not claims["sub"]:
            raise SignInFailed("the ID token names no subject")
        return claims

    def _provider(self) -> dict[str, Any]:
        """The provider's discovery document, read once; its `issuer` must be the configured
        provider URL (OpenID Connect Discovery 4.3) and its endpoints as secure."""
        if self._metadata is None:
            url = f"{self.config.provider_url}/.well-known/openid-configuration"
            with httpx2.Client(timeout=HTTP_TIMEOUT_S, follow_redirects=False) as client:
                metadata = self._json(client.get(url), "discovery")
            names = ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri")
            if str(metadata.get("issuer", "")).rstrip("/") != self.config.provider_url:
                raise SignInFailed("the provider's discovery names another issuer")
            if not all(
                isinstance(metadata.get(n), str) and _secure_url(metadata[n]) for n in names
            ):
                raise SignInFailed("the provider's discovery lacks a secure endpoint")
            self._metadata = metadata
        return self._metadata

    @staticmethod
    def _json(answer: httpx2.Response, what: str) -> dict[str, Any]:
        if answer.status_code != 200:
            raise SignInFailed(f"{what} answered {answer.status_code}")
        try:
            body = answer.json()
        except ValueError as error:
            raise SignInFailed(f"{what} answered no JSON") from error
        if not isinstance(body, dict):
            raise SignInFailed(f"{what} answered no JSON object")
        return body
