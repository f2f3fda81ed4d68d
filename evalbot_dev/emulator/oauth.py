"""The Hub as an OpenID Connect provider ("Sign in with Hugging Face"), for the web pages' tests.

What a Space with `hf_oauth: true` talks to, as the Hub answers it: the discovery document at
`/.well-known/openid-configuration`, the authorization endpoint (`/oauth/authorize`: the
browser is sent there and back with a one-time code), the token endpoint (`/oauth/token`: the
code and the PKCE verifier, with the client's id and secret by HTTP Basic or in the form,
give an access token and an RS256-signed ID token carrying the nonce) and userinfo
(`/oauth/userinfo`: `sub`, `preferred_username`, `name`, `picture`, `profile`, `isPro` and
`orgs`, each org with its own `sub`).

On the Hub a browser is signed in by its session cookie and asked to consent; here the
browser says who it is with one of the emulated users' tokens (`Authorization: Bearer`) and
consent is given at once. Codes are single-use, live 60 s, and are bound to the client, the
redirect URI and the PKCE challenge (S256 only), as the Hub's are; an unknown client or a
redirect URI not registered for it is refused without redirecting.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from evalbot_dev.emulator import publishers
from evalbot_dev.emulator.errors import HubError

if TYPE_CHECKING:
    from evalbot_dev.emulator.app import Emulator

CODE_TTL_S = 60
ACCESS_TOKEN_TTL_S = 8 * 3600
KEY_ID = "emulator-oauth-1"


@dataclass(frozen=True)
class OAuthApp:
    client_id: str
    client_secret: str
    redirect_uris: frozenset[str]
    scopes: frozenset[str]


@dataclass(frozen=True)
class _Grant:
    client_id: str
    redirect_uri: str
    user: str
    scope: str
    nonce: str | None
    challenge: str
    expires: float


class OAuthProvider:
    """OAuth apps, outstanding codes and access tokens of one emulated Hub."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._apps: dict[str, OAuthApp] = {}
        self._codes: dict[str, _Grant] = {}
        self._access: dict[str, tuple[str, float]] = {}
        self._signing_key: rsa.RSAPrivateKey | None = None
        #: Codes presented to the token endpoint, in order (a test checks single use).
        self.exchanges: list[str] = []
        #: Claims a test puts into (or over) every ID token, as a misbehaving or hostile
        #: provider would: another `nonce`, `aud`, `iss`, `sub`.
        self.id_token_overrides: dict[str, Any] = {}
        #: Seconds the token endpoint waits before it answers (a slow Hub).
        self.token_delay_s = 0.0
        #: Seconds the discovery document waits before it answers (a slow Hub).
        self.discovery_delay_s = 0.0
        #: A status userinfo answers instead of the user's details (a failing Hub); None: none.
        self.userinfo_failure_status: int | None = None
        #: Per user name, the org security requirements they have not completed ("sso",
        #: "mfa", "ip", "token-policy"): userinfo lists them on each of their orgs as the Hub
        #: does (`securityRestrictions`, with `pendingSSO` and `missingMFA`).
        self.security_restrictions: dict[str, list[str]] = {}

    def register_app(
        self,
        redirect_uris: list[str],
        *,
        scopes: tuple[str, ...] = ("openid", "profile"),
        client_id: str | None = None,
        client_secret: str | None = None,
    ) -> OAuthApp:
        """An OAuth app, as a Space's `hf_oauth: true` or an operator's app settings make one."""
        return self.add(
            OAuthApp(
                client_id or secrets.token_hex(16),
                client_secret or secrets.token_urlsafe(32),
                frozenset(redirect_uris),
                frozenset(scopes),
            )
        )

    def add(self, app: OAuthApp) -> OAuthApp:
        """Register `app` as given (a state file's `oauth_apps` entry)."""
        with self._lock:
            self._apps[app.client_id] = app
        return app

    @property
    def key(self) -> rsa.RSAPrivateKey:
        """The ID tokens' signing key, made on first use (most emulators never sign one)."""
        with self._lock:
            if self._signing_key is None:
                self._signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            return self._signing_key

    def jwks(self) -> dict[str, Any]:
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**public, "kid": KEY_ID, "alg": "RS256", "use": "sig"}]}

    def _client(self, request: Request, form: dict[str, str]) -> OAuthApp:
        """The calling client, by HTTP Basic or the form's `client_id`/`client_secret`."""
        client_id, client_secret = form.get("client_id", ""), form.get("client_secret", "")
        header = request.headers.get("authorization", "")
        if header.lower().startswith("basic "):
            try:
                decoded = base64.b64decode(header[6:].strip(), validate=True).decode()
            except (ValueError, UnicodeDecodeError):
                raise HubError(401, "invalid_client") from None
            client_id, _, client_secret = decoded.partition(":")
        app = self._apps.get(client_id)
        if app is None or not hmac.compare_digest(app.client_secret, client_secret):
            raise HubError(401, "invalid_client")
        return app


