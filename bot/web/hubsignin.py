""" "Sign in with Hugging Face" for operators: authlib's OpenID Connect code flow with PKCE, plus
our checks and the allow-list by Hub ids (docs/web.md, "Operators")."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import anyio.from_thread
import httpx2
from authlib.integrations.base_client.errors import MismatchingStateError
from authlib.integrations.starlette_client import OAuth, OAuthError
from joserfc.errors import JoseError
from starlette.requests import Request

from bot.botconfig.sections import Operators
from bot.settings import Secret, SettingsError
from bot.web.guards import Membership

CALLBACK_PATH = "/login/callback"
#: The signed cookie (Starlette's session) that carries a sign-in's state, nonce and PKCE
#: verifier from `/login` to its callback.
STATE_COOKIE = "evalbot_signin"
STATE_TTL_S = 600
ID_TOKEN_ALGORITHMS = ["RS256"]
LEEWAY_S = 30
HTTP_TIMEOUT_S = 10.0
#: The membership re-check runs while a page is answered: a shorter wait, then "unconfirmed".
RECHECK_TIMEOUT_S = 5.0
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_ENDPOINTS = ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri")
#: What authlib's and the provider's answers raise, beside `SignInFailed`.
PROVIDER_ERRORS = (OAuthError, JoseError, httpx2.HTTPError, ValueError, TypeError, KeyError)


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


def _requirements_pending(org: Mapping[str, Any]) -> bool:
    """Whether the Hub lists the member as not having completed one of the org's security
    requirements (SSO, MFA, allowed IPs, token policy): `securityRestrictions`, `pendingSSO`,
    `missingMFA` in the org's userinfo entry. The org would refuse them its resources."""
    return bool(org.get("securityRestrictions") or org.get("pendingSSO") or org.get("missingMFA"))


