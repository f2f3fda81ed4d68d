"""A benchmark's `eval.yaml`, in either shape (docs/decisions.md#dialects), parsed into the
shared `Benchmark` with every rule checked; per-task keys of the framework's own are left alone."""

from __future__ import annotations

from typing import Any

from bot.validation import diagnostics, frameworks
from bot.validation.diagnostics import Diagnostic, suggestion_suffix
from bot.validation.frameworks import close_match
from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.model import (
    Benchmark,
    BenchmarkLookup,
    BenchmarkNotFound,
    MetricDef,
    TaskDef,
    is_finite_number,
    is_repo_id,
    is_sha40,
)
from bot.validation.positions import Locator, Path
from bot.validation.yamlload import load_yaml

AGGREGATIONS = ("single", "macro", "micro", "weighted", "per_class", "per_language", "per_domain")
SCORE_TYPES = ("continuous", "integer", "categorical")
VALUE_TYPES = ("float", "int", "percentage", "rank")


def parse_benchmark(
    repo_id: str, content: bytes, revision: str | None, *, limits: Limits = DEFAULT_LIMITS
) -> tuple[Benchmark | None, list[Diagnostic]]:
    """Parse and check eval.yaml bytes; the Benchmark is None when there is any error."""
    loaded = load_yaml(content, limits)
    if not loaded.ok:
        return None, loaded.diagnostics
    checker = _EvalYamlChecker(Locator(loaded.positions))
    benchmark = checker.check(repo_id, loaded.data, revision)
    diagnostics = [*loaded.diagnostics, *checker.diagnostics]
    if any(diagnostic.is_error for diagnostic in diagnostics):
        return None, diagnostics
    return benchmark, diagnostics


def benchmark_from_eval_yaml(repo_id: str, content: bytes, revision: str | None) -> BenchmarkLookup:
    """What a benchmark source returns for eval.yaml bytes: the Benchmark, or why not."""
    benchmark, diagnostics = parse_benchmark(repo_id, content, revision)
    if benchmark is None:
        errors = sum(1 for diagnostic in diagnostics if diagnostic.is_error)
        return BenchmarkNotFound(
            dataset_id=repo_id,
            reason=f"its eval.yaml has {errors} error{'s' if errors != 1 else ''}",
            diagnostics=tuple(diagnostics),
        )
    return benchmark


