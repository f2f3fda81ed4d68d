"""Checks of an entry against its benchmark's eval.yaml, and across the entries of a repo.

Ids follow docs/decisions.md#ids: benchmark ids are case-insensitive (a
different spelling is a warning), task and metric ids are exact (a case-only difference is an
error with a hint). A live `value` stands for the benchmark's primary metric.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.spec import messages
from bot.spec.diagnostics import Diagnostic
from bot.spec.formats import benchmark_file_stem, did_you_mean, is_finite_number
from bot.spec.located import Locator
from bot.spec.model import Benchmark, BenchmarkLookup, Dialect, MetricDef, ResultEntry
from bot.spec.yamlload import Path


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
                value=messages.shown(framework["name"]),
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
                value=messages.shown(value),
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
            value=messages.shown(value),
            looks="0-1",
            why=why,
            hint=f"if this is a fraction, report it as a percentage ({value * 100:g})",
        )
    ]


def _listing(ids: list[str], limit: int = 8) -> str:
    shown = ", ".join(f"`{item}`" for item in ids[:limit])
    return shown + (f", … ({len(ids)} in all)" if len(ids) > limit else "")


def _did_you_mean_hint(value: str, candidates: list[str], key: str) -> str:
    match = did_you_mean(value, candidates)
    if match is not None:
        return f"did you mean `{match}`? Write `{key}: {match}`"
    return f"use one of the ids the benchmark's eval.yaml declares for `{key}`"


@dataclass
class RepoChecks:
    """State kept across the files of one repo: duplicate keys and file-name warnings."""

    seen: dict[tuple[str, str, str | None], tuple[str, int]] = field(default_factory=dict)

    def duplicate(
        self, path: str, entry: ResultEntry, benchmark: Benchmark | None, where: Locator
    ) -> Diagnostic | None:
        """The later of two entries with the same (benchmark, task, notes) carries the error."""
        if entry.dataset_id is None or entry.task_id is None:
            return None
        benchmark_id = (benchmark.repo_id if benchmark else entry.dataset_id).lower()
        notes = entry.data.get("notes")
        key = (benchmark_id, entry.task_id, notes if isinstance(notes, str) else None)
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = (path, entry.index)
            return None
        return where.diagnostic(
            "ENTRY-DUPLICATE",
            ("dataset",),
            other_number=first[1] + 1,  # counted from 1 like every entry shown to a person
            other_index=first[1],
            other_path=first[0],
        )


def file_name_diagnostic(
    path: str, entry: ResultEntry, benchmark: Benchmark | None, where: Locator
) -> Diagnostic | None:
    """The draft naming rule (F2), a warning: `.eval_results/<benchmark repo name>.yaml`.

    A suffix after `_` is accepted for variants (`hle_with_tools.yaml`), as HF's own
    community-evals guidance asks for separate files per variant (docs/specs.md#validation-rules,
    F2).
    """
    if entry.dataset_id is None:
        return None
    dataset_id = benchmark.repo_id if benchmark else entry.dataset_id
    expected = benchmark_file_stem(dataset_id)
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if stem == expected or stem.startswith(expected + "_"):
        return None
    return where.diagnostic(
        "FILE-NAME",
        ("dataset", "id"),
        name=name,
        dataset_id=dataset_id,
        expected=f"{expected}.yaml",
    )


def file_path_diagnostic(path: str) -> Diagnostic | None:
    """Results files sit directly in `.eval_results/` and end in `.yaml` (F1); the message
    says which of the two is wrong, and the hint whether to move or to rename."""
    parts = path.split("/")
    name = parts[-1]
    in_folder = len(parts) == 2 and parts[0] == ".eval_results"
    if in_folder and name.endswith(".yaml"):
        return None
    stem = name.rsplit(".", 1)[0] if "." in name else name
    problems = []
    if not in_folder:
        problems.append(
            "live directly in `.eval_results/`, not in a sub-folder"
            if ".eval_results" in parts[:-1]
            else "live in the repo's `.eval_results/` folder"
        )
    if not name.endswith(".yaml"):
        problems.append(f"end in `.yaml`, not `{name[len(stem) :] or 'nothing'}`")
    return messages.make(
        "FILE-PATH",
        path=path,
        problem="results files " + " and ".join(problems),
        fix="move the file to" if not in_folder else "rename the file to",
        suggestion=f"{stem}.yaml",
    )


def looks_like_benchmark(data: object) -> bool:
    """A mapping with `tasks`: an eval.yaml under another name (a results file is a list)."""
    return isinstance(data, dict) and "tasks" in data
