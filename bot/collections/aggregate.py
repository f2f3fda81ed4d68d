"""The two-tier gate: each benchmark against its own threshold, then a scale-safe aggregate.

Why not EvalHub's `Σ w·s / Σ w` over raw scores: it only means something when every score is on
the same 0-1 scale, and its lower-is-better term `w·(1 - s)` turns a perplexity of 8 into -7·w.
Here every score is first mapped onto [0, 1] through the range its benchmark's results are on
(0 at the worst bound, 1 at the best, clamped), so percent and fraction metrics, lower-is-better
and unbounded ones (through declared reference bounds) all weigh alike; the aggregate is then
shown on the collection's declared scale. A collection whose ranges are unknown never gets here
(`bot.collections.check` refuses it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from bot.collections.model import Collection, CollectionBenchmark


class Status(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_GATED = "not-gated"  # a score, but no per-benchmark threshold
    MISSING = "missing"  # no valid result for this benchmark, task, metric (and notes)
    AMBIGUOUS = "ambiguous"  # several results disagree and no `notes:` chooses between them


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a score was read: a results file and line, on main or in an open PR."""

    path: str
    line: int
    pr: int | None = None
    notes: str | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """What the results hold for one collection benchmark: one score, or several that disagree."""

    candidates: tuple[tuple[float, Origin], ...]

    @property
    def score(self) -> float | None:
        """The score when every candidate agrees on it; None when there are none or they differ."""
        values = {value for value, _origin in self.candidates}
        return values.pop() if len(values) == 1 else None


@dataclass(frozen=True, slots=True)
class BenchmarkResult:
    member: CollectionBenchmark
    status: Status
    score: float | None = None
    normalised: float | None = None  # on [0, 1]
    origin: Origin | None = None
    candidates: tuple[tuple[float, Origin], ...] = ()

    @property
    def passed(self) -> bool | None:
        if self.status is Status.PASSED:
            return True
        if self.status is Status.FAILED:
            return False
        return None


@dataclass(frozen=True, slots=True)
class GateResult:
    collection: Collection
    benchmarks: tuple[BenchmarkResult, ...]
    score: float | None  # the aggregate on the collection's scale; None: nothing to aggregate

    @property
    def missing(self) -> tuple[BenchmarkResult, ...]:
        return tuple(
            result
            for result in self.benchmarks
            if result.status in (Status.MISSING, Status.AMBIGUOUS)
        )

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def passed(self) -> bool:
        """The collection-level verdict (the one `evalbot gate` exits on)."""
        if self.score is None or self.score < self.collection.threshold:
            return False
        if not self.complete and not self.collection.allow_missing:
            return False
        return not (
            self.collection.require_all
            and any(result.status is Status.FAILED for result in self.benchmarks)
        )


def weighted_score(parts: list[tuple[float, float]], top: float) -> float | None:
    """Σ w·n / Σ w over (weight, normalised score) pairs, on [0, top]; None when Σ w is 0."""
    total = sum(weight for weight, _score in parts)
    if total <= 0:
        return None
    mean = sum(weight * score for weight, score in parts) / total
    return top * min(1.0, max(0.0, mean))  # a weighted mean of [0, 1] values, ulps aside


def evaluate(collection: Collection, found: Mapping[int, Found]) -> GateResult:
    """The gate over `found`, keyed by the index of each benchmark in the collection."""
    results: list[BenchmarkResult] = []
    parts: list[tuple[float, float]] = []
    for index, member in enumerate(collection.benchmarks):
        hit = found.get(index)
        if hit is None or not hit.candidates:
            results.append(BenchmarkResult(member, Status.MISSING))
            continue
        score = hit.score
        if score is None:
            results.append(BenchmarkResult(member, Status.AMBIGUOUS, candidates=hit.candidates))
            continue
        normalised = member.normalised(score)
        if member.weight > 0:
            parts.append((member.weight, normalised))
        verdict = member.passes(score)
        status = Status.NOT_GATED if verdict is None else _status(verdict)
        results.append(
            BenchmarkResult(
                member,
                status,
                score=score,
                normalised=normalised,
                origin=hit.candidates[-1][1],
                candidates=hit.candidates,
            )
        )
    return GateResult(collection, tuple(results), weighted_score(parts, collection.scale.top))


def _status(passed: bool) -> Status:
    return Status.PASSED if passed else Status.FAILED
