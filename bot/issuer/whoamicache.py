"""`whoami-v2` answers kept for a short while, so Hub-token callers cost the Hub one call a minute.

Without it, every request authenticated with a Hub token costs one `whoami-v2` call: a CI job
that asks 50 times costs 50 calls, and anyone can make the issuer hammer the Hub with made-up
`hf_...` tokens. `CachedWhoAmI` wraps the real `WhoAmI` (docs/issuer.md, "Authentication"):

- an answer is kept for `ttl_s` (60 s by default, `whoami_cache_s` in the `issuer:` section of
  integrations.yaml); a token the Hub rejected (401/403) is kept as rejected for as long, so the
  same garbage repeated costs no call either. A Hub that fails (5xx, timeout) is never cached:
  the next request asks again;
- entries are keyed by HMAC-SHA256 of the token under a key drawn at start-up, never by the
  token: a memory dump holds no usable token, nor a plain hash to test guesses against;
- at most `capacity` entries, least recently used dropped first: made-up tokens cannot grow it;
- concurrent requests with one token wait for the first one's call instead of each asking.

The price is that a token revoked on the Hub keeps working here for up to `ttl_s`; 0 turns the
cache off.
"""

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
