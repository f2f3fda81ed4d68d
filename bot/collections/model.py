"""What a checked collection is: plain, frozen data, each benchmark with its range and direction
resolved once at validation, so the aggregate never guesses a scale."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache


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


@lru_cache(maxsize=4096)  # bounds, weights and thresholds recur in every gate run
def exact(value: float) -> Fraction:
    """The decimal a YAML number was written as, as an exact rational.

    A YAML float is read into a binary double, whose shortest repr is the decimal written (up
    to the 15-17 significant digits a double holds). Comparing and averaging those decimals
    exactly is what makes a score equal to its threshold pass: 0.57 on a 0-1 metric is 57 on a
    percent aggregate, where float arithmetic gives 56.99999999999999.
    """
    return Fraction(repr(float(value)))


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
    reference: bool = False  # `low`/`high` are reference bounds (clamped), not the metric's range

    def normalised(self, score: float) -> float:
        """The score on [0, 1] as a float, for drawing (the gate uses `exact_normalised`)."""
        return float(self.exact_normalised(score))

    def exact_normalised(self, score: float) -> Fraction:
        """The score on [0, 1]: 0 at the worst bound, 1 at the best; clamped only when the
        bounds are reference bounds (a score outside a declared range is refused earlier)."""
        low, high = exact(self.low), exact(self.high)
        position = (exact(score) - low) / (high - low)
        if self.lower_is_better:
            position = 1 - position
        return min(Fraction(1), max(Fraction(0), position))

    def in_range(self, score: float) -> bool:
        """Whether `score` lies on the declared range (always, for reference bounds)."""
        return self.reference or exact(self.low) <= exact(score) <= exact(self.high)

    def passes(self, score: float) -> bool | None:
        """The benchmark's own verdict, compared exactly at the written precision."""
        if self.threshold is None:
            return None
        value, bar = exact(score), exact(self.threshold)
        return value <= bar if self.lower_is_better else value >= bar


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
    missing_as_zero: bool = False  # a missing benchmark counts as the worst score, not skipped
    content_hash: str | None = None  # `sha256:<hex>` of the file's bytes: which version gated
