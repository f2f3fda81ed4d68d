"""An entry checked against its benchmark's eval.yaml: the benchmark, task and metric ids
(docs/decisions.md#ids), the framework, the scores' bounds and scale."""

from __future__ import annotations

from typing import Any

from bot.validation import diagnostics
from bot.validation.diagnostics import Diagnostic, Fix, did_you_mean, shown, unique_match
from bot.validation.model import (
    Benchmark,
    BenchmarkLookup,
    Dialect,
    MetricDef,
    ResultEntry,
    is_finite_number,
)
from bot.validation.positions import Locator, Path


def check_against_benchmark(
    entry: ResultEntry, lookup: BenchmarkLookup, where: Locator
) -> tuple[Benchmark | None, list[Diagnostic]]:
    """Cross-check one entry; returns the benchmark it links to (None when unknown)."""
    diagnostics: list[Diagnostic] = []
    dataset_id = entry.dataset_id or ""
    if not isinstance(lookup, Benchmark):
        if lookup.diagnostics:
            errors = sum(1 for diagnostic in lookup.diagnostics if diagnostic.is_error)
            diagnostics.append(
                where.diagnostic(
                    "ENTRY-BENCHMARK-INVALID",
                    ("dataset", "id"),
                    dataset_id=dataset_id,
                    count=errors,
                )
            )
        else:
            diagnostics.append(
                where.diagnostic(
                    "ENTRY-BENCHMARK-UNKNOWN",
                    ("dataset", "id"),
                    dataset_id=dataset_id,
                    reason=lookup.reason,
                    hint="use the Hub id of a benchmark dataset (one with an eval.yaml)",
                )
            )
        return None, diagnostics
    benchmark = lookup
    if benchmark.repo_id != dataset_id:
        diagnostics.append(
            where.diagnostic(
                "ENTRY-BENCHMARK-CASE",
                ("dataset", "id"),
                dataset_id=dataset_id,
                canonical=benchmark.repo_id,
                fix=Fix("replace", benchmark.repo_id, ("dataset", "id")),
            )
        )
    task_ids = [task.id for task in benchmark.tasks]
    if entry.task_id is not None and benchmark.task(entry.task_id) is None:
        diagnostics.append(
            where.diagnostic(
                "ENTRY-TASK-UNKNOWN",
                ("dataset", "task_id"),
                task_id=entry.task_id,
                dataset_id=benchmark.repo_id,
                known=_listing(task_ids),
                hint=_did_you_mean_hint(entry.task_id, task_ids, "task_id"),
                fix=_replacement(entry.task_id, task_ids, ("dataset", "task_id")),
            )
        )
    framework = entry.data.get("framework")
    if (
        benchmark.evaluation_framework is not None
        and isinstance(framework, dict)
        and isinstance(framework.get("name"), str)
        and framework["name"] != benchmark.evaluation_framework
    ):
        diagnostics.append(
            where.diagnostic(
                "ENTRY-FRAMEWORK-MISMATCH",
                ("framework", "name"),
                value=shown(framework["name"]),
                expected=benchmark.evaluation_framework,
            )
        )
    if entry.dialect is Dialect.TARGET:
        diagnostics.extend(_check_metrics(entry, benchmark, where))
    else:
        primary = benchmark.primary_metric
        value = entry.data.get("value")
        if is_finite_number(value):
            diagnostics.extend(_check_score(value, ("value",), primary, None, where))
    return benchmark, diagnostics


def _check_metrics(entry: ResultEntry, benchmark: Benchmark, where: Locator) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    metrics = entry.data.get("metrics")
    if not isinstance(metrics, list):
        return diagnostics
    if not benchmark.metrics:
        diagnostics.append(
            where.diagnostic("ENTRY-METRICS-UNDECLARED", ("metrics",), dataset_id=benchmark.repo_id)
        )
        return diagnostics
    metric_ids = [metric.id for metric in benchmark.metrics]
    reported: set[str] = set()
    for position, item in enumerate(metrics):
        if not isinstance(item, dict) or not isinstance(item.get("metric_id"), str):
            continue
        metric_id = item["metric_id"]
        path: Path = ("metrics", position)
        metric = benchmark.metric(metric_id)
        if metric is None:
            diagnostics.append(
                where.diagnostic(
                    "ENTRY-METRIC-UNKNOWN",
                    (*path, "metric_id"),
                    metric_id=metric_id,
                    dataset_id=benchmark.repo_id,
                    known=_listing(metric_ids),
                    hint=_did_you_mean_hint(metric_id, metric_ids, "metric_id"),
                    fix=_replacement(metric_id, metric_ids, (*path, "metric_id")),
                )
            )
            continue
        reported.add(metric_id)
        value = item.get("value")
        if is_finite_number(value):
            diagnostics.extend(
                _check_score(value, (*path, "value"), metric, item.get("value_type"), where)
            )
    primary = benchmark.primary_metric
    if primary is not None and primary.id not in reported:
        diagnostics.append(
            where.diagnostic(
                "ENTRY-PRIMARY-MISSING",
                ("metrics",),
                metric_id=primary.id,
                dataset_id=benchmark.repo_id,
            )
        )
    return diagnostics


def _check_score(
    value: float, path: Path, metric: MetricDef | None, value_type: Any, where: Locator
) -> list[Diagnostic]:
    """Declared bounds (an error when broken) and the 0-1 vs 0-100 heuristic (a warning)."""
    low = metric.min_score if metric is not None else None
    high = metric.max_score if metric is not None else None
    if (low is not None and value < low) or (high is not None and value > high):
        return [
            where.diagnostic(
                "ENTRY-VALUE-RANGE",
                path,
                value=diagnostics.shown(value),
                low="-inf" if low is None else f"{low:g}",
                high="inf" if high is None else f"{high:g}",
            )
        ]
    if not 0 < abs(value) < 1:
        return []
    if high is not None and high > 1:
        why = f"the metric's max_score is {high:g}"
    elif value_type == "percentage":
        why = "its value_type is percentage"
    elif metric is None and high is None:
        why = "results on the Hub are reported on a 0-100 scale"
    else:
        return []
    return [
        where.diagnostic(
            "ENTRY-VALUE-SCALE",
            path,
            value=diagnostics.shown(value),
            looks="0-1",
            why=why,
            hint=f"if this is a fraction, report it as a percentage ({value * 100:g})",
        )
    ]


def _listing(ids: list[str], limit: int = 8) -> str:
    shown = ", ".join(f"`{item}`" for item in ids[:limit])
    return shown + (f", … ({len(ids)} in all)" if len(ids) > limit else "")


def _replacement(value: str, candidates: list[str], path: Path) -> Fix | None:
    """The fix for an id that is not declared: the one declared id it stands for, if any."""
    match = unique_match(value, candidates)
    return Fix("replace", match, path) if match is not None else None


def _did_you_mean_hint(value: str, candidates: list[str], key: str) -> str:
    match = did_you_mean(value, candidates)
    if match is not None:
        return f"did you mean `{match}`? Write `{key}: {match}`"
    return f"use one of the ids the benchmark's eval.yaml declares for `{key}`"
