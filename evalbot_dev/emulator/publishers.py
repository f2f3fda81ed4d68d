"""Trusted Publishers: a CI job's OIDC ID token exchanged for a short-lived, repo-scoped token.

As the Hub answers `POST /oauth/token` (RFC 8693 token exchange, the request huggingface_hub's
`_oidc.exchange_oidc_token` sends): the ID token must be signed by an issuer the Hub accepts
(its JWKS fetched from the issuer), carry the Hub's URL as `aud`, be unexpired, and its claims
must equal every claim of a publisher registered on the repo named by `resource`
(`ns/name`, `datasets/ns/name`, `spaces/ns/name`). The answer is a token that may change that
one repo (or only read it), valid for an hour. Every refusal is the same `400 invalid_grant`:
it never says which claim, issuer or repo failed, so a caller cannot probe a registration.

The token acts as the repo's namespace on that repo alone: `HubRouter` refuses its writes to
any other repo, and reads of other repos see only what an anonymous caller would.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Mapping
from typing import Any

import jwt
from starlette.responses import JSONResponse

from evalbot_dev.emulator import hub_texts
from evalbot_dev.emulator.model import DISCUSS, READ, WRITE, Publisher, Token
from evalbot_dev.emulator.state import HubState

logger = logging.getLogger(__name__)

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"  # noqa: S105 - a type URN
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"  # noqa: S105
#: Seconds an exchanged token works, as on the Hub.
LIFETIME_S = 3600
#: GitHub's and GitLab's ID tokens are RS256; nothing else is accepted.
ALGORITHMS = ["RS256"]
JWKS_TIMEOUT_S = 5.0
_PREFIXES = {"datasets/": "dataset", "spaces/": "space"}


class ExchangeRefused(Exception):
    """Why the exchange failed, for the emulator's log; the caller is told only `invalid_grant`."""


def trust_issuer(state: HubState, issuer: str, jwks_url: str) -> None:
    """Accept ID tokens of `issuer` (as the Hub accepts GitHub's and GitLab's)."""
    with state.lock:
        state.oidc_issuers[issuer] = jwks_url


def register_publisher(
    state: HubState,
    repo_type: str,
    repo_id: str,
    *,
    issuer: str,
    claims: Mapping[str, str],
    read_only: bool = False,
) -> None:
    """Register a workflow on a repo (its Settings, Trusted Publishers): `claims` must all match."""
    with state.lock:
        key = state.repo_key(repo_type, repo_id)
        if key not in state.repos:
            raise KeyError(f"no {repo_type} {repo_id}")
        publisher = Publisher(issuer, tuple(sorted(claims.items())), read_only)
        state.publishers.setdefault(key, []).append(publisher)


def parse_resource(resource: str) -> tuple[str, str]:
    """`ns/name` (a model), `datasets/ns/name`, `spaces/ns/name` -> (type, repo id)."""
    repo_type = "model"
    for prefix, kind in _PREFIXES.items():
        if resource.startswith(prefix):
            repo_type, resource = kind, resource.removeprefix(prefix)
    parts = resource.split("/")
    if len(parts) != 2 or not all(parts):
        raise ExchangeRefused(f"resource {resource!r} is not a repo")
    return repo_type, resource


def verified_claims(state: HubState, subject_token: str, audience: str) -> dict[str, Any]:
    """The ID token's claims once its issuer is trusted and its signature, `aud` and `exp`
    hold. Fetches the issuer's JWKS (never under the state's lock)."""
    try:
        unverified = jwt.decode(subject_token, options={"verify_signature": False})
    except jwt.PyJWTError as error:
        raise ExchangeRefused(f"not a JWT: {error}") from error
    issuer = unverified.get("iss")
    with state.lock:
        jwks_url = state.oidc_issuers.get(issuer) if isinstance(issuer, str) else None
    if jwks_url is None:
        raise ExchangeRefused(f"issuer {issuer!r} is not trusted")
    try:
        client = jwt.PyJWKClient(jwks_url, cache_keys=False, timeout=int(JWKS_TIMEOUT_S))
        key = client.get_signing_key_from_jwt(subject_token)
        return dict(
            jwt.decode(
                subject_token,
                key.key,
                algorithms=ALGORITHMS,
                audience=audience,
                issuer=issuer,
                options={"require": ["iss", "aud", "exp"]},
            )
        )
    except jwt.PyJWTError as error:
        raise ExchangeRefused(f"ID token refused: {error}") from error


def exchange(state: HubState, body: Mapping[str, Any], audience: str) -> dict[str, Any]:
    """The token-exchange answer for `body`, or `ExchangeRefused`."""
    if body.get("grant_type") != GRANT_TYPE or body.get("subject_token_type") != ID_TOKEN_TYPE:
        raise ExchangeRefused("not an RFC 8693 exchange of an ID token")
    subject_token, resource = body.get("subject_token"), body.get("resource")
    if not isinstance(subject_token, str) or not isinstance(resource, str):
        raise ExchangeRefused("subject_token and resource must be strings")
    repo_type, repo_id = parse_resource(resource)
    claims = verified_claims(state, subject_token, audience)
    with state.lock:
        key = state.repo_key(repo_type, repo_id)
        repo = state.repos.get(key)
        matching = [
            publisher
            for publisher in state.publishers.get(key, [])
            if publisher.issuer == claims["iss"]
            and all(claims.get(name) == value for name, value in publisher.claims)
        ]
        if repo is None or not matching:
            raise ExchangeRefused(f"no publisher of {resource} matches the token's claims")
        read_only = all(publisher.read_only for publisher in matching)
        value = f"hf_jwt_{secrets.token_urlsafe(32)}"
        state.tokens[value] = Token(
            value,
            repo.namespace,
            "fineGrained",
            frozenset({READ} if read_only else {READ, WRITE, DISCUSS}),
            f"trusted-publisher:{repo.full_name}",
            repo_scope=(repo.type, repo.full_name.lower()),
            expires_at=time.time() + LIFETIME_S,
        )
    return {
        "access_token": value,
        "token_type": "bearer",
        "expires_in": LIFETIME_S,
        "issued_token_type": ACCESS_TOKEN_TYPE,
    }


async def respond(state: HubState, body: Mapping[str, Any], audience: str) -> JSONResponse:
    """The HTTP answer of `POST /oauth/token` to a token exchange (`evalbot_dev.emulator.oauth`
    routes the grant here; the sign-in code flow shares the endpoint, as on the Hub)."""
    try:
        # The issuer's JWKS is fetched over HTTP: off the event loop.
        answer = await asyncio.to_thread(exchange, state, body, audience)
    except ExchangeRefused as refused:
        # The reason stays in the emulator's log; the caller learns nothing about which part
        # of a registration failed, as on the Hub.
        logger.info("token exchange refused: %s", refused)
        return JSONResponse(
            {"error": "invalid_grant", "error_description": hub_texts.EXCHANGE_REFUSED},
            status_code=400,
        )
    return JSONResponse(answer)
