"""The gate's outputs: text and JSON with EvalHub's field names (annotations: `bot.cli.gate`). Pure.

JSON follows EvalHub's published result (`collection_id`, `collection_score`,
`pass_criteria.{threshold, passed}`, `benchmark_results[].{id, score, threshold, passed}`) and
adds what a scale-safe, Hub-backed gate also knows: the task and metric, the score on the
collection's scale, the weight, a status (`missing`, `ambiguous`...) and where the score was read.
"""

from __future__ import annotations

from typing import Any

from bot.collections.aggregate import BenchmarkResult, GateResult, Origin, Status

_MARK = {
    Status.PASSED: "✓",
    Status.FAILED: "✗",
    Status.NOT_GATED: "·",
    Status.MISSING: "?",
    Status.AMBIGUOUS: "?",
}


def to_json(result: GateResult, target: str) -> dict[str, Any]:
    collection = result.collection
    return {
        "status": "completed" if result.complete else "incomplete",
        "collection_id": collection.id,
        "collection_name": collection.name,
        "collection_version": collection.version,
        "scope": collection.scope.value,
        "target": target,
        "scale": collection.scale.value,
        "collection_score": result.score,
        "pass_criteria": {
            "threshold": collection.threshold,
            "passed": result.passed,
            "allow_missing": collection.allow_missing,
            "require_all": collection.require_all,
        },
        "benchmark_results": [_benchmark_json(item, result) for item in result.benchmarks],
        "missing": [
            {"id": item.member.id, "task_id": item.member.task_id, "metric": item.member.metric}
            for item in result.missing
        ],
    }


def _benchmark_json(item: BenchmarkResult, result: GateResult) -> dict[str, Any]:
    member = item.member
    top = result.collection.scale.top
    return {
        "id": member.id,
        "task_id": member.task_id,
        "metric": member.metric,
        "notes": member.notes,
        "score": item.score,
        "normalized_score": None if item.normalised is None else item.normalised * top,
        "threshold": member.threshold,
        "lower_is_better": member.lower_is_better,
        "weight": member.weight,
        "passed": item.passed,
        "status": item.status.value,
        "source": None
        if item.origin is None
        else {"path": item.origin.path, "line": item.origin.line, "pr": item.origin.pr},
        "candidates": [
            {"score": score, "path": origin.path, "line": origin.line, "pr": origin.pr}
            for score, origin in item.candidates
        ]
        if item.status is Status.AMBIGUOUS
        else [],
    }


def verdict_line(result: GateResult) -> str:
    """`PASS 78.00 / 100 (pass at 38)`: the collection tier in one line."""
    collection = result.collection
    word = "PASS" if result.passed else "FAIL"
    score = "no score" if result.score is None else f"{result.score:.2f}"
    line = f"{word}  {score} / {collection.scale.top:g} (pass at {collection.threshold:g})"
    if result.missing:
        blocking = "" if collection.allow_missing else ", which blocks a pass"
        line += f"; {len(result.missing)} missing{blocking}"
    return line


def render_text(result: GateResult, target: str) -> str:
    collection = result.collection
    version = f", version {collection.version}" if collection.version else ""
    out = [
        f"{collection.id} ({collection.name}{version}, {collection.scope.value}) on {target}",
        f"  {verdict_line(result)}",
    ]
    for item in result.benchmarks:
        out.append("  " + benchmark_line(item))
    return "\n".join(out)


def benchmark_line(item: BenchmarkResult) -> str:
    member = item.member
    name = f"{member.id} / {member.task_id}"
    if member.metric != "value":
        name += f" / {member.metric}"
    if member.notes:
        name += f" ({member.notes})"
    bar = ""
    if member.threshold is not None:
        bar = f" {'≤' if member.lower_is_better else '≥'} {member.threshold:g}"
    if item.status is Status.MISSING:
        return f"{_MARK[item.status]} {name}: missing (needs{bar or ' a result'})"
    if item.status is Status.AMBIGUOUS:
        values = ", ".join(f"{score:g} ({where(origin)})" for score, origin in item.candidates)
        return f"{_MARK[item.status]} {name}: ambiguous, results disagree: {values}"
    assert item.score is not None
    assert item.origin is not None
    return (
        f"{_MARK[item.status]} {name}: {item.score:g}{bar} {item.status.value}, "
        f"weight {member.weight:g} [{where(item.origin)}]"
    )


def where(origin: Origin) -> str:
    """`path:line`, or `PR #n path:line` for a score read from an open PR."""
    place = f"{origin.path}:{origin.line}"
    return f"PR #{origin.pr} {place}" if origin.pr is not None else place
