"""Small line charts of the status figures over the last hour, as SVG drawn on the server.

Pure: samples in, `Chart`s out (the template draws each as one `<polyline>`). Gauges (queue,
in flight, parked) are charted as read; counters (runs, retries, parked) as a rate per minute
between consecutive samples, so a restart of the counters (a Redis flush) shows as 0, never
as a negative rate.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.web.live import WINDOW_S, Sample

WIDTH = 300
HEIGHT = 80


@dataclass(frozen=True, slots=True)
class Chart:
    title: str
    unit: str
    points: str  # "x,y x,y ..." in the viewBox 0 0 WIDTH HEIGHT; empty without data
    latest: float | None
    peak: float

    @property
    def empty(self) -> bool:
        return not self.points


Series = Callable[[Sequence[Sample]], list[tuple[float, float]]]


def _gauge(read: Callable[[Sample], float]) -> Series:
    def series(samples: Sequence[Sample]) -> list[tuple[float, float]]:
        return [(s.at, read(s)) for s in samples]

    return series


def _rate(family: str) -> Series:
    def series(samples: Sequence[Sample]) -> list[tuple[float, float]]:
        points: list[tuple[float, float]] = []
        for before, after in itertools.pairwise(samples):
            elapsed = after.at - before.at
            if elapsed <= 0:
                continue
            delta = max(0, after.total(family) - before.total(family))
            points.append((after.at, delta * 60 / elapsed))
        return points

    return series


def _errors(samples: Sequence[Sample]) -> list[tuple[float, float]]:
    retries, parked = _rate("retry")(samples), _rate("parked")(samples)
    return [(at, r + p) for (at, r), (_at, p) in zip(retries, parked, strict=True)]


CHARTS: tuple[tuple[str, str, Series], ...] = (
    ("Queue", "events waiting", _gauge(lambda s: s.snapshot.queue_length)),
    ("In flight", "events running or awaiting a retry", _gauge(lambda s: s.snapshot.unacked)),
    ("Runs", "finished runs per minute", _rate("outcome")),
    ("Errors", "retries + parked per minute", _errors),
    ("Parked", "events on the parked list", _gauge(lambda s: s.snapshot.dead_letters)),
    ("Hub pause", "seconds left", _gauge(lambda s: s.snapshot.hub_paused_s)),
)


def build_charts(samples: Sequence[Sample], now: float) -> list[Chart]:
    return [_chart(title, unit, series(samples), now) for title, unit, series in CHARTS]


def _chart(title: str, unit: str, points: list[tuple[float, float]], now: float) -> Chart:
    if not points:
        return Chart(title, unit, "", None, 0.0)
    peak = max(value for _at, value in points)
    scale = peak if peak > 0 else 1.0
    # The last hour, or less while the samples span less: a fresh bot's first minutes fill
    # the chart instead of hugging its right edge.
    start = max(now - WINDOW_S, points[0][0])
    span = max(now - start, 1.0)
    coords = []
    for at, value in points:
        x = max(0.0, min(1.0, (at - start) / span)) * WIDTH
        y = HEIGHT - 4 - (value / scale) * (HEIGHT - 8)
        coords.append(f"{x:.1f},{y:.1f}")
    if len(coords) == 1:  # one point: a short flat stroke, so it shows
        x_text, y_text = coords[0].split(",")
        coords.insert(0, f"{max(0.0, float(x_text) - 4):.1f},{y_text}")
    return Chart(title, unit, " ".join(coords), points[-1][1], peak)
