"""Who is calling the issuer: one `Identity` per `Authorization` header, told apart by its shape,
and failed attempts counted per address and client id (docs/issuer.md, "Authentication")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.issuer.clientauth import presented_client_id
from bot.issuer.identity import Identity
from bot.issuer.refusals import Unauthenticated

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


@dataclass(frozen=True)
class GuardedAuthentication:
    """`Authenticators` behind the failed-authentication limit: a source past it is refused
    (429) before its credentials are looked at, and every failure is counted."""

    authenticators: Authenticators
    auth_failures: AuthFailureGuard

    def authenticate(self, header: str | None, address: str | None) -> Identity:
        sources = failure_sources(header, address)
        self.auth_failures.check_auth_failures(sources)
        try:
            return self.authenticators.authenticate(header)
        except Unauthenticated:
            self.auth_failures.record_auth_failure(sources)
            raise
