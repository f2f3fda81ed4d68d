"""A collection file checked like an eval.yaml: strict YAML, then every field against the
benchmarks it names, whose own eval.yaml decides tasks, metrics and directions
(docs/collections.md, "Validation"). One job over 500 lines: one checker walks the whole file."""

from __future__ import annotations

import hashlib
import math
from dataclasses import replace
from typing import Any

from bot.collections import collection_diagnostics
from bot.collections.model import (
    VALUE_METRIC,
    Collection,
    CollectionBenchmark,
    Scale,
    Scope,
)
from bot.validation.diagnostics import Diagnostic, kind_of, shown, suggestion_suffix
from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.model import (
    Benchmark,
    BenchmarkNotFound,
    BenchmarkSource,
    MetricDef,
    is_finite_number,
    is_repo_id,
)
from bot.validation.positions import Locator, Path, dotted
from bot.validation.yamlload import load_yaml

TOP_FIELDS = (
    "id",
    "name",
    "category",
    "description",
    "tags",
    "version",
    "scale",
    "pass_criteria",
    "benchmarks",
)
BENCHMARK_FIELDS = (
    "id",
    "task_id",
    "metric",
    "threshold",
    "weight",
    "lower_is_better",
    "scale",
    "bounds",
    "notes",
)
PASS_FIELDS = ("threshold", "allow_missing", "missing_as_zero", "require_all")
#: EvalHub's fields: the nested ones `evalbot collections import` maps, and the ones evalbot has
#: no use for (the Hub, not a provider, holds the results), which the import drops.
EVALHUB_NESTED = ("primary_score", "pass_criteria")
EVALHUB_UNREAD = ("provider_id", "parameters", "url", "test_data_ref", "custom", "agent")
DESCRIPTION_MAX = 1024  # EvalHub's cap on `description`

_TYPES: dict[str, tuple[type[Any] | tuple[type[Any], ...], str, str]] = {
    "string": (str, "a string", "quote the value"),
    "boolean": (bool, "a boolean", "write `true` or `false` unquoted"),
    "mapping": (dict, "a mapping", "indent the fields under this key"),
    "list": (list, "a list", "write one `- ` item per line"),
}


