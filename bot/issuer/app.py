"""The issuer's HTTP face (Starlette): authenticate, parse, decide, answer; nothing else.

    POST /v1/tokens                      one verify token per entry, or a refusal
    GET  /.well-known/jwks.json          the public keys (active, next, previous), cached 5 min
    GET  /.well-known/evalbot-issuer     issuer URL, audience, endpoints (for `evalbot submit`)
    GET  /healthz, /readyz               process up; Redis and keyring usable

Every answer carries `X-Request-Id`. A refusal says only what kind of failure it was (and,
for content errors, the problems in full); the audit log says which check failed.

Failed authentications are counted per client address and per presented OAuth client id
(`AuthFailureGuard`); past the limit a source gets 429 before its credentials are looked at.
The address is the one uvicorn reports: the socket's peer, or the `X-Forwarded-For` a proxy
listed in `FORWARDED_ALLOW_IPS` set (docs/issuer.md, "Failed authentications").
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import redis
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.httpbody import BodyRefused, read_body
from bot.issuer.clientauth import presented_client_id
from bot.issuer.identity import Identity
from bot.issuer.refusals import GENERIC, ContentRefusal, Refusal, Unauthenticated
from bot.issuer.requests import parse_request
from bot.issuer.service import Issuer

log = logging.getLogger("evalbot.issuer")

JWKS_CACHE_CONTROL = "public, max-age=300"
#: Seconds a caller has to send its whole body (a slow-loris guard, as the receiver has).
BODY_TIMEOUT_S = 10.0
HUB_TOKEN_PREFIX = "hf_"  # noqa: S105 - how Hub tokens start, not a secret


class AuthFailureGuard(Protocol):
    """Failed authentications per source (`bot.issuer.limits.RedisLimits`)."""

    def check_auth_failures(self, sources: Sequence[str]) -> None: ...
    def record_auth_failure(self, sources: Sequence[str]) -> None: ...


def failure_sources(header: str | None, address: str | None) -> list[str]:
    """What a failed authentication is counted against: the client address, and the client id
    that HTTP Basic credentials name (guessing one client's secret from many addresses)."""
    sources = [f"addr:{address or 'unknown'}"]
    scheme, _, value = (header or "").strip().partition(" ")
    if scheme.lower() == "basic":
        client_id = presented_client_id(value.strip())
        if client_id:
            sources.append(f"client:{client_id}")
    return sources


@dataclass
class Authenticators:
    oidc: Callable[[str], Identity]
    hub: Callable[[str], Identity]
    client: Callable[[str], Identity]

    def authenticate(self, header: str | None) -> Identity:
        """The caller behind an `Authorization` header; never anonymous."""
        if not header:
            raise Unauthenticated("no-credentials")
        scheme, _, value = header.strip().partition(" ")
        value = value.strip()
        if not value:
            raise Unauthenticated("no-credentials")
        if scheme.lower() == "basic":
            return self.client(value)
        if scheme.lower() != "bearer":
            raise Unauthenticated("credentials-unrecognised")
        if value.startswith(HUB_TOKEN_PREFIX):
            return self.hub(value)
        if value.count(".") == 2:
            return self.oidc(value)
        raise Unauthenticated("credentials-unrecognised")


def _answer(request_id: str, status: int, body: dict[str, Any], **headers: str) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={"X-Request-Id": request_id, **headers})


def _refused(request_id: str, refusal: Refusal) -> JSONResponse:
    body: dict[str, Any] = {
        "error": GENERIC.get(refusal.status, GENERIC[403]),
        "request_id": request_id,
    }
    if isinstance(refusal, ContentRefusal):
        body["problems"] = refusal.problems
    headers = {}
    if refusal.retry_after_s is not None:
        headers["Retry-After"] = str(refusal.retry_after_s)
    return _answer(request_id, refusal.status, body, **headers)


