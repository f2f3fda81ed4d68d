"""Line charts of the status figures over the last hour, as SVG drawn on the server
(docs/web.md, "Status and operators"). Pure."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.web.live import WINDOW_S, Sample

WIDTH = 300
HEIGHT = 80
#: The plot area inside the viewBox: room on the left for the scale, below for the times.
LEFT = 28
TOP = 6
BOTTOM = HEIGHT - 16
#: Retries that are no error: waiting for a PR another run holds (`busy`), and the Hub's
#: rate limit being obeyed (`hub-throttled`, not a failure: docs/operating.md).
HARMLESS_RETRIES = frozenset({"busy", "hub-throttled"})
TIME_TICKS_MIN = (60, 45, 30, 15, 0)


@dataclass(frozen=True, slots=True)
class Tick:
    at: float  # x or y in the viewBox
    label: str


@dataclass(frozen=True, slots=True)
class Chart:
    title: str
    unit: str
    points: str  # "x,y x,y ..." in the viewBox 0 0 WIDTH HEIGHT; empty without data
    latest: float | None
    peak: float
    dots: tuple[tuple[float, float], ...] = ()  # one per point: a lone sample still shows
    x_ticks: tuple[Tick, ...] = ()
    y_ticks: tuple[Tick, ...] = ()
    samples: int = 0

    @property
    def empty(self) -> bool:
        return not self.dots


Series = Callable[[Sequence[Sample]], list[tuple[float, float]]]


def _gauge(read: Callable[[Sample], float]) -> Series:
    def series(samples: Sequence[Sample]) -> list[tuple[float, float]]:
        return [(s.at, read(s)) for s in samples]

    return series


def _rate(family: str, excluding: frozenset[str] = frozenset()) -> Series:
    def series(samples: Sequence[Sample]) -> list[tuple[float, float]]:
        points: list[tuple[float, float]] = []
        for before, after in itertools.pairwise(samples):
            elapsed = after.at - before.at
            if elapsed <= 0:
                continue
            delta = max(
                0,
                after.total(family, excluding=excluding)
                - before.total(family, excluding=excluding),
            )
            points.append((after.at, delta * 60 / elapsed))
        return points

    return series


def _errors(samples: Sequence[Sample]) -> list[tuple[float, float]]:
    retries = _rate("retry", HARMLESS_RETRIES)(samples)
    parked = _rate("parked")(samples)
    return [(at, r + p) for (at, r), (_at, p) in zip(retries, parked, strict=True)]


CHARTS: tuple[tuple[str, str, Series], ...] = (
    ("Queue", "events waiting", _gauge(lambda s: s.snapshot.queue_length)),
    ("In flight", "events running or awaiting a retry", _gauge(lambda s: s.snapshot.unacked)),
    ("Runs", "finished runs per minute", _rate("outcome")),
    ("Errors", "failed runs retried or parked per minute (waits for a busy PR excluded)", _errors),
    ("Parked", "events on the parked list", _gauge(lambda s: s.snapshot.dead_letters)),
    ("Hub pause", "seconds left", _gauge(lambda s: s.snapshot.hub_paused_s)),
)


def build_charts(samples: Sequence[Sample], now: float) -> list[Chart]:
    return [_chart(title, unit, series(samples), now) for title, unit, series in CHARTS]


def nice_ceiling(value: float) -> float:
    """The scale's top: 1, 2 or 5 times a power of ten, at least `value` (1 for nothing)."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return float(next(step * power for step in (1, 2, 5, 10) if step * power >= value))


def _chart(title: str, unit: str, points: list[tuple[float, float]], now: float) -> Chart:
    start = now - WINDOW_S
    x_ticks = tuple(
        Tick(_x(now - minutes * 60, start), "now" if minutes == 0 else f"-{minutes} min")
        for minutes in TIME_TICKS_MIN
    )
    shown = [(at, value) for at, value in points if at >= start]
    if not shown:
        return Chart(title, unit, "", None, 0.0, x_ticks=x_ticks)
    peak = max(value for _at, value in shown)
    top = nice_ceiling(peak)
    y_ticks = (Tick(float(BOTTOM), "0"), Tick(float(TOP), _number(top)))
    dots = tuple(
        (round(_x(at, start), 1), round(BOTTOM - (value / top) * (BOTTOM - TOP), 1))
        for at, value in shown
    )
    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in dots) if len(dots) > 1 else ""
    return Chart(
        title, unit, coords, shown[-1][1], peak, dots, x_ticks, y_ticks, samples=len(shown)
    )


def _x(at: float, start: float) -> float:
    return LEFT + max(0.0, min(1.0, (at - start) / WINDOW_S)) * (WIDTH - LEFT - 4)


def _number(value: float) -> str:
    return f"{value:g}"
