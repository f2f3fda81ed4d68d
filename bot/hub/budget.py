"""A run's Hub calls, counted where every request goes (`counting()`), and the bounded share its
optional reads get (`Allowance`) (docs/hub.md, "Budgets")."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(slots=True)
class HubCalls:
    """The Hub requests made so far in one run."""

    made: int = 0

    def allowance(self, limit: int) -> Allowance:
        """At most `limit` more calls, from now on."""
        return Allowance(self, limit, self.made)


@dataclass(slots=True)
class Allowance:
    """A bounded share of a run's calls: `limit` of them from `start` on."""

    calls: HubCalls
    limit: int
    start: int

    @property
    def spent(self) -> int:
        return self.calls.made - self.start

    def affords(self, count: int = 1) -> bool:
        return self.spent + count <= self.limit


_CURRENT: ContextVar[HubCalls | None] = ContextVar("evalbot_hub_calls", default=None)


@contextmanager
def counting() -> Iterator[HubCalls]:
    """Count the Hub requests made inside the block (nested blocks count apart)."""
    calls = HubCalls()
    token = _CURRENT.set(calls)
    try:
        yield calls
    finally:
        _CURRENT.reset(token)


def current() -> HubCalls:
    """The count of the run in progress; outside one, a count of its own (nothing spent)."""
    return _CURRENT.get() or HubCalls()


def count_request() -> None:
    """One request sent (the Hub client calls this for each)."""
    calls = _CURRENT.get()
    if calls is not None:
        calls.made += 1