async def _read_body(request: Request, limit: int) -> bytes:
    try:
        return await read_body(request, limit)
    except BodyRefused as refused:
        if refused.problem == "too-large":
            raise Refusal("request-too-large", 413) from None
        raise Refusal("request-malformed", 400) from None


def create_app(
    issuer: Issuer,
    authenticators: Authenticators,
    *,
    redis_client: redis.Redis,
    audience: str,
    auth_failures: AuthFailureGuard,
    max_body_bytes: int = 256 * 1024,
) -> Starlette:
    def audit_refusal(
        request_id: str, refusal: Refusal, identity: Identity | None, address: str | None
    ) -> None:
        if not refusal.audited:
            issuer.audit.write(
                request_id=request_id,
                decision="refused",
                reason=refusal.reason,
                status=refusal.status,
                identity=identity.subject if identity else None,
                address=address,
            )

    def authenticate(header: str | None, address: str | None) -> Identity:
        sources = failure_sources(header, address)
        auth_failures.check_auth_failures(sources)
        try:
            return authenticators.authenticate(header)
        except Unauthenticated:
            auth_failures.record_auth_failure(sources)
            raise

    def decide(
        header: str | None, body: bytes, request_id: str, address: str | None
    ) -> list[dict[str, Any]]:
        identity: Identity | None = None
        try:
            identity = authenticate(header, address)
            token_request = parse_request(body)
            return [token.to_json() for token in issuer.issue(identity, token_request, request_id)]
        except Refusal as refusal:
            audit_refusal(request_id, refusal, identity, address)
            raise

    async def tokens(request: Request) -> Response:
        request_id = secrets.token_hex(12)
        address = request.client.host if request.client else None
        try:
            media = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if media != "application/json":
                raise Refusal("unsupported-media-type", 415)
            body = await asyncio.wait_for(_read_body(request, max_body_bytes), BODY_TIMEOUT_S)
        except TimeoutError:
            refusal = Refusal("request-timeout", 408)
            audit_refusal(request_id, refusal, None, address)
            return _refused(request_id, refusal)
        except Refusal as refusal:
            audit_refusal(request_id, refusal, None, address)
            return _refused(request_id, refusal)
        try:
            issued = await run_in_threadpool(
                decide, request.headers.get("authorization"), body, request_id, address
            )
        except Refusal as refusal:
            log.info("refused %s: %s (%d)", request_id, refusal.reason, refusal.status)
            return _refused(request_id, refusal)
        except Exception:
            log.exception("request %s failed", request_id)
            issuer.audit.write(
                request_id=request_id, decision="refused", reason="internal-error", status=500
            )
            return _answer(request_id, 500, {"error": "Internal error.", "request_id": request_id})
        return _answer(request_id, 200, {"request_id": request_id, "tokens": issued})

    async def jwks(request: Request) -> Response:
        keyring = await run_in_threadpool(issuer.keyring.current)
        return JSONResponse(
            keyring.jwks(),
            headers={"Cache-Control": JWKS_CACHE_CONTROL},
            media_type="application/jwk-set+json",
        )

    async def metadata(request: Request) -> Response:
        base = issuer.issuer_url.rstrip("/")
        return JSONResponse(
            {
                "issuer": issuer.issuer_url,
                "audience": audience,
                "jwks_uri": f"{base}/.well-known/jwks.json",
                "token_endpoint": f"{base}/v1/tokens",
            },
            headers={"Cache-Control": JWKS_CACHE_CONTROL},
        )

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def readyz(request: Request) -> Response:
        def ready() -> bool:
            try:
                issuer.keyring.current()
                return bool(redis_client.ping())
            except Exception:
                return False

        ok = await run_in_threadpool(ready)
        return JSONResponse({"ok": ok}, status_code=200 if ok else 503)

    return Starlette(
        routes=[
            Route("/v1/tokens", tokens, methods=["POST"]),
            Route("/.well-known/jwks.json", jwks, methods=["GET"]),
            Route("/.well-known/evalbot-issuer", metadata, methods=["GET"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
        ]
    )
