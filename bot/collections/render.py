"""The gate's outputs, pure: text, JSON with EvalHub's field names plus what this gate also
knows, and `reason_text`, the one wording of why a verdict is what it is (docs/collections.md,
"`evalbot gate`")."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from bot.collections.aggregate import (
    OUT_OF_SCALE,
    BenchmarkResult,
    Candidate,
    GateResult,
    Origin,
    Reason,
    Status,
    Why,
)
from bot.collections.model import CollectionBenchmark

#: Decimals an aggregate is printed with in text; JSON carries `JSON_DECIMALS`.
AGGREGATE_DECIMALS = 2
JSON_DECIMALS = 6

_MARK = {
    Status.PASSED: "✓",
    Status.FAILED: "✗",
    Status.NOT_GATED: "·",
    Status.MISSING: "?",
    Status.AMBIGUOUS: "?",
    Status.INVALID: "✗",
}


def to_json(
    result: GateResult, target: str, tags: Mapping[str, str] | None = None
) -> dict[str, Any]:
    collection = result.collection
    return {
        "status": "completed" if result.complete else "incomplete",
        "collection_id": collection.id,
        "collection_name": collection.name,
        "collection_version": collection.version,
        "collection_hash": collection.content_hash,
        "scope": collection.scope.value,
        "target": target,
        "tags": dict(tags or {}),
        "scale": collection.scale.value,
        "collection_score": _rounded(result.exact_score),
        "pass_criteria": {
            "threshold": collection.threshold,
            "passed": result.passed,
            "allow_missing": collection.allow_missing,
            "missing_as_zero": collection.missing_as_zero,
            "require_all": collection.require_all,
        },
        "reasons": [
            {
                "code": reason.code.value,
                "blocking": reason.blocking,
                "benchmark": None
                if reason.benchmark is None
                else _member_key(result.benchmarks[reason.benchmark].member),
                "file": None
                if reason.file is None
                else _origin_json(result.unreadable[reason.file].origin),
                "message": reason_text(result, reason),
            }
            for reason in result.reasons
        ],
        "benchmark_results": [_benchmark_json(item, result) for item in result.benchmarks],
        "missing": [_member_key(item.member) for item in result.missing],
    }


def _member_key(member: CollectionBenchmark) -> dict[str, Any]:
    return {
        "id": member.id,
        "task_id": member.task_id,
        "metric": member.metric,
        "notes": member.notes,
    }


def _rounded(value: Fraction | None) -> float | None:
    return None if value is None else float(round(value, JSON_DECIMALS))


def _benchmark_json(item: BenchmarkResult, result: GateResult) -> dict[str, Any]:
    member = item.member
    top = Fraction(repr(result.collection.scale.top))
    return {
        **_member_key(member),
        "score": item.score,
        "normalized_score": None
        if item.exact_normalised is None
        else _rounded(item.exact_normalised * top),
        "threshold": member.threshold,
        "lower_is_better": member.lower_is_better,
        "weight": member.weight,
        "passed": item.passed,
        "status": item.status.value,
        "problems": list(item.problems),
        "source": None if item.origin is None else _origin_json(item.origin),
        "candidates": [
            {"score": candidate.value, **_origin_json(candidate.origin)}
            for candidate in item.candidates
        ]
        if item.status is Status.AMBIGUOUS
        else [],
    }


def _origin_json(origin: Origin) -> dict[str, Any]:
    return {"path": origin.path, "line": origin.line, "pr": origin.pr}


def verdict_line(result: GateResult) -> str:
    """`FAIL  80.00 / 100 (pass at 75): …`: the collection tier and its first blocking reason."""
    collection = result.collection
    word = "PASS" if result.passed else "FAIL"
    line = (
        f"{word}  {aggregate_text(result)} / {collection.scale.top:g} "
        f"(pass at {collection.threshold:g})"
    )
    blocking = [reason for reason in result.reasons if reason.blocking]
    if blocking:
        line += ": " + reason_text(result, blocking[0])
        if len(blocking) > 1:
            line += f" (and {len(blocking) - 1} more)"
    return line


def aggregate_text(result: GateResult) -> str:
    if result.exact_score is None:
        return "no score"
    return f"{float(result.exact_score):.{AGGREGATE_DECIMALS}f}"


def reason_text(result: GateResult, reason: Reason) -> str:
    """One reason in words, naming the benchmark, its sources and the amounts involved."""
    collection = result.collection
    if reason.code is Why.BELOW:
        assert reason.gap is not None
        return (
            f"the aggregate {aggregate_text(result)} is below the pass threshold "
            f"{collection.threshold:g} by {amount(reason.gap)}"
        )
    if reason.code is Why.NO_SCORE:
        return "no benchmark with a positive weight has a usable result, so there is no aggregate"
    if reason.code is Why.UNREADABLE:
        assert reason.file is not None
        file = result.unreadable[reason.file]
        place = where(file.origin) + (f":{file.column}" if file.column else "")
        consequence = (
            "a missing benchmark may be in it"
            if reason.blocking
            else "no benchmark of the collection is missing"
        )
        return (
            f"{place} could not be read ({file.code}; `evalbot validate` says why): {consequence}"
        )
    assert reason.benchmark is not None
    item = result.benchmarks[reason.benchmark]
    name = member_name(item.member)
    if reason.code is Why.MISSING:
        return f"{name} has no result (add one, or set `pass_criteria.allow_missing: true`)"
    if reason.code is Why.LEFT_OUT:
        return f"{name} has no result and is left out of the aggregate (allow_missing)"
    if reason.code is Why.COUNTED_ZERO:
        return f"{name} has no result and counts as its worst score, 0 (missing_as_zero)"
    if reason.code is Why.AMBIGUOUS:
        return (
            f"{name} has {len(item.candidates)} results and no `notes:` chooses between them: "
            + ", ".join(_candidate(candidate) for candidate in item.candidates)
        )
    if reason.code is Why.INVALID:
        return invalid_text(item)
    margin = item.margin
    assert item.score is not None
    assert margin is not None
    assert item.origin is not None
    return (
        f"{name} scores {item.score:g}, short of its threshold {_bar(item.member)} by "
        f"{amount(-margin)} [{where(item.origin)}], and require_all is set"
    )


def invalid_text(item: BenchmarkResult) -> str:
    name = member_name(item.member)
    assert item.origin is not None
    place = where(item.origin)
    if OUT_OF_SCALE in item.problems and item.score is not None:
        member = item.member
        return (
            f"{name}: {item.score:g} [{place}] is outside [{member.low:g}, {member.high:g}], "
            f"the range its results are on ({OUT_OF_SCALE}; values are refused, not clamped)"
        )
    codes = ", ".join(item.problems) or "no finite number for the metric"
    return f"{name}: the result at {place} is invalid ({codes}; `evalbot validate` says why)"


def amount(value: Fraction) -> str:
    """A positive gap with 2 decimals, or 2 significant digits when it would print as 0.00."""
    shown = f"{float(value):.{AGGREGATE_DECIMALS}f}"
    return shown if float(shown) > 0 else f"{float(value):.2g}"


def render_text(result: GateResult, target: str) -> str:
    collection = result.collection
    version = f", version {collection.version}" if collection.version else ""
    out = [
        f"{collection.id} ({collection.name}{version}, {collection.scope.value}) on {target}",
        f"  {verdict_line(result)}",
    ]
    reasons = result.reasons
    if reasons:
        out.append("  why:")
        out.extend(
            f"    {'-' if reason.blocking else '·'} {reason_text(result, reason)}"
            for reason in reasons
        )
    out.extend("  " + benchmark_line(item) for item in result.benchmarks)
    if collection.content_hash:
        out.append(f"  collection {collection.content_hash}")
    return "\n".join(out)


def member_name(member: CollectionBenchmark) -> str:
    name = f"{member.id} / {member.task_id}"
    if member.metric != "value":
        name += f" / {member.metric}"
    if member.notes:
        name += f" ({member.notes})"
    return name


def _bar(member: CollectionBenchmark) -> str:
    if member.threshold is None:
        return ""
    return f"{'≤' if member.lower_is_better else '≥'} {member.threshold:g}"


def _candidate(candidate: Candidate) -> str:
    value = "invalid" if candidate.value is None else f"{candidate.value:g}"
    return f"{value} ({where(candidate.origin)})"


def benchmark_line(item: BenchmarkResult) -> str:
    member = item.member
    name = member_name(member)
    bar = f" {_bar(member)}" if member.threshold is not None else ""
    mark = _MARK[item.status]
    if item.status is Status.MISSING:
        return f"{mark} {name}: missing (needs{bar or ' a result'})"
    if item.status is Status.AMBIGUOUS:
        values = ", ".join(_candidate(candidate) for candidate in item.candidates)
        return f"{mark} {name}: ambiguous, {len(item.candidates)} results: {values}"
    if item.status is Status.INVALID:
        return f"{mark} {invalid_text(item)}"
    assert item.score is not None
    assert item.origin is not None
    return (
        f"{mark} {name}: {item.score:g}{bar} {item.status.value}, "
        f"weight {member.weight:g} [{where(item.origin)}]"
    )


def where(origin: Origin) -> str:
    """`path:line`, or `PR #n path:line` for a score read from an open PR."""
    place = f"{origin.path}:{origin.line}"
    return f"PR #{origin.pr} {place}" if origin.pr is not None else place
