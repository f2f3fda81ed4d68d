"""Shared timing helpers for the benchmark scripts: medians of repeated runs, printed plainly.

Benchmarks print figures; they never assert on them (speed is measured, not tested).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import NamedTuple


def median_seconds(
    action: Callable[[], object],
    *,
    repeat: int = 5,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median time of `action` over `repeat` runs, after `warmup` untimed runs: wall time, or
    with `clock=time.process_time` the process's CPU time (steadier on a shared machine)."""
    for _ in range(warmup):
        action()
    samples: list[float] = []
    for _ in range(repeat):
        started = clock()
        action()
        samples.append(clock() - started)
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


class ProcessStat(NamedTuple):
    """One process, as /proc/PID/stat tells it."""

    parent: int
    cpu_s: float  # user + system, so far
    rss_bytes: int


def processes() -> dict[int, ProcessStat]:
    """Every live process (Linux: reads /proc), by pid."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    page = os.sysconf("SC_PAGE_SIZE")
    found: dict[int, ProcessStat] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited while we looked
        found[int(name)] = ProcessStat(
            parent=int(fields[1]),
            cpu_s=(int(fields[11]) + int(fields[12])) / tick,
            rss_bytes=int(fields[21]) * page,
        )
    return found


def process_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by process `pid` alone, all its threads."""
    stat = processes().get(pid)
    return stat.cpu_s if stat is not None else 0.0


def process_tree_cpu_s(root: int, *, exclude: frozenset[int] = frozenset()) -> float:
    """CPU seconds (user + system) used so far by process `root` and its live descendants,
    leaving out the subtrees rooted at `exclude` (processes counted on a line of their own).

    Linux only (reads /proc). Children that already exited are not counted, which suits the
    long-lived processes of a stack (a Celery worker's pool children live as long as it does).
    """
    live = processes()
    total = 0.0
    pending = [root]
    while pending:
        pid = pending.pop()
        if pid in live:
            total += live[pid].cpu_s
        pending.extend(
            child for child, stat in live.items() if stat.parent == pid and child not in exclude
        )
    return total
