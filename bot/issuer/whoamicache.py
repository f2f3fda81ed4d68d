"""`whoami-v2` answers kept per Hub token for a short while, so Hub-token callers cost the Hub
few calls (docs/issuer.md, "The Hub-token cache")."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.hub.errors import HubPermanentError
from bot.hub.identity import HubIdentity
from bot.issuer.flightcache import FlightCache
from bot.issuer.hubauth import WhoAmI

#: The default lifetime of an answer (seconds), documented in docs/issuer.md.
DEFAULT_TTL_S = 60.0
DEFAULT_CAPACITY = 4096


@dataclass(frozen=True)
class _Rejected:
    """The Hub's 401/403 for a token, replayed while cached."""

    status: int
    message: str


@dataclass
class CachedWhoAmI:
    whoami: WhoAmI
    ttl_s: float = DEFAULT_TTL_S
    capacity: int = DEFAULT_CAPACITY
    clock: Callable[[], float] = time.monotonic
    _key: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)

    def __post_init__(self) -> None:
        self._cache: FlightCache[str, HubIdentity | _Rejected] = FlightCache(
            ttl_s=self.ttl_s, capacity=self.capacity, clock=self.clock
        )

    def __call__(self, token: str) -> HubIdentity:
        if self.ttl_s <= 0:
            return self.whoami(token)
        key = hmac.new(self._key, token.encode("utf-8"), hashlib.sha256).hexdigest()
        found = self._cache.get(key, lambda: self._ask(token))
        if isinstance(found, _Rejected):
            raise HubPermanentError(found.message, status=found.status)
        return found

    def __len__(self) -> int:
        return len(self._cache)

    # What the cache holds, for tests: keys are HMACs of tokens, never the tokens.
    @property
    def _entries(self) -> OrderedDict[str, tuple[float, HubIdentity | _Rejected]]:
        return self._cache._entries

    @property
    def _pending(self) -> dict[str, threading.Lock]:
        return self._cache._pending

    def _ask(self, token: str) -> HubIdentity | _Rejected:
        """The Hub's answer; a refusal (401, 403) is an answer too, kept like an identity."""
        try:
            return self.whoami(token)
        except HubPermanentError as error:
            if error.status not in (401, 403):
                raise
            return _Rejected(error.status, str(error))
