"""The issuer's endpoints (docs/issuer.md, "Endpoints"): authenticate, parse, decide, answer;
a refusal says only its kind, the audit log which check failed."""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass
from typing import Any

import redis
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.httpguards import BodyRefused, read_body
from bot.issuer.authenticators import GuardedAuthentication
from bot.issuer.identity import Identity
from bot.issuer.refusals import GENERIC, ContentRefusal, Refusal
from bot.issuer.requests import parse_request
from bot.issuer.service import Issuer

log = logging.getLogger("evalbot.issuer")

JWKS_CACHE_CONTROL = "public, max-age=300"
#: Seconds a caller has to send its whole body (a slow-loris guard, as the receiver has).
BODY_TIMEOUT_S = 10.0
#: Largest token request body (413 beyond). A request holds at most `requests.MAX_ENTRIES` (50)
#: result entries of a few hundred bytes each, so 256 KiB leaves a wide margin for a real one
#: while bounding what one connection makes the issuer buffer and parse.
MAX_BODY_BYTES = 256 * 1024


def answer(request_id: str, status: int, body: dict[str, Any], **headers: str) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={"X-Request-Id": request_id, **headers})


def refused(request_id: str, refusal: Refusal) -> JSONResponse:
    """The generic answer to a refusal: its kind, and for content errors the problems."""
    body: dict[str, Any] = {
        "error": GENERIC.get(refusal.status, GENERIC[403]),
        "request_id": request_id,
    }
    if isinstance(refusal, ContentRefusal):
        body["problems"] = refusal.problems
    headers = {}
    if refusal.retry_after_s is not None:
        headers["Retry-After"] = str(refusal.retry_after_s)
    return answer(request_id, refusal.status, body, **headers)


async def _read_body(request: Request, limit: int) -> bytes:
    try:
        return await read_body(request, limit)
    except BodyRefused as refusal:
        if refusal.problem == "too-large":
            raise Refusal("request-too-large", 413) from None
        raise Refusal("request-malformed", 400) from None


async def receive_json(request: Request, max_body_bytes: int) -> bytes:
    """The body of a JSON request, whole within `BODY_TIMEOUT_S`; a `Refusal` otherwise."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise Refusal("unsupported-media-type", 415)
    try:
        return await asyncio.wait_for(_read_body(request, max_body_bytes), BODY_TIMEOUT_S)
    except TimeoutError:
        raise Refusal("request-timeout", 408) from None


@dataclass(frozen=True)
class Endpoints:
    """The issuer's routes over one `Issuer`, built once at start-up (`bot.issuer.app`)."""

    issuer: Issuer
    authentication: GuardedAuthentication
    redis_client: redis.Redis
    #: The `aud` CI ID tokens must carry, published in the metadata.
    audience: str
    max_body_bytes: int = MAX_BODY_BYTES

    def routes(self) -> list[Route]:
        return [
            Route("/v1/tokens", self.tokens, methods=["POST"]),
            Route("/.well-known/jwks.json", self.jwks, methods=["GET"]),
            Route("/.well-known/evalbot-issuer", self.metadata, methods=["GET"]),
            Route("/healthz", self.healthz, methods=["GET"]),
            Route("/readyz", self.readyz, methods=["GET"]),
        ]

    async def tokens(self, request: Request) -> Response:
        request_id = secrets.token_hex(12)
        address = request.client.host if request.client else None
        try:
            body = await receive_json(request, self.max_body_bytes)
        except Refusal as refusal:
            self._audit_refusal(request_id, refusal, None, address)
            return refused(request_id, refusal)
        header = request.headers.get("authorization")
        try:
            issued = await run_in_threadpool(self._decide, header, body, request_id, address)
        except Refusal as refusal:
            log.info("refused %s: %s (%d)", request_id, refusal.reason, refusal.status)
            return refused(request_id, refusal)
        except Exception:
            log.exception("request %s failed", request_id)
            return self._internal_error(request_id)
        return answer(request_id, 200, {"request_id": request_id, "tokens": issued})

    def _decide(
        self, header: str | None, body: bytes, request_id: str, address: str | None
    ) -> list[dict[str, Any]]:
        identity: Identity | None = None
        try:
            identity = self.authentication.authenticate(header, address)
            token_request = parse_request(body)
            issued = self.issuer.issue(identity, token_request, request_id)
            return [token.to_json() for token in issued]
        except Refusal as refusal:
            self._audit_refusal(request_id, refusal, identity, address)
            raise

    def _audit_refusal(
        self, request_id: str, refusal: Refusal, identity: Identity | None, address: str | None
    ) -> None:
        if not refusal.audited:
            self.issuer.audit.write(
                request_id=request_id,
                decision="refused",
                reason=refusal.reason,
                status=refusal.status,
                identity=identity.subject if identity else None,
                address=address,
            )

    def _internal_error(self, request_id: str) -> JSONResponse:
        self.issuer.audit.write(
            request_id=request_id, decision="refused", reason="internal-error", status=500
        )
        return answer(request_id, 500, {"error": "Internal error.", "request_id": request_id})

    async def jwks(self, request: Request) -> Response:
        keyring = await run_in_threadpool(self.issuer.keyring.current)
        return JSONResponse(
            keyring.jwks(),
            headers={"Cache-Control": JWKS_CACHE_CONTROL},
            media_type="application/jwk-set+json",
        )

    async def metadata(self, request: Request) -> Response:
        base = self.issuer.issuer_url.rstrip("/")
        return JSONResponse(
            {
                "issuer": self.issuer.issuer_url,
                "audience": self.audience,
                "jwks_uri": f"{base}/.well-known/jwks.json",
                "token_endpoint": f"{base}/v1/tokens",
            },
            headers={"Cache-Control": JWKS_CACHE_CONTROL},
        )

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def readyz(self, request: Request) -> Response:
        ok = await run_in_threadpool(self._ready)
        return JSONResponse({"ok": ok}, status_code=200 if ok else 503)

    def _ready(self) -> bool:
        try:
            self.issuer.keyring.current()
            return bool(self.redis_client.ping())
        except Exception:
            return False
