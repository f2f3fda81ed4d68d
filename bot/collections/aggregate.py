"""The two-tier gate: each benchmark against its own threshold, then an aggregate of scores
mapped onto [0, 1] through their ranges, in exact rationals, independent of file order
(docs/collections.md, "Semantics", and "How this differs from EvalHub's code")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from bot.collections.model import Collection, CollectionBenchmark, exact


class Status(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_GATED = "not-gated"  # a score, but no per-benchmark threshold
    MISSING = "missing"  # no result for this benchmark, task, metric (and notes)
    AMBIGUOUS = "ambiguous"  # several results and no `notes:` chooses between them
    INVALID = "invalid"  # one result, but it fails validation or lies outside its scale


#: The diagnostic code of a score outside the range its benchmark's results are declared on.
OUT_OF_SCALE = "COLL-SCORE-RANGE"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a score was read: a results file and line, on main or in an open PR."""

    path: str
    line: int
    pr: int | None = None
    notes: str | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    """One result for a collection benchmark: its value, where it is, and why it is invalid.

    `value` is None when the entry holds no finite number for the metric; `problems` are the
    error codes validation gave the entry (a duplicate of another entry is not one of them:
    duplicates are the aggregate's to judge, as ambiguity).
    """

    value: float | None
    origin: Origin
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A results file of the view whose errors leave no entry to read: the first error."""

    origin: Origin
    code: str
    column: int | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """Every result the merged view holds for one collection benchmark."""

    candidates: tuple[Candidate, ...]


@dataclass(frozen=True, slots=True)
class BenchmarkResult:
    member: CollectionBenchmark
    status: Status
    score: float | None = None
    exact_normalised: Fraction | None = None  # on [0, 1]
    origin: Origin | None = None
    candidates: tuple[Candidate, ...] = ()
    problems: tuple[str, ...] = ()  # INVALID: the diagnostic codes

    @property
    def normalised(self) -> float | None:
        return None if self.exact_normalised is None else float(self.exact_normalised)

    @property
    def passed(self) -> bool | None:
        if self.status is Status.PASSED:
            return True
        if self.status is Status.FAILED:
            return False
        return None

    @property
    def margin(self) -> Fraction | None:
        """How far the score is past its threshold in the better direction (negative: short)."""
        if self.score is None or self.member.threshold is None:
            return None
        gap = exact(self.score) - exact(self.member.threshold)
        return -gap if self.member.lower_is_better else gap


class Why(StrEnum):
    """Why a collection does not pass, one per cause (`Reason.code`)."""

    BELOW = "below-threshold"
    NO_SCORE = "no-score"
    MISSING = "missing"
    AMBIGUOUS = "ambiguous"
    INVALID = "invalid"
    REQUIRE_ALL = "require-all"
    UNREADABLE = "unreadable"  # a results file no entry can be read from
    LEFT_OUT = "left-out"  # allow_missing: a benchmark skipped (not blocking, but said)
    COUNTED_ZERO = "counted-as-zero"  # missing_as_zero: a benchmark counted at its worst


@dataclass(frozen=True, slots=True)
class Reason:
    """One cause of the verdict; `benchmark` is the index of the benchmark it is about, `file`
    the index of the unreadable file."""

    code: Why
    blocking: bool
    benchmark: int | None = None
    gap: Fraction | None = None  # BELOW: threshold - aggregate, on the collection's scale
    file: int | None = None


@dataclass(frozen=True, slots=True)
class GateResult:
    collection: Collection
    benchmarks: tuple[BenchmarkResult, ...]
    exact_score: Fraction | None  # the aggregate on the collection's scale; None: nothing to add
    unreadable: tuple[Unreadable, ...] = ()

    @property
    def score(self) -> float | None:
        return None if self.exact_score is None else float(self.exact_score)

    @property
    def missing(self) -> tuple[BenchmarkResult, ...]:
        """Benchmarks without one usable result: missing, ambiguous or invalid."""
        return tuple(
            result
            for result in self.benchmarks
            if result.status in (Status.MISSING, Status.AMBIGUOUS, Status.INVALID)
        )

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def reasons(self) -> tuple[Reason, ...]:
        """Every cause of the verdict, blocking ones first in the collection's order."""
        collection = self.collection
        out: list[Reason] = []
        for index, result in enumerate(self.benchmarks):
            if result.status is Status.AMBIGUOUS:
                out.append(Reason(Why.AMBIGUOUS, True, index))
            elif result.status is Status.INVALID:
                out.append(Reason(Why.INVALID, True, index))
            elif result.status is Status.MISSING and not collection.allow_missing:
                out.append(Reason(Why.MISSING, True, index))
            elif result.status is Status.FAILED and collection.require_all:
                out.append(Reason(Why.REQUIRE_ALL, True, index))
        # An unreadable file may hold what is missing: then it blocks, else it is only said.
        absent = any(result.status is Status.MISSING for result in self.benchmarks)
        out.extend(Reason(Why.UNREADABLE, absent, file=i) for i in range(len(self.unreadable)))
        if self.exact_score is None:
            out.append(Reason(Why.NO_SCORE, True))
        elif self.exact_score < exact(collection.threshold):
            out.append(Reason(Why.BELOW, True, gap=exact(collection.threshold) - self.exact_score))
        for index, result in enumerate(self.benchmarks):
            if result.status is Status.MISSING and collection.allow_missing:
                why = Why.COUNTED_ZERO if collection.missing_as_zero else Why.LEFT_OUT
                out.append(Reason(why, False, index))
        return tuple(sorted(out, key=lambda reason: not reason.blocking))

    @property
    def passed(self) -> bool:
        """The collection-level verdict (the one `evalbot gate` exits on)."""
        return not any(reason.blocking for reason in self.reasons)


