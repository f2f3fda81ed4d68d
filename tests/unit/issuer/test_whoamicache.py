"""The whoami cache over a counting fake: one Hub call per token per TTL, refusals cached too,
Hub failures never, bounded size, no token kept, one call for concurrent misses."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.identity import HubIdentity
from bot.issuer.whoamicache import CachedWhoAmI

ALICE = HubIdentity("alice", "user", "write")


class Hub:
    """A whoami that counts its calls: `hf_good*` is alice, `hf_down` fails, the rest 401."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.calls: Counter[str] = Counter()
        self.gate = gate
        self._lock = threading.Lock()

    def __call__(self, token: str) -> HubIdentity:
        with self._lock:
            self.calls[token] += 1
        if self.gate is not None:
            assert self.gate.wait(10)
        if token.startswith("hf_good"):
            return ALICE
        if token.startswith("hf_down"):
            raise HubTransientError("the Hub is down", status=503)
        raise HubPermanentError("Invalid credentials in Authorization header", status=401)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_answer_is_reused_until_it_expires() -> None:
    hub, clock = Hub(), Clock()
    cached = CachedWhoAmI(hub, ttl_s=60, clock=clock)
    assert [cached("hf_good") for _ in range(50)] == [ALICE] * 50
    assert hub.calls["hf_good"] == 1
    clock.now += 59.9
    cached("hf_good")
    assert hub.calls["hf_good"] == 1
    clock.now += 0.1
    cached("hf_good")
    assert hub.calls["hf_good"] == 2


def test_a_rejected_token_is_cached_as_rejected_and_a_failing_hub_is_not() -> None:
    hub = Hub()
    cached = CachedWhoAmI(hub, ttl_s=60, clock=Clock())
    for _ in range(5):
        with pytest.raises(HubPermanentError) as caught:
            cached("hf_garbage")
        assert caught.value.status == 401
    assert hub.calls["hf_garbage"] == 1
    for _ in range(3):
        with pytest.raises(HubTransientError):
            cached("hf_down")
    assert hub.calls["hf_down"] == 3


def test_the_cache_is_bounded_and_holds_no_token() -> None:
    hub = Hub()
    cached = CachedWhoAmI(hub, ttl_s=60, capacity=10, clock=Clock())
    cached("hf_good_first")
    for number in range(100):
        with pytest.raises(HubPermanentError):
            cached(f"hf_garbage_{number}")
    assert len(cached) == 10
    cached("hf_good_first")  # pushed out by the garbage: asked again
    assert hub.calls["hf_good_first"] == 2
    assert not any("hf_" in key for key in cached._entries)


def test_zero_ttl_turns_the_cache_off() -> None:
    hub = Hub()
    cached = CachedWhoAmI(hub, ttl_s=0, clock=Clock())
    cached("hf_good")
    cached("hf_good")
    assert hub.calls["hf_good"] == 2
    assert len(cached) == 0


def test_concurrent_misses_for_one_token_make_one_call() -> None:
    gate = threading.Event()
    hub = Hub(gate)
    cached = CachedWhoAmI(hub, ttl_s=60)
    answers: list[HubIdentity] = []
    threads = [threading.Thread(target=lambda: answers.append(cached("hf_good"))) for _ in range(8)]
    for thread in threads:
        thread.start()
    gate.set()
    for thread in threads:
        thread.join(10)
    assert answers == [ALICE] * 8
    assert hub.calls["hf_good"] == 1
    assert cached._pending == {}


def test_a_failing_hub_leaves_nothing_behind_per_token() -> None:
    """Each token asked while the Hub fails left its in-flight lock in the cache for good:
    made-up tokens during an outage (no auth failure is counted for a 503) grew it without
    bound."""
    cache = CachedWhoAmI(Hub())
    for n in range(100):
        with pytest.raises(HubTransientError):
            cache(f"hf_down{n}")
    assert len(cache) == 0
    assert not cache._pending