def _oauth_error(error: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error}, status_code=status)


def routes(emulator: Emulator) -> list[Route]:
    provider = emulator.oauth

    def issuer() -> str:
        return emulator.endpoint

    async def discovery(request: Request) -> Response:
        if provider.discovery_delay_s:
            await asyncio.sleep(provider.discovery_delay_s)
        base = issuer()
        return JSONResponse(
            {
                "issuer": base,
                "authorization_endpoint": f"{base}/oauth/authorize",
                "token_endpoint": f"{base}/oauth/token",
                "userinfo_endpoint": f"{base}/oauth/userinfo",
                "jwks_uri": f"{base}/oauth/jwks",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": [
                    "client_secret_basic",
                    "client_secret_post",
                ],
                "scopes_supported": ["openid", "profile", "email", "read-repos"],
            }
        )

    async def jwks(request: Request) -> Response:
        return JSONResponse(provider.jwks())

    async def authorize(request: Request) -> Response:
        query = request.query_params
        with provider._lock:
            app = provider._apps.get(query.get("client_id", ""))
        redirect_uri = query.get("redirect_uri", "")
        if app is None or redirect_uri not in app.redirect_uris:
            return _oauth_error("invalid_request: unknown client or redirect_uri")
        try:
            token = emulator.state.authenticate(request.headers.get("authorization"))
        except HubError:
            token = None
        if token is None:
            return _oauth_error("login_required", 401)
        scope = query.get("scope", "")
        if (
            query.get("response_type") != "code"
            or query.get("code_challenge_method") != "S256"
            or not query.get("code_challenge")
            or "openid" not in scope.split()
            or not set(scope.split()) <= app.scopes
        ):
            problem = "invalid_request"
            return RedirectResponse(
                f"{redirect_uri}?{urlencode({'error': problem, 'state': query.get('state', '')})}",
                status_code=302,
            )
        code = secrets.token_urlsafe(24)
        with provider._lock:
            provider._codes[code] = _Grant(
                app.client_id,
                redirect_uri,
                token.user,
                scope,
                query.get("nonce"),
                query["code_challenge"],
                time.time() + CODE_TTL_S,
            )
        answer = {"code": code, "state": query.get("state", "")}
        return RedirectResponse(f"{redirect_uri}?{urlencode(answer)}", status_code=302)

    async def token(request: Request) -> Response:
        # The Hub's one token endpoint also takes the Trusted Publishers exchange (RFC 8693),
        # which huggingface_hub sends as JSON (evalbot_dev.emulator.publishers).
        if request.headers.get("content-type", "").split(";")[0].strip() == "application/json":
            try:
                body = await request.json()
            except ValueError:
                body = None
            exchange = body if isinstance(body, dict) else {}
            return await publishers.respond(emulator.state, exchange, emulator.endpoint)
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        if form.get("grant_type") == publishers.GRANT_TYPE:
            return await publishers.respond(emulator.state, form, emulator.endpoint)
        if provider.token_delay_s:
            await asyncio.sleep(provider.token_delay_s)
        try:
            app = provider._client(request, form)
        except HubError:
            return _oauth_error("invalid_client", 401)
        code = form.get("code", "")
        with provider._lock:
            provider.exchanges.append(code)
            grant = provider._codes.pop(code, None)  # single use, found or not
        if (
            form.get("grant_type") != "authorization_code"
            or grant is None
            or grant.expires < time.time()
            or grant.client_id != app.client_id
            or grant.redirect_uri != form.get("redirect_uri")
        ):
            return _oauth_error("invalid_grant")
        verifier = form.get("code_verifier", "")
        computed = (
            base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            .rstrip(b"=")
            .decode()
        )
        if not hmac.compare_digest(computed, grant.challenge):
            return _oauth_error("invalid_grant")
        access = "hf_oauth_" + secrets.token_urlsafe(24)
        now = int(time.time())
        with provider._lock:
            provider._access[access] = (grant.user, now + ACCESS_TOKEN_TTL_S)
        account = emulator.state.account(grant.user)
        claims: dict[str, Any] = {
            "iss": issuer(),
            "aud": app.client_id,
            "sub": account.id,
            "iat": now,
            "exp": now + 3600,
            "auth_time": now,
            "name": account.fullname,
            "preferred_username": account.name,
        }
        if grant.nonce is not None:
            claims["nonce"] = grant.nonce
        claims.update(provider.id_token_overrides)
        id_token = jwt.encode(claims, provider.key, algorithm="RS256", headers={"kid": KEY_ID})
        return JSONResponse(
            {
                "access_token": access,
                "token_type": "bearer",
                "expires_in": ACCESS_TOKEN_TTL_S,
                "id_token": id_token,
                "scope": grant.scope,
            },
            headers={"Cache-Control": "no-store"},
        )

    async def userinfo(request: Request) -> Response:
        if provider.userinfo_failure_status is not None:
            return _oauth_error("temporarily_unavailable", provider.userinfo_failure_status)
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        with provider._lock:
            found = provider._access.get(value.strip()) if scheme.lower() == "bearer" else None
        if found is None or found[1] < time.time():
            return _oauth_error("invalid_token", 401)
        state = emulator.state
        with state.locked():
            account = state.account(found[0])
            orgs = [
                {
                    "sub": state.accounts[org].id,
                    "name": org,
                    "preferred_username": org,
                    "picture": f"{issuer()}/avatars/{org}.svg",
                    "roleInOrg": roles[account.name],
                    **_restrictions(provider.security_restrictions.get(account.name, [])),
                }
                for org, roles in sorted(state.members.items())
                if account.name in roles and org in state.accounts
            ]
        return JSONResponse(
            {
                "sub": account.id,
                "name": account.fullname,
                "preferred_username": account.name,
                "profile": f"{issuer()}/{account.name}",
                "picture": f"{issuer()}/avatars/{account.name}.svg",
                "isPro": account.is_pro,
                "orgs": orgs,
            }
        )

    return [
        Route("/.well-known/openid-configuration", discovery, methods=["GET"]),
        Route("/oauth/jwks", jwks, methods=["GET"]),
        Route("/oauth/authorize", authorize, methods=["GET"]),
        Route("/oauth/token", token, methods=["POST"]),
        Route("/oauth/userinfo", userinfo, methods=["GET"]),
    ]


def _restrictions(pending: list[str]) -> dict[str, object]:
    """An org entry's fields for the security requirements a member has not completed."""
    if not pending:
        return {}
    return {
        "securityRestrictions": list(pending),
        "pendingSSO": "sso" in pending,
        "missingMFA": "mfa" in pending,
    }
