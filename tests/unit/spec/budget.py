"""Measure one call's CPU time and peak Python memory, for the "bounded cost" tests.

CPU time, not wall time: the cost is the work the input makes the parser do, which does not
grow when other processes share the cores (the suite runs on two workers beside servers).
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
    """Run `action` twice: timed (this process's CPU time) without tracing, then under
    tracemalloc for the peak."""
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