def _orgs(info: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    orgs = info.get("orgs")
    return [org for org in orgs if isinstance(org, dict)] if isinstance(orgs, list) else []


class HubSignIn:
    """The flow's two steps over authlib's client; the sign-in's state lives in the visitor's
    own signed session cookie (`session_secret`), never in this process."""

    def __init__(self, config: SignInConfig, operators: Operators, session_key: bytes) -> None:
        self.config = config
        self._operators = operators
        #: The state cookie's signing key, derived from the operator cookie's.
        self.session_secret = hashlib.sha256(b"evalbot-signin-state\0" + session_key).hexdigest()
        self._hub = OAuth().register(
            "hub",
            client_id=config.client_id,
            client_secret=config.client_secret.reveal(),
            server_metadata_url=f"{config.provider_url}/.well-known/openid-configuration",
            client_kwargs={
                "scope": config.scopes,
                "code_challenge_method": "S256",
                "token_endpoint_auth_method": "client_secret_basic",
                "timeout": HTTP_TIMEOUT_S,
            },
        )

    async def start(self, request: Request) -> str:
        """The authorization URL to send the browser to; its state, nonce and PKCE verifier
        go into the request's session."""
        await self._provider()
        found = await self._hub.create_authorization_url(
            self.config.redirect_uri,
            state=secrets.token_urlsafe(32),
            nonce=secrets.token_urlsafe(32),
        )
        await self._hub.save_authorize_data(request, redirect_uri=self.config.redirect_uri, **found)
        return str(found["url"])

    async def finish(self, request: Request) -> SignedIn:
        """The callback: state checked against the session's, the code exchanged with the
        verifier, the ID token verified, userinfo read, the allow-list applied; the session's
        sign-in is spent whatever the outcome. `SignInFailed` on any problem."""
        try:
            metadata = await self._provider()
            token = await self._hub.authorize_access_token(
                request,
                leeway=LEEWAY_S,
                claims_options={
                    "iss": {"essential": True, "value": metadata["issuer"]},
                    "aud": {"essential": True, "value": self.config.client_id},
                    "sub": {"essential": True},
                    "nonce": {"essential": True},
                },
            )
            claims = token.get("userinfo")  # the verified ID token's claims
            if not claims:
                raise SignInFailed("the token endpoint gave no ID token")
            access = token.get("access_token")
            if not isinstance(access, str) or not access:
                raise SignInFailed("the token endpoint gave no access token")
            info = await self._hub.userinfo(token=token)
        except MismatchingStateError as error:
            raise SignInFailed("no sign-in of this browser has that state") from error
        except OAuthError as error:
            raise SignInFailed(f"the provider refused it: {error.error}") from error
        except JoseError as error:
            raise SignInFailed(f"ID token refused: {type(error).__name__}") from error
        finally:
            request.session.clear()
        return self._allowed(claims["sub"], info, access)

    def _allowed(self, sub: object, info: Mapping[str, Any], access: str) -> SignedIn:
        if not isinstance(sub, str) or not sub:
            raise SignInFailed("the ID token names no subject")
        if info.get("sub") != sub:
            raise SignInFailed("userinfo names another subject than the ID token")
        name = str(info.get("preferred_username") or "?")[:100]
        if sub in self._operators.users:
            return SignedIn(sub, name, sub)
        pending = False
        for org in _orgs(info):
            if org.get("sub") not in self._operators.orgs:
                continue
            if _requirements_pending(org):
                pending = True  # the org would not let them in yet: neither do the pages
                continue
            return SignedIn(sub, name, str(org["sub"]), access)
        if pending:
            raise SignInFailed(
                f"a listed org's SSO, MFA or other requirement is pending: {sub} ({name})"
            )
        raise SignInFailed(f"not on the operators' allow-list: {sub} ({name})")

    def membership(self, access_token: str, sub: str, org_id: str) -> Membership:
        """Whether userinfo, read with the sign-in's `access_token`, still names `sub` a member
        of `org_id` with its requirements met. A refused token (401: expired, or the user
        revoked the app) is `GONE`; any other failure, `UNKNOWN` (never "still a member").
        Called from a worker thread of the event loop (a page's thread)."""
        try:
            info = anyio.from_thread.run(self._userinfo, access_token)
        except httpx2.HTTPStatusError as error:
            return Membership.GONE if error.response.status_code == 401 else Membership.UNKNOWN
        except (SignInFailed, *PROVIDER_ERRORS):
            return Membership.UNKNOWN
        if info.get("sub") != sub:
            return Membership.GONE
        for org in _orgs(info):
            if org.get("sub") == org_id:
                return Membership.GONE if _requirements_pending(org) else Membership.MEMBER
        return Membership.GONE

    async def _userinfo(self, access_token: str) -> Mapping[str, Any]:
        await self._provider()
        token = {"access_token": access_token, "token_type": "bearer"}
        info: Mapping[str, Any] = await self._hub.userinfo(token=token, timeout=RECHECK_TIMEOUT_S)
        return info

    async def _provider(self) -> dict[str, Any]:
        """The provider's discovery document (authlib reads it once); its `issuer` must be the
        configured provider URL (OpenID Connect Discovery 4.3), its endpoints as secure, and
        its ID tokens signed with RS256, which is then the only algorithm accepted."""
        try:
            metadata: dict[str, Any] = await self._hub.load_server_metadata()
        except PROVIDER_ERRORS as error:
            raise SignInFailed(f"discovery failed: {type(error).__name__}") from error
        problem = _metadata_problem(metadata, self.config.provider_url)
        if problem:
            metadata.clear()  # asked again at the next sign-in
            raise SignInFailed(problem)
        metadata["id_token_signing_alg_values_supported"] = ID_TOKEN_ALGORITHMS
        return metadata


def _metadata_problem(metadata: Mapping[str, Any], provider_url: str) -> str | None:
    if str(metadata.get("issuer", "")).rstrip("/") != provider_url:
        return "the provider's discovery names another issuer"
    if not all(isinstance(metadata.get(n), str) and _secure_url(metadata[n]) for n in _ENDPOINTS):
        return "the provider's discovery lacks a secure endpoint"
    algorithms = metadata.get("id_token_signing_alg_values_supported", ID_TOKEN_ALGORITHMS)
    if not (isinstance(algorithms, list) and set(ID_TOKEN_ALGORITHMS) <= set(algorithms)):
        return "the provider does not sign ID tokens with RS256"
    return None
