"""Reuse protection by binding: one (issuer, jti) belongs to one (model repo, entry digest).

A token is legitimately verified many times (webhook retries, re-runs), so "single use" would be
wrong; what must not happen is the same token vouching for other content or another repo. Only
a token that passed every other check binds its jti (docs/security.md#replay-protection).
`MemoryJtiBinder` serves the CLI; the bot's binder, shared by every worker, is Redis's
(`workers.runtime`).
"""

from __future__ import annotations

import hashlib
import threading
from enum import Enum
from typing import Protocol

from bot.tokens.checks import LEEWAY_S

#: Bindings outlive the token far (and never less than `exp` + leeway + 5 s: Warehouse #19627),
#: so a re-run a year later reaches the same verdict instead of binding the token afresh.
DEFAULT_RETENTION_S = 400 * 24 * 3600


class BindOutcome(Enum):
    """How a bind attempt went; only `OTHER` is a reuse."""

    NEW = "new"  # this call bound the jti
    SAME = "same"  # already bound to the same (model repo, digest): a re-check
    OTHER = "other"  # bound to other content or another repo


class JtiBinder(Protocol):
    def bind(self, *, issuer: str, jti: str, model_repo: str, digest: str, expires_at: int) -> bool:
        """True when this (issuer, jti) is new or already bound to the same (model_repo, digest)."""
        ...


def binding_value(model_repo: str, digest: str) -> bytes:
    """What a jti is bound to; repo ids hold no newline, so the encoding is unambiguous."""
    return f"{model_repo}\n{digest}".encode()


def binding_key(prefix: str, issuer: str, jti: str) -> str:
    """A fixed-size key: jti and issuer are attacker-chosen strings of up to a few hundred bytes."""
    material = hashlib.sha256(issuer.encode() + b"\0" + jti.encode()).hexdigest()
    return f"{prefix}{material}"


def binding_ttl_s(expires_at: int, *, now: float, retention_s: int) -> int:
    """Seconds to keep a binding: the retention, and always beyond `exp` + leeway + 5 s."""
    return max(retention_s, int(expires_at - now) + LEEWAY_S + 5, 1)


class MemoryJtiBinder:
    """Bindings for one process (the CLI: a run sees each jti in file and entry order)."""

    def __init__(self) -> None:
        self._bound: dict[tuple[str, str], bytes] = {}
        self._lock = threading.Lock()

    def bind(self, *, issuer: str, jti: str, model_repo: str, digest: str, expires_at: int) -> bool:
        outcome = self.claim(issuer=issuer, jti=jti, model_repo=model_repo, digest=digest)
        return outcome is not BindOutcome.OTHER

    def claim(self, *, issuer: str, jti: str, model_repo: str, digest: str) -> BindOutcome:
        value = binding_value(model_repo, digest)
        with self._lock:
            current = self._bound.setdefault((issuer, jti), value)
            if current is value:
                return BindOutcome.NEW
        return BindOutcome.SAME if current == value else BindOutcome.OTHER