class _EvalYamlChecker:
    def __init__(self, where: Locator) -> None:
        self.where = where
        self.diagnostics: list[Diagnostic] = []

    def report(self, code: str, path: Path, **params: object) -> None:
        self.diagnostics.append(self.where.diagnostic(code, path, fix=None, **params))

    def type_error(self, path: Path, value: Any, expected: str, hint: str) -> None:
        self.report(
            "BENCH-FIELD-TYPE", path, expected=expected, kind=diagnostics.kind_of(value), hint=hint
        )

    def string(self, mapping: dict[str, Any], path: Path, *, required: bool) -> str | None:
        key = path[-1]
        if key not in mapping:
            if required:
                self.report("BENCH-FIELD-MISSING", path, hint=f"add `{key}:` with a text value")
            return None
        value = mapping[key]
        if not isinstance(value, str):
            self.type_error(path, value, "a string", "quote the value")
            return None
        return value

    def boolean(self, mapping: dict[str, Any], path: Path, *, required: bool) -> bool | None:
        key = path[-1]
        if key not in mapping:
            if required:
                self.report("BENCH-FIELD-MISSING", path, hint=f"add `{key}: true` or `false`")
            return None
        value = mapping[key]
        if not isinstance(value, bool):
            self.type_error(
                path, value, "a boolean", "write `true` or `false` unquoted (not yes/no, not 1/0)"
            )
            return None
        return value

    def number(self, mapping: dict[str, Any], path: Path) -> float | None:
        value = mapping.get(str(path[-1]))
        if value is None:
            return None
        if not is_finite_number(value):
            self.type_error(path, value, "a finite number", "write a plain number, unquoted")
            return None
        return float(value)

    def enum(self, mapping: dict[str, Any], path: Path, allowed: tuple[str, ...]) -> None:
        value = self.string(mapping, path, required=False)
        if value is not None and value not in allowed:
            self.report(
                "BENCH-ENUM",
                path,
                value=diagnostics.shown(value),
                allowed=", ".join(allowed),
                suggestion=suggestion_suffix(value, allowed),
            )

    def check(self, repo_id: str, data: Any, revision: str | None) -> Benchmark | None:
        if not isinstance(data, dict):
            self.report("BENCH-NOT-MAPPING", (), kind=diagnostics.kind_of(data))
            return None
        self.string(data, ("name",), required=True)
        self.string(data, ("description",), required=True)
        framework = self.string(data, ("evaluation_framework",), required=False)
        known = frameworks.current()
        if framework is not None and framework not in known.names:
            match = close_match(framework, known.names)
            self.report(
                "BENCH-FRAMEWORK-UNKNOWN",
                ("evaluation_framework",),
                value=diagnostics.shown(framework),
                count=len(known.names),
                refreshed=known.refreshed,
                advice=(
                    f"did you mean `{match}`? If not, the bot's list may be out of date:"
                    if match
                    else "the Hub adds frameworks often: if it accepts this one, the bot's"
                    " list is out of date;"
                )
                + " `evalbot frameworks refresh` updates it",
            )
        tasks = self.tasks(data)
        metrics = self.metrics(data)
        if tasks is None or metrics is None:
            return None
        return Benchmark(
            repo_id=repo_id,
            tasks=tasks,
            metrics=metrics,
            evaluation_framework=framework,
            revision=revision,
        )

    def tasks(self, data: dict[str, Any]) -> tuple[TaskDef, ...] | None:
        if "tasks" not in data:
            self.report("BENCH-FIELD-MISSING", ("tasks",), hint="add `tasks:` with `- id: <id>`")
            return None
        raw = data["tasks"]
        if not isinstance(raw, list):
            self.type_error(("tasks",), raw, "a list", "write `tasks:` then `- id: <id>` items")
            return None
        if not raw:
            self.report("BENCH-TASKS-EMPTY", ("tasks",))
            return None
        tasks: list[TaskDef] = []
        seen: set[str] = set()
        for index, item in enumerate(raw):
            path: Path = ("tasks", index)
            if not isinstance(item, dict):
                self.type_error(path, item, "a mapping", "write `- id: <task id>`")
                continue
            task_id = self.string(item, (*path, "id"), required=True)
            display_name = self.string(item, (*path, "display_name"), required=False)
            config = self.string(item, (*path, "config"), required=False)
            split = self.string(item, (*path, "split"), required=False)
            self.task_dataset(item, path)
            if task_id is None:
                continue
            if task_id in seen:
                self.report("BENCH-TASK-DUPLICATE", (*path, "id"), task_id=task_id)
                continue
            seen.add(task_id)
            tasks.append(TaskDef(id=task_id, display_name=display_name, config=config, split=split))
        return tuple(tasks)

    def task_dataset(self, item: dict[str, Any], path: Path) -> None:
        """`tasks[].dataset.{id,revision}`: optional; a loose revision is only a warning."""
        if "dataset" not in item:
            return
        dataset = item["dataset"]
        dataset_path = (*path, "dataset")
        if not isinstance(dataset, dict):
            self.type_error(dataset_path, dataset, "a mapping", "write `id:` and `revision:`")
            return
        dataset_id = self.string(dataset, (*dataset_path, "id"), required=False)
        if dataset_id is not None and not is_repo_id(dataset_id):
            self.type_error(
                (*dataset_path, "id"), dataset_id, "an `owner/name` repo id", "write `owner/name`"
            )
        revision = self.string(dataset, (*dataset_path, "revision"), required=False)
        if revision is not None and not is_sha40(revision):
            self.report(
                "BENCH-REVISION", (*dataset_path, "revision"), value=diagnostics.shown(revision)
            )

    def metrics(self, data: dict[str, Any]) -> tuple[MetricDef, ...] | None:
        if "metrics" not in data:
            return ()  # the live shape: results then carry one `value`
        raw = data["metrics"]
        if not isinstance(raw, list):
            self.type_error(("metrics",), raw, "a list", "write `metrics:` then `- id: <id>` items")
            return None
        if not raw:
            self.report("BENCH-METRICS-EMPTY", ("metrics",))
            return None
        metrics: list[MetricDef] = []
        seen: set[str] = set()
        primaries = 0
        failed = False
        for index, item in enumerate(raw):
            metric = self.metric(item, ("metrics", index), seen)
            if metric is None:
                failed = True
                continue
            seen.add(metric.id)
            primaries += metric.primary
            metrics.append(metric)
        if failed:
            return None
        if len(metrics) > 1 and primaries != 1:
            self.report("BENCH-PRIMARY", ("metrics",), count=primaries)
            return None
        return tuple(metrics)

    def metric(self, item: Any, path: Path, seen: set[str]) -> MetricDef | None:
        if not isinstance(item, dict):
            self.type_error(path, item, "a mapping", "write `- id: <metric id>`")
            return None
        errors_before = len(self.diagnostics)
        metric_id = self.string(item, (*path, "id"), required=True)
        display_name = self.string(item, (*path, "display_name"), required=True)
        higher = self.boolean(item, (*path, "higher_is_better"), required=True)
        primary = self.boolean(item, (*path, "primary"), required=False)
        low = self.number(item, (*path, "min_score"))
        high = self.number(item, (*path, "max_score"))
        for key in ("description", "unit", "slice"):
            self.string(item, (*path, key), required=False)
        self.enum(item, (*path, "aggregation"), AGGREGATIONS)
        self.enum(item, (*path, "score_type"), SCORE_TYPES)
        self.enum(item, (*path, "value_type"), VALUE_TYPES)
        if metric_id is not None and metric_id in seen:
            self.report("BENCH-METRIC-DUPLICATE", (*path, "id"), metric_id=metric_id)
        if low is not None and high is not None and low > high:
            self.report("BENCH-SCORE-RANGE", path, metric_id=metric_id, low=low, high=high)
        if len(self.diagnostics) > errors_before and any(
            diagnostic.is_error for diagnostic in self.diagnostics[errors_before:]
        ):
            return None
        if metric_id is None or display_name is None or higher is None:
            return None
        return MetricDef(
            id=metric_id,
            display_name=display_name,
            higher_is_better=higher,
            primary=bool(primary),
            min_score=low,
            max_score=high,
        )
