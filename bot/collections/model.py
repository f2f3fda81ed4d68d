"""What a checked collection is: plain, frozen data the aggregate and the outputs read.

Every benchmark carries the range its results are reported on (`low`, `high`) and its
direction, resolved once at validation from the benchmark's eval.yaml and the collection's own
`scale`/`bounds`. So the aggregate never guesses a scale: a collection whose benchmarks have no
known range is refused before any score is read (`COLL-SCALE-UNKNOWN`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Scale(StrEnum):
    """The scale of the collection's aggregate (and a shorthand for a benchmark's range)."""

    PERCENT = "percent"  # 0-100
    FRACTION = "fraction"  # 0-1

    @property
    def top(self) -> float:
        return 100.0 if self is Scale.PERCENT else 1.0


class Scope(StrEnum):
    """System collections ship with evalbot and are read-only; user ones live in a user folder."""

    SYSTEM = "system"
    USER = "user"


#: The metric id a live entry's scalar `value` stands for when the benchmark declares none.
VALUE_METRIC = "value"


@dataclass(frozen=True, slots=True)
class CollectionBenchmark:
    """One benchmark of a collection, resolved against its eval.yaml.

    `low`/`high` bound the raw scores; for a lower-is-better metric `low` is the best. `metric`
    is the benchmark's metric id (`value` when it declares none). `threshold` is on the raw
    scale of the results (what the model card shows); None: no per-benchmark gate.
    """

    id: str  # canonical Hub benchmark id
    task_id: str
    metric: str
    weight: float
    lower_is_better: bool
    low: float
    high: float
    threshold: float | None = None
    notes: str | None = None  # selects among a repo's entries for the same task
    line: int | None = None

    def normalised(self, score: float) -> float:
        """The score on [0, 1]: 0 at the worst reference bound, 1 at the best; clamped."""
        span = self.high - self.low
        position = (score - self.low) / span
        if self.lower_is_better:
            position = 1.0 - position
        return min(1.0, max(0.0, position))

    def passes(self, score: float) -> bool | None:
        if self.threshold is None:
            return None
        return score <= self.threshold if self.lower_is_better else score >= self.threshold


@dataclass(frozen=True, slots=True)
class Collection:
    """A checked collection. `threshold` is on `scale`; `allow_missing` lets it pass incomplete."""

    id: str
    name: str
    category: str
    benchmarks: tuple[CollectionBenchmark, ...]
    threshold: float
    scale: Scale = Scale.PERCENT
    description: str | None = None
    tags: tuple[str, ...] = ()
    version: str | None = None
    allow_missing: bool = False
    require_all: bool = False
    scope: Scope = Scope.USER
