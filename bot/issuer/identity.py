"""Who is calling: the identity an authenticator established, as the rest of the issuer sees it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

IdentityKind = Literal["oidc", "hub", "client"]


@dataclass(frozen=True)
class SingleUse:
    """A credential that may obtain tokens once (an OIDC ID token's `jti`): the replay key to
    claim, and for how long, once the request it came with is granted."""

    key: str
    ttl_s: int


@dataclass(frozen=True)
class Identity:
    """An authenticated caller. `subject` goes into the token's `sub` and the audit log.

    `claims` are the verified ID-token claims (OIDC), empty for the other kinds; `name` is
    the Hub account or OAuth client id (and the provider's `sub` for OIDC).
    """

    kind: IdentityKind
    name: str
    provider: str | None = None
    claims: Mapping[str, Any] = field(default_factory=dict)
    #: Set for an ID token: claimed only when the request is granted (docs/security.md,
    #: "Single-use ID tokens").
    single_use: SingleUse | None = None

    @property
    def subject(self) -> str:
        if self.kind == "oidc":
            return f"{self.provider}:{self.name}"
        return f"{self.kind}:{self.name}"
