"""The issuer's benchmark lookups over a counting fake: one Hub lookup per (benchmark,
revision) per TTL, found or not found, Hub failures never kept, bounded, one call for
concurrent misses."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from bot.hub.errors import HubTransientError
from bot.issuer.lookups import CachedLookups
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import Benchmark, BenchmarkLookup, BenchmarkNotFound

MISSING = BenchmarkNotFound("cais/hle", "revision '0000' not found")


class Hub:
    """Every lookup is a miss (`BenchmarkNotFound`), except `down/*`, whose Hub fails, and
    `read/*` and `invalid/*`, whose eval.yaml is read (a benchmark, or its problems)."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.calls: Counter[tuple[str, str | None]] = Counter()
        self.gate = gate
        self._lock = threading.Lock()

    def __call__(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        with self._lock:
            self.calls[(dataset_id, revision)] += 1
        if self.gate is not None:
            assert self.gate.wait(10)
        if dataset_id.startswith("down/"):
            raise HubTransientError("the Hub is down", status=503)
        if dataset_id.startswith("read/"):
            return Benchmark(repo_id=dataset_id, tasks=())
        if dataset_id.startswith("invalid/"):
            return BenchmarkNotFound(dataset_id, "eval.yaml invalid", (PROBLEM,))
        return BenchmarkNotFound(dataset_id, f"revision {revision!r} not found")


PROBLEM = Diagnostic("BENCHMARK-TASKS", Severity.ERROR, "eval.yaml has no tasks")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_lookup_not_found_is_kept_until_it_expires() -> None:
    hub, clock = Hub(), Clock()
    lookups = CachedLookups(hub, ttl_s=300, clock=clock)
    answers = [lookups.lookup("cais/hle", "0" * 40) for _ in range(50)]
    assert all(isinstance(a, BenchmarkNotFound) for a in answers)
    assert sum(hub.calls.values()) == 1
    lookups.lookup("CAIS/HLE", "0" * 40)  # Hub ids compare case-insensitively
    clock.now += 299.9
    lookups.lookup("cais/hle", "0" * 40)
    assert sum(hub.calls.values()) == 1
    clock.now += 0.1
    lookups.lookup("cais/hle", "0" * 40)
    assert sum(hub.calls.values()) == 2
    lookups.lookup("cais/hle", "1" * 40)
    assert sum(hub.calls.values()) == 3


def test_a_failing_hub_is_not_kept() -> None:
    hub = Hub()
    lookups = CachedLookups(hub)
    for _ in range(3):
        with pytest.raises(HubTransientError):
            lookups.lookup("down/x", None)
    assert hub.calls[("down/x", None)] == 3
    assert len(lookups) == 0


def test_made_up_keys_cannot_grow_it_past_its_capacity() -> None:
    lookups = CachedLookups(Hub(), capacity=10)
    for n in range(100):
        lookups.lookup(f"x/b{n}", None)
    assert len(lookups) == 10


def test_concurrent_misses_for_one_key_make_one_call() -> None:
    gate = threading.Event()
    hub = Hub(gate)
    lookups = CachedLookups(hub)
    threads = [
        threading.Thread(target=lookups.lookup, args=("cais/hle", "0" * 40)) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    gate.set()
    for thread in threads:
        thread.join(10)
    assert hub.calls[("cais/hle", "0" * 40)] == 1


def test_what_an_eval_yaml_was_read_into_is_kept_for_fewer_keys() -> None:
    """Each read eval.yaml can weigh megabytes, and each commit of a benchmark repo is a key:
    a caller allowed any benchmark could make the issuer hold thousands of them. Answers that
    read nothing stay."""
    hub = Hub()
    lookups = CachedLookups(hub)
    lookups.lookup("cais/hle", "0" * 40)
    for n in range(400):
        lookups.lookup("read/b", f"{n:040x}")
        lookups.lookup("invalid/b", f"{n:040x}")
    assert len(lookups) <= 257
    lookups.lookup("cais/hle", "0" * 40)
    lookups.lookup("read/b", f"{399:040x}")
    assert hub.calls[("cais/hle", "0" * 40)] == 1
    assert hub.calls[("read/b", f"{399:040x}")] == 1
    lookups.lookup("read/b", f"{0:040x}")
    assert hub.calls[("read/b", f"{0:040x}")] == 2


def test_an_id_or_revision_no_hub_could_have_is_neither_asked_nor_kept() -> None:
    """The key holds the id and the revision, as long as the caller's request allows (256 KiB):
    thousands kept would hold gigabytes. The issuer signs only 40-hex SHAs."""
    hub = Hub()
    lookups = CachedLookups(hub)
    for n in range(20):
        found = lookups.lookup("cais/hle", f"{n}" + "r" * 100_000)
        assert isinstance(found, BenchmarkNotFound)
        found = lookups.lookup(f"cais/{n}" + "h" * 100_000, None)
        assert isinstance(found, BenchmarkNotFound)
    assert len(lookups) == 0
    assert sum(hub.calls.values()) == 0
    lookups.lookup("cais/hle", "refs/heads/" + "b" * 200)
    lookups.lookup("cais/" + "h" * 150, None)
    assert len(lookups) == 2
