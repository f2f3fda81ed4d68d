"""Shared timing helpers for the benchmark scripts: medians of repeated runs, printed plainly.

Benchmarks print figures; they never assert on them (speed is measured, not tested).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(action: Callable[[], object], *, repeat: int = 5, warmup: int = 1) -> float:
    """Median wall time of `action` over `repeat` runs, after `warmup` untimed runs."""
    for _ in range(warmup):
        action()
    samples: list[float] = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def percentile(samples: list[float], fraction: float) -> float:
    """The `fraction` quantile (0..1) of `samples` by nearest rank; samples need not be sorted."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))
    return ordered[rank]


def report(label: str, value: float, unit: str) -> None:
    print(f"{label:<58} {value:>14,.2f} {unit}")
