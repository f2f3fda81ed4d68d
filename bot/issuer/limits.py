"""Abuse controls in Redis, shared by every issuer process: rate limits, cooldown, the ID-token
replay guard, failed authentications (docs/issuer.md, "Limits and cooldown")."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import redis

from bot.issuer.integrations import Limits
from bot.issuer.refusals import Refusal
from bot.store import keys


def _hashed(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class RateLimited(Refusal):
    def __init__(self, reason: str, retry_after_s: int) -> None:
        super().__init__(reason, 429, retry_after_s=max(1, retry_after_s))


#: Seconds over which failed authentications are counted, from a source's first failure; past
#: the limit the source gets 429 until the window ends. Ten minutes makes guessing a client
#: secret or a Hub token hopeless (at the default 10 failures: 1,440 guesses a day per source),
#: while a CI job that failed on a bad secret can succeed again shortly after it is fixed.
AUTH_FAILURE_WINDOW_S = 600


@dataclass(frozen=True)
class AuthFailureLimits:
    """How many failed authentications a client address or client id may make per window."""

    #: `auth_failures` in the `issuer:` section of integrations.yaml.
    failures: int = 10
    window_s: int = AUTH_FAILURE_WINDOW_S


@dataclass
class RedisLimits:
    client: redis.Redis
    clock: Callable[[], float] = time.time
    auth_failures: AuthFailureLimits = AuthFailureLimits()

    def first_use(self, key: str, ttl_s: int) -> bool:
        """The replay guard of `oidc.ReplayGuard`: claim `key` once."""
        return bool(
            self.client.set(f"{keys.ISSUER_PREFIX}id-jti:{_hashed(key)}", b"1", nx=True, ex=ttl_s)
        )

    def check(self, subject: str, limits: Limits) -> None:
        """Refuse (429) an identity in cooldown or over its rate; counts this request."""
        who = _hashed(subject)
        ttl = int(self.client.ttl(f"{keys.ISSUER_PREFIX}cooldown:{who}"))
        if ttl > 0:
            raise RateLimited("cooldown", ttl)
        now = int(self.clock())
        for window, limit in ((60, limits.per_minute), (3600, limits.per_hour)):
            key = f"{keys.ISSUER_PREFIX}rate:{who}:{window}:{now // window}"
            pipe = self.client.pipeline()
            pipe.incr(key)
            pipe.expire(key, window + 1)
            count = int(pipe.execute()[0])
            if count > limit:
                raise RateLimited("rate-limited", window - now % window)

    def record_refusal(self, subject: str, limits: Limits) -> None:
        """Count a refusal; enough of them within the window start a cooldown."""
        who = _hashed(subject)
        key = f"{keys.ISSUER_PREFIX}refusals:{who}"
        pipe = self.client.pipeline()
        # The window starts at the first refusal: the key is created with its TTL (`SET NX
        # EX`, which Redis 6.2 has, unlike `EXPIRE NX`), and `INCR` keeps that TTL.
        pipe.set(key, 0, nx=True, ex=limits.refusal_window_s)
        pipe.incr(key)
        count = int(pipe.execute()[1])
        if count >= limits.refusals_before_cooldown:
            self._cool_down(who, limits)

    def check_spread(self, subject: str, models: Iterable[str], limits: Limits) -> None:
        """Record the model repos asked for; too many distinct ones in the window cool down."""
        who = _hashed(subject)
        key = f"{keys.ISSUER_PREFIX}models:{who}"
        now = self.clock()
        pipe = self.client.pipeline()
        pipe.zremrangebyscore(key, "-inf", now - limits.spread_window_s)
        pipe.zadd(key, dict.fromkeys(models, now))
        pipe.zcard(key)
        pipe.expire(key, limits.spread_window_s)
        count = int(pipe.execute()[2])
        if count > limits.max_models:
            self._cool_down(who, limits)
            raise RateLimited("unusual-spread", limits.cooldown_s)

    def check_auth_failures(self, sources: Iterable[str]) -> None:
        """Refuse (429) a request from a source (`addr:...`, `client:...`) that failed to
        authenticate too often in its current window; `Retry-After` is the window's rest."""
        limits = self.auth_failures
        pipe = self.client.pipeline()
        for source in sources:
            key = f"{keys.ISSUER_PREFIX}auth-failures:{_hashed(source)}"
            pipe.get(key)
            pipe.ttl(key)
        answers = pipe.execute()
        for count, ttl in zip(answers[::2], answers[1::2], strict=True):
            if count is not None and int(count) >= limits.failures:
                raise RateLimited("auth-failures", int(ttl) if int(ttl) > 0 else limits.window_s)

    def record_auth_failure(self, sources: Iterable[str]) -> None:
        """Count one failed authentication against each source; the window starts at the first."""
        pipe = self.client.pipeline()
        for source in sources:
            key = f"{keys.ISSUER_PREFIX}auth-failures:{_hashed(source)}"
            pipe.set(key, 0, nx=True, ex=self.auth_failures.window_s)  # as in record_refusal
            pipe.incr(key)
        pipe.execute()

    def _cool_down(self, who: str, limits: Limits) -> None:
        pipe = self.client.pipeline()
        pipe.set(f"{keys.ISSUER_PREFIX}cooldown:{who}", b"1", ex=limits.cooldown_s)
        pipe.delete(f"{keys.ISSUER_PREFIX}refusals:{who}")
        pipe.execute()
