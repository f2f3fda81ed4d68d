"""The issuer's HTTP face (Starlette): its endpoints (`bot.issuer.endpoints`) over the callers'
authentication (`bot.issuer.authenticators`), put together once at start-up."""

from __future__ import annotations

import redis
from starlette.applications import Starlette

from bot.issuer.authenticators import (
    Authenticators,
    AuthFailureGuard,
    GuardedAuthentication,
)
from bot.issuer.endpoints import MAX_BODY_BYTES, Endpoints
from bot.issuer.service import Issuer


def create_app(
    issuer: Issuer,
    authenticators: Authenticators,
    *,
    redis_client: redis.Redis,
    audience: str,
    auth_failures: AuthFailureGuard,
    max_body_bytes: int = MAX_BODY_BYTES,
) -> Starlette:
    """The issuer's app; `max_body_bytes` is there for tests, production keeps the default."""
    endpoints = Endpoints(
        issuer,
        GuardedAuthentication(authenticators, auth_failures),
        redis_client=redis_client,
        audience=audience,
        max_body_bytes=max_body_bytes,
    )
    return Starlette(routes=endpoints.routes())
