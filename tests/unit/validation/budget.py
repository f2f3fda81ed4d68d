"""Measure one call's CPU time and peak Python memory, for the "bounded cost" tests.

CPU time of this process, not wall time: the bound is on the work hostile input can cause,
which other load on the machine does not change.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

MAX_SECONDS = 1.0
MAX_BYTES = 100 * 1024 * 1024


@dataclass(frozen=True)
class Cost:
    seconds: float
    peak_bytes: int


def measure(action: Callable[[], T]) -> tuple[T, Cost]:
    """Run `action` twice: its CPU time without tracing, then under tracemalloc for the peak."""
    started = time.process_time()
    result = action()
    seconds = time.process_time() - started
    tracemalloc.start()
    try:
        action()
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, Cost(seconds=seconds, peak_bytes=peak)


def within_budget(cost: Cost) -> bool:
    return cost.seconds < MAX_SECONDS and cost.peak_bytes < MAX_BYTES