def weighted_score(parts: list[tuple[float, Fraction]], top: float) -> Fraction | None:
    """Σ w·n / Σ w over (weight, normalised score) pairs, on [0, top]; None when Σ w is 0."""
    total = sum((exact(weight) for weight, _score in parts), Fraction(0))
    if total <= 0:
        return None
    mean = sum((exact(weight) * score for weight, score in parts), Fraction(0)) / total
    return exact(top) * mean


def evaluate(
    collection: Collection,
    found: Mapping[int, Found],
    unreadable: Sequence[Unreadable] = (),
) -> GateResult:
    """The gate over `found`, keyed by the index of each benchmark in the collection, and the
    view's files that could not be read."""
    results: list[BenchmarkResult] = []
    parts: list[tuple[float, Fraction]] = []
    for index, member in enumerate(collection.benchmarks):
        hit = found.get(index)
        result = judge(member, hit.candidates if hit is not None else ())
        results.append(result)
        if member.weight <= 0:
            continue
        if result.exact_normalised is not None:
            parts.append((member.weight, result.exact_normalised))
        elif result.status is Status.MISSING and collection.missing_as_zero:
            parts.append((member.weight, Fraction(0)))
    return GateResult(
        collection,
        tuple(results),
        weighted_score(parts, collection.scale.top),
        tuple(sorted(unreadable, key=lambda item: (item.origin.path, item.origin.pr or 0))),
    )


def judge(member: CollectionBenchmark, candidates: tuple[Candidate, ...]) -> BenchmarkResult:
    """One benchmark's tier: missing, ambiguous, invalid, or its score against its threshold."""
    ordered = tuple(sorted(candidates, key=_place))
    if not ordered:
        return BenchmarkResult(member, Status.MISSING)
    if len(ordered) > 1:
        return BenchmarkResult(member, Status.AMBIGUOUS, candidates=ordered)
    (only,) = ordered
    if only.value is None or only.problems:
        return BenchmarkResult(
            member, Status.INVALID, origin=only.origin, candidates=ordered, problems=only.problems
        )
    if not member.in_range(only.value):
        return BenchmarkResult(
            member,
            Status.INVALID,
            score=only.value,
            origin=only.origin,
            candidates=ordered,
            problems=(OUT_OF_SCALE,),
        )
    verdict = member.passes(only.value)
    return BenchmarkResult(
        member,
        Status.NOT_GATED if verdict is None else Status.PASSED if verdict else Status.FAILED,
        score=only.value,
        exact_normalised=member.exact_normalised(only.value),
        origin=only.origin,
        candidates=ordered,
    )


def _place(candidate: Candidate) -> tuple[str, int, int]:
    """Sources in reading order: path, line, then main (-1) before PRs by number."""
    origin = candidate.origin
    return origin.path, origin.line, -1 if origin.pr is None else origin.pr
