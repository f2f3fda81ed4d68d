"""Fault injection and request accounting, configurable while the emulator runs.

Route faults match route names (e.g. `discussions.comment`, `files.resolve`) with shell-style
patterns. A fault may add latency, answer a status instead of running the handler (429 with the
Hub's `RateLimit` headers, 5xx bursts), or answer a status *after* the handler ran (a write that
was applied but whose response the client never sees: a timeout behind a proxy). Quotas emulate
the Hub's fixed-window rate limits per caller and bucket (docs/hub-api.md#rate-limits).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from evalbot_dev.emulator import hub_texts

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_Config = TypeVar("_Config", bound="DataclassInstance")


def _from_known_fields(cls: type[_Config], data: dict[str, Any], what: str) -> _Config:
    """`cls(**data)`, refusing a key `cls` has no field for (a typo must not pass silently)."""
    unknown = set(data) - {known.name for known in dataclasses.fields(cls)}
    if unknown:
        raise ValueError(f"unknown {what} keys: {sorted(unknown)}")
    return cls(**data)


@dataclass
class RouteFault:
    pattern: str = "*"
    latency_s: float = 0.0
    #: Answer this status instead of running the handler (or after it, with `after_write`).
    status: int | None = None
    #: Up to this much more latency, uniformly at random (seeded by `Faults.seed`).
    jitter_s: float = 0.0
    #: How many matching requests get the status; None means every one.
    times: int | None = None
    after_write: bool = False
    #: For 429: the `t=` of the `RateLimit` header (seconds until the window resets).
    reset_s: int = 1
    #: Run the handler, then send a 200 whose body is cut in half (a proxy dropped the rest):
    #: the client sees truncated, invalid JSON. Counts against `times` like a status.
    truncate: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RouteFault:
        return _from_known_fields(cls, data, "route fault")

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Decision:
    latency_s: float = 0.0
    #: (status, headers, message) to answer without running the handler.
    reject: tuple[int, dict[str, str], str] | None = None
    #: (status, message) to answer after the handler has applied its write.
    after_write: tuple[int, str] | None = None
    #: Send only the first half of the handler's response body.
    truncate: bool = False


@dataclass
class Quota:
    """Fixed-window quotas per caller, as the Hub counts them (`api`, `resolvers` buckets)."""

    api: int | None = None
    resolvers: int | None = None
    window_s: int = 300
    #: Only these callers (user names) are limited; empty: every caller, each on its own count.
    callers: frozenset[str] = frozenset()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Quota:
        fields = dict(data)
        if "callers" in fields:
            fields["callers"] = frozenset(str(name) for name in fields["callers"])
        return _from_known_fields(cls, fields, "quota")

    def to_json(self) -> dict[str, Any]:
        return {
            "api": self.api,
            "resolvers": self.resolvers,
            "window_s": self.window_s,
            "callers": sorted(self.callers),
        }


def _rate_limit_headers(
    bucket: str, remaining: int, reset_s: int, quota: int, window_s: int
) -> dict[str, str]:
    return {
        "RateLimit": f'"{bucket}";r={remaining};t={reset_s}',
        "RateLimit-Policy": f'"fixed window";"{bucket}";q={quota};w={window_s}',
    }


@dataclass
class Faults:
    rules: list[RouteFault] = field(default_factory=list)
    quota: Quota = field(default_factory=Quota)
    counters: Counter[str] = field(default_factory=Counter)
    #: 429s answered, by bucket (`api`, `resolvers`), quotas and route faults alike.
    rate_limited: Counter[str] = field(default_factory=Counter)
    seed: int = 0
    _windows: dict[tuple[str, str, int], int] = field(default_factory=dict)
    _random: random.Random = field(init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)  # noqa: S311 - reproducible jitter, not crypto

    def set_rules(self, rules: list[RouteFault]) -> None:
        with self._lock:
            self.rules = list(rules)

    def add_rule(self, rule: RouteFault) -> None:
        with self._lock:
            self.rules.append(rule)

    def clear(self) -> None:
        with self._lock:
            self.rules = []
            self.quota = Quota()
            self._windows.clear()

    def set_quota(self, quota: Quota) -> None:
        with self._lock:
            self.quota = quota
            self._windows.clear()

    def count_snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counters)

    def rate_limited_snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.rate_limited)

    def reset_counters(self) -> None:
        with self._lock:
            self.counters.clear()
            self.rate_limited.clear()

    def count(self, route: str) -> None:
        """Count a request answered before `decide` (a token the Hub does not know: 401)."""
        with self._lock:
            self.counters[route] += 1

    def decide(self, route: str, bucket: str, caller: str) -> Decision:
        """Count the request and decide what happens to it (called once per request)."""
        with self._lock:
            self.counters[route] += 1
            if (limited := self._over_quota(bucket, caller)) is not None:
                self.rate_limited[bucket] += 1
                return Decision(reject=limited)
            latency = 0.0
            for rule in self.rules:
                if not fnmatch.fnmatchcase(route, rule.pattern):
                    continue
                latency += rule.latency_s + (
                    self._random.uniform(0, rule.jitter_s) if rule.jitter_s else 0
                )
                if (rule.status is None and not rule.truncate) or rule.times == 0:
                    continue
                if rule.times is not None:
                    rule.times -= 1
                if rule.truncate:
                    return Decision(latency, truncate=True)
                if rule.after_write:
                    status = rule.status or 504
                    return Decision(latency, after_write=(status, hub_texts.INJECTED_TIMEOUT))
                answer = self._status_answer(rule, bucket)
                if answer[0] == 429:
                    self.rate_limited[bucket] += 1
                return Decision(latency, reject=answer)
            return Decision(latency)

    def _status_answer(self, rule: RouteFault, bucket: str) -> tuple[int, dict[str, str], str]:
        status = rule.status or 500
        if status == 429:
            headers = _rate_limit_headers(bucket, 0, rule.reset_s, 1000, 300)
            return 429, headers, hub_texts.RATE_LIMITED.format(bucket=bucket, reset=rule.reset_s)
        return status, {}, hub_texts.INJECTED_SERVER_ERROR

    def _over_quota(self, bucket: str, caller: str) -> tuple[int, dict[str, str], str] | None:
        limit = self.quota.api if bucket == "api" else self.quota.resolvers
        if limit is None or (self.quota.callers and caller not in self.quota.callers):
            return None
        now = time.time()
        window = int(now // self.quota.window_s)
        key = (bucket, caller, window)
        if key not in self._windows:
            # A new window for this caller: forget the finished ones (fixed windows).
            for stale in [k for k in self._windows if k[2] < window]:
                del self._windows[stale]
        used = self._windows.get(key, 0) + 1
        self._windows[key] = used
        if used <= limit:
            return None
        reset = max(1, int((window + 1) * self.quota.window_s - now))
        headers = _rate_limit_headers(bucket, 0, reset, limit, self.quota.window_s)
        return 429, headers, hub_texts.RATE_LIMITED.format(bucket=bucket, reset=reset)


@dataclass
class WebhookFaults:
    """How deliveries misbehave: delay, drop, duplicate, reorder (counts, or seeded rates)."""

    delay_s: float = 0.0
    drop_next: int = 0
    duplicate_next: int = 0
    drop_rate: float = 0.0
    duplicate_rate: float = 0.0
    #: Hold this many deliveries and send them in reverse order (0 or 1: keep order).
    reorder_window: int = 0
    seed: int = 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WebhookFaults:
        return _from_known_fields(cls, data, "webhook fault")

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)