def check_collection(
    collection_id: str,
    content: bytes,
    benchmarks: BenchmarkSource,
    *,
    scope: Scope = Scope.USER,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[Collection | None, list[Diagnostic]]:
    """Parse and check a collection; the Collection is None when there is any error."""
    loaded = load_yaml(content, limits)
    if not loaded.ok:
        return None, loaded.diagnostics
    checker = _Checker(Locator(loaded.positions), benchmarks)
    collection = checker.collection(collection_id, loaded.data, scope)
    diagnostics = [*loaded.diagnostics, *checker.diagnostics]
    if collection is None or any(diagnostic.is_error for diagnostic in diagnostics):
        return None, diagnostics
    return replace(collection, content_hash=content_hash(content)), diagnostics


def content_hash(content: bytes) -> str:
    """`sha256:<hex>` of a collection file's bytes: two verdicts name the same version or not."""
    return "sha256:" + hashlib.sha256(content).hexdigest()


class _Checker:
    def __init__(self, where: Locator, benchmarks: BenchmarkSource) -> None:
        self.where = where
        self.benchmarks = benchmarks
        self.diagnostics: list[Diagnostic] = []

    def report(self, code: str, path: Path, **params: object) -> None:
        line, column = self.where.at(path)
        self.diagnostics.append(
            collection_diagnostics.make(
                code, line=line, column=column, field=dotted(path) or None, **params
            )
        )

    def typed(self, mapping: dict[str, Any], path: Path, kind: str, *, required: bool) -> Any:
        """The value at `path` when it has the `kind`'s type; None (reported) otherwise."""
        key = str(path[-1])
        expected_type, expected, hint = _TYPES[kind]
        if key not in mapping:
            if required:
                self.report("COLL-FIELD-MISSING", path, hint=f"add `{key}:`")
            return None
        value = mapping[key]
        if not isinstance(value, expected_type):
            self.report("COLL-FIELD-TYPE", path, expected=expected, kind=kind_of(value), hint=hint)
            return None
        return value

    def number(self, mapping: dict[str, Any], path: Path, *, required: bool) -> float | None:
        key = str(path[-1])
        if key not in mapping:
            if required:
                self.report("COLL-FIELD-MISSING", path, hint=f"add `{key}:` with a number")
            return None
        value = mapping[key]
        if not is_finite_number(value):
            self.report(
                "COLL-FIELD-TYPE",
                path,
                expected="a finite number",
                kind=kind_of(value),
                hint="write a plain number, unquoted",
            )
            return None
        return float(value)

    def scale(self, mapping: dict[str, Any], path: Path) -> Scale | None:
        value = self.typed(mapping, path, "string", required=False)
        if value is None:
            return None
        if value not in tuple(Scale):
            self.report("COLL-SCALE-ENUM", path, value=shown(value))
            return None
        return Scale(value)

    def unknown(self, mapping: dict[str, Any], path: Path, known: tuple[str, ...]) -> None:
        """Every key evalbot does not read is an error: a misspelt or foreign field would
        otherwise leave a gate silently weaker than its author meant."""
        in_benchmark = bool(path) and path[0] == "benchmarks" and len(path) == 2
        for key in mapping:
            if key in known:
                continue
            if in_benchmark and key in EVALHUB_NESTED:
                self.report("COLL-EVALHUB-SHAPE", (*path, key))
                continue
            if key in EVALHUB_UNREAD:
                hint = "remove it: evalbot has no use for it (`collections import` drops it)"
            else:
                hint = f"remove it, or check the spelling{suggestion_suffix(key, known)}"
            self.report("COLL-FIELD-UNKNOWN", (*path, key), hint=hint)

    def collection(self, collection_id: str, data: Any, scope: Scope) -> Collection | None:
        if not isinstance(data, dict):
            self.report("COLL-NOT-MAPPING", (), kind=kind_of(data))
            return None
        self.unknown(data, (), TOP_FIELDS)
        declared_id = self.typed(data, ("id",), "string", required=False)
        if declared_id is not None and declared_id != collection_id:
            self.report("COLL-ID-MISMATCH", ("id",), value=shown(declared_id), stem=collection_id)
        name = self.typed(data, ("name",), "string", required=True)
        category = self.typed(data, ("category",), "string", required=True)
        description = self.typed(data, ("description",), "string", required=False)
        if description is not None and len(description) > DESCRIPTION_MAX:
            self.report(
                "COLL-FIELD-TYPE",
                ("description",),
                expected=f"at most {DESCRIPTION_MAX} characters",
                kind=f"{len(description)} characters",
                hint="shorten it",
            )
        tags = self.tags(data)
        version = self.version(data)
        scale = self.scale(data, ("scale",)) or Scale.PERCENT
        passing = self.pass_criteria(data, scale)
        members = self.members(data)
        if name is None or category is None or passing is None or members is None:
            return None
        threshold, allow_missing, require_all, missing_as_zero = passing
        return Collection(
            id=collection_id,
            name=name,
            category=category,
            benchmarks=members,
            threshold=threshold,
            scale=scale,
            description=description,
            tags=tags,
            version=version,
            allow_missing=allow_missing,
            require_all=require_all,
            scope=scope,
            missing_as_zero=missing_as_zero,
        )

    def tags(self, data: dict[str, Any]) -> tuple[str, ...]:
        raw = self.typed(data, ("tags",), "list", required=False) or []
        tags: list[str] = []
        for index, tag in enumerate(raw):
            if isinstance(tag, str):
                tags.append(tag)
            else:
                self.report(
                    "COLL-FIELD-TYPE",
                    ("tags", index),
                    expected="a string",
                    kind=kind_of(tag),
                    hint="quote the tag",
                )
        return tuple(tags)

    def version(self, data: dict[str, Any]) -> str | None:
        value = data.get("version")
        if value is None:
            return None
        if isinstance(value, str) or is_finite_number(value):
            return str(value)
        self.report(
            "COLL-FIELD-TYPE",
            ("version",),
            expected="a string",
            kind=kind_of(value),
            hint='quote the version, e.g. `version: "1"`',
        )
        return None

    def pass_criteria(
        self, data: dict[str, Any], scale: Scale
    ) -> tuple[float, bool, bool, bool] | None:
        raw = self.typed(data, ("pass_criteria",), "mapping", required=True)
        if raw is None:
            return None
        self.unknown(raw, ("pass_criteria",), PASS_FIELDS)
        threshold = self.number(raw, ("pass_criteria", "threshold"), required=True)
        allow_missing = self.typed(
            raw, ("pass_criteria", "allow_missing"), "boolean", required=False
        )
        require_all = self.typed(raw, ("pass_criteria", "require_all"), "boolean", required=False)
        as_zero = self.typed(raw, ("pass_criteria", "missing_as_zero"), "boolean", required=False)
        if threshold is None:
            return None
        if not 0.0 <= threshold <= scale.top:
            hint = "write a threshold on the aggregate's scale"
            if scale is Scale.FRACTION and threshold <= 100:
                hint = f"did you mean {threshold / 100:g}? (or set `scale: percent`)"
            self.report(
                "COLL-PASS-RANGE",
                ("pass_criteria", "threshold"),
                value=shown(threshold),
                scale=scale.value,
                high=f"{scale.top:g}",
                hint=hint,
            )
            return None
        self.fraction_warning(threshold, scale.top, ("pass_criteria", "threshold"))
        return threshold, bool(allow_missing), bool(require_all), bool(as_zero)

    def fraction_warning(self, threshold: float, high: float, path: Path) -> None:
        """A bar in (0, 1] on a 0-100 scale is almost always a fraction (EvalHub's 0.758)."""
        if high == 100.0 and 0.0 < threshold <= 1.0:
            self.report(
                "COLL-THRESHOLD-FRACTION",
                path,
                value=f"{threshold:g}",
                high="100",
                percent=f"{threshold * 100:g}",
            )

    def members(self, data: dict[str, Any]) -> tuple[CollectionBenchmark, ...] | None:
        raw = self.typed(data, ("benchmarks",), "list", required=True)
        if raw is None:
            return None
        if not raw:
            self.report("COLL-BENCHMARKS-EMPTY", ("benchmarks",))
            return None
        members: list[CollectionBenchmark] = []
        seen: dict[tuple[str, str, str, str | None], int | None] = {}
        failed = False
        for index, item in enumerate(raw):
            path: Path = ("benchmarks", index)
            member = self.member(item, path)
            if member is None:
                failed = True
                continue
            key = (member.id.lower(), member.task_id, member.metric, member.notes)
            if key in seen:
                self.report(
                    "COLL-BENCHMARK-DUPLICATE",
                    path,
                    benchmark=shown(member.id),
                    task=shown(member.task_id),
                    metric=shown(member.metric),
                    first_line=seen[key],
                )
                failed = True
                continue
            seen[key] = member.line
            members.append(member)
        if failed:
            return None
        if not any(member.weight > 0 for member in members):
            self.report("COLL-WEIGHTS-ZERO", ("benchmarks",))
            return None
        return tuple(members)

    def member(self, item: Any, path: Path) -> CollectionBenchmark | None:
        if not isinstance(item, dict):
            self.report(
                "COLL-FIELD-TYPE",
                path,
                expected="a mapping",
                kind=kind_of(item),
                hint="write `- id: <org>/<name>` then `task_id:`",
            )
            return None
        errors_before = self.error_count()
        self.unknown(item, path, BENCHMARK_FIELDS)
        benchmark_id = self.typed(item, (*path, "id"), "string", required=True)
        task_id = self.typed(item, (*path, "task_id"), "string", required=True)
        metric_id = self.typed(item, (*path, "metric"), "string", required=False)
        threshold = self.number(item, (*path, "threshold"), required=False)
        weight = self.number(item, (*path, "weight"), required=False)
        lower = self.typed(item, (*path, "lower_is_better"), "boolean", required=False)
        notes = self.typed(item, (*path, "notes"), "string", required=False)
        scale = self.scale(item, (*path, "scale"))
        bounds = self.bounds(item, path)
        if weight is not None and weight < 0:
            self.report("COLL-WEIGHT-NEGATIVE", (*path, "weight"), value=shown(weight))
        if benchmark_id is not None and not is_repo_id(benchmark_id):
            self.report(
                "COLL-FIELD-TYPE",
                (*path, "id"),
                expected="a Hub benchmark id `owner/name`",
                kind=shown(benchmark_id),
                hint="write the benchmark dataset's repo id, e.g. `Idavidrein/gpqa`",
            )
            return None
        if self.error_count() > errors_before or benchmark_id is None or task_id is None:
            return None
        benchmark = self.benchmark(benchmark_id, path)
        if benchmark is None:
            return None
        if benchmark.task(task_id) is None:
            known = [task.id for task in benchmark.tasks]
            self.report(
                "COLL-TASK-UNKNOWN",
                (*path, "task_id"),
                benchmark=shown(benchmark.repo_id),
                value=shown(task_id),
                known=", ".join(f"`{task}`" for task in known),
                suggestion=suggestion_suffix(task_id, known),
            )
            return None
        resolved = self.metric(benchmark, metric_id, lower, path)
        if resolved is None:
            return None
        metric, lower_is_better, declared = resolved
        span = self.span(benchmark, metric, declared, scale, bounds, lower_is_better, path)
        if span is None:
            return None
        low, high, exact = span
        if threshold is not None and exact and not low <= threshold <= high:
            hint = "write the threshold in the unit the results are reported in"
            if high == 1.0 and 1.0 < threshold <= 100.0:
                hint = f"results are on 0-1: did you mean {threshold / 100:g}?"
            self.report(
                "COLL-THRESHOLD-RANGE",
                (*path, "threshold"),
                value=shown(threshold),
                low=f"{low:g}",
                high=f"{high:g}",
                hint=hint,
            )
            return None
        if threshold is not None and exact and low == 0.0:
            self.fraction_warning(threshold, high, (*path, "threshold"))
        return CollectionBenchmark(
            id=benchmark.repo_id,
            task_id=task_id,
            metric=metric,
            weight=1.0 if weight is None else weight,
            lower_is_better=lower_is_better,
            low=low,
            high=high,
            threshold=threshold,
            notes=notes,
            line=self.where.at(path)[0],
            reference=not exact,
        )

    def error_count(self) -> int:
        return sum(1 for diagnostic in self.diagnostics if diagnostic.is_error)

    def bounds(self, item: dict[str, Any], path: Path) -> tuple[float, float] | None:
        raw = self.typed(item, (*path, "bounds"), "mapping", required=False)
        if raw is None:
            return None
        self.unknown(raw, (*path, "bounds"), ("best", "worst"))
        best = self.number(raw, (*path, "bounds", "best"), required=True)
        worst = self.number(raw, (*path, "bounds", "worst"), required=True)
        if best is None or worst is None:
            return None
        return best, worst

    def benchmark(self, benchmark_id: str, path: Path) -> Benchmark | None:
        found = self.benchmarks.lookup(benchmark_id, None)
        if isinstance(found, BenchmarkNotFound):
            self.report(
                "COLL-BENCHMARK-UNKNOWN",
                (*path, "id"),
                benchmark=shown(benchmark_id),
                reason=found.reason,
                suggestion="",
            )
            return None
        if found.repo_id != benchmark_id:
            self.report(
                "COLL-BENCHMARK-CASE",
                (*path, "id"),
                value=shown(benchmark_id),
                canonical=found.repo_id,
            )
        return found

    def metric(
        self, benchmark: Benchmark, metric_id: str | None, lower: bool | None, path: Path
    ) -> tuple[str, bool, MetricDef | None] | None:
        """(metric id, lower_is_better, the declared metric) or None when they disagree."""
        if not benchmark.metrics:
            if metric_id is not None and metric_id != VALUE_METRIC:
                self.report(
                    "COLL-METRIC-UNDECLARED",
                    (*path, "metric"),
                    benchmark=shown(benchmark.repo_id),
                    value=shown(metric_id),
                )
                return None
            return VALUE_METRIC, bool(lower), None
        declared = benchmark.primary_metric if metric_id is None else benchmark.metric(metric_id)
        if declared is None:
            known = [metric.id for metric in benchmark.metrics]
            self.report(
                "COLL-METRIC-UNKNOWN",
                (*path, "metric"),
                benchmark=shown(benchmark.repo_id),
                value=shown(metric_id),
                known=", ".join(f"`{metric}`" for metric in known),
                suggestion=suggestion_suffix(metric_id or "", known),
            )
            return None
        expected = not declared.higher_is_better
        if lower is not None and lower != expected:
            self.report(
                "COLL-DIRECTION",
                (*path, "lower_is_better"),
                lower=_yaml_bool(lower),
                benchmark=shown(benchmark.repo_id),
                metric=shown(declared.id),
                higher=_yaml_bool(declared.higher_is_better),
                expected=_yaml_bool(expected),
            )
            return None
        return declared.id, expected, declared

    def span(  # noqa: PLR0917 - the member's resolved parts, named at the one call site
        self,
        benchmark: Benchmark,
        metric: str,
        declared: MetricDef | None,
        scale: Scale | None,
        bounds: tuple[float, float] | None,
        lower_is_better: bool,
        path: Path,
    ) -> tuple[float, float, bool] | None:
        """(low, high, exact): the range the raw scores are on; exact when not a reference.

        Precedence: the benchmark's own `min_score`/`max_score`, else `scale`, else `bounds`
        (reference bounds for a lower-is-better or unbounded metric). None: refused.
        """
        if scale is not None and bounds is not None:
            self.report("COLL-BOUNDS-BOTH", (*path, "bounds"))
            return None
        own = _declared_range(declared)
        if own is not None:
            given: tuple[str, tuple[float, float]] | None = None
            if scale is not None:
                given = ("scale", (0.0, scale.top))
            elif bounds is not None:
                given = ("bounds", (min(bounds), max(bounds)))
            if given is not None and given[1] != own:
                self.report(
                    "COLL-SCALE-CONFLICT",
                    (*path, given[0]),
                    declared=f"[{given[1][0]:g}, {given[1][1]:g}]",
                    benchmark=shown(benchmark.repo_id),
                    metric=shown(metric),
                    low=f"{own[0]:g}",
                    high=f"{own[1]:g}",
                )
                return None
            return own[0], own[1], True
        if scale is not None:
            return 0.0, scale.top, True
        if bounds is not None:
            best, worst = bounds
            if best == worst or (best < worst) != lower_is_better:
                direction = "lower is better" if lower_is_better else "higher is better"
                self.report(
                    "COLL-BOUNDS-DIRECTION",
                    (*path, "bounds"),
                    best=f"{best:g}",
                    worst=f"{worst:g}",
                    direction=direction,
                    hint="`best` is the score a perfect model gets: "
                    + ("below `worst`" if lower_is_better else "above `worst`"),
                )
                return None
            return min(bounds), max(bounds), False
        self.report(
            "COLL-SCALE-UNKNOWN", path, benchmark=shown(benchmark.repo_id), metric=shown(metric)
        )
        return None


def _declared_range(metric: MetricDef | None) -> tuple[float, float] | None:
    if metric is None or metric.min_score is None or metric.max_score is None:
        return None
    if not (math.isfinite(metric.min_score) and math.isfinite(metric.max_score)):
        return None
    if metric.min_score >= metric.max_score:
        return None
    return metric.min_score, metric.max_score


def _yaml_bool(value: bool) -> str:
    return "true" if value else "false"
