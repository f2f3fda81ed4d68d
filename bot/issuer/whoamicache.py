"""`whoami-v2` answers kept for a short while, so Hub-token callers cost the Hub one call a minute.

Without it, every request authenticated with a Hub token costs one `whoami-v2` call: a CI job
that asks 50 times costs 50 calls, and anyone can make the issuer hammer the Hub with made-up
`hf_...` tokens. `CachedWhoAmI` wraps the real `WhoAmI` (docs/issuer.md, "Authentication"):

- an answer is kept for `ttl_s` (60 s by default, `EVALBOT_ISSUER_WHOAMI_CACHE_S`); a token
  the Hub rejected (401/403) is kept as rejected for as long, so the same garbage repeated costs
  no call either. A Hub that fails (5xx, timeout) is never cached: the next request asks again;
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
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _entries: OrderedDict[str, tuple[float, HubIdentity | _Rejected]] = field(
        default_factory=OrderedDict, repr=False
    )
    _pending: dict[str, threading.Lock] = field(default_factory=dict, repr=False)

    def __call__(self, token: str) -> HubIdentity:
        if self.ttl_s <= 0:
            return self.whoami(token)
        key = hmac.new(self._key, token.encode("utf-8"), hashlib.sha256).hexdigest()
        found = self._cached(key)
        if found is None:
            with self._lock:
                pending = self._pending.setdefault(key, threading.Lock())
            try:
                with pending:  # one call per token at a time; the others find its answer
                    found = self._cached(key)
                    if found is None:
                        found = self._ask(key, token)
            finally:
                # Also when the Hub failed: else every made-up token asked during an outage
                # would leave its lock behind, for good.
                with self._lock:
                    if self._pending.get(key) is pending:
                        del self._pending[key]
        if isinstance(found, _Rejected):
            raise HubPermanentError(found.message, status=found.status)
        return found

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def _cached(self, key: str) -> HubIdentity | _Rejected | None:
        now = self.clock()
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if now - entry[0] >= self.ttl_s:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def _ask(self, key: str, token: str) -> HubIdentity | _Rejected:
        try:
            answer: HubIdentity | _Rejected = self.whoami(token)
        except HubPermanentError as error:
            if error.status not in (401, 403):
                raise
            answer = _Rejected(error.status, str(error))
        with self._lock:
            self._entries[key] = (self.clock(), answer)
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return answer
