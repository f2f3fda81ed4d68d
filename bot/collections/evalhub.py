"""EvalHub collections (`eval-hub/eval-hub`'s `config/collections/*.yaml`) into evalbot's
collection file, with a benchmark mapping and a stated scale, every dropped field said. Pure
(docs/collections.md, "Importing an EvalHub collection")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.collections import collection_diagnostics
from bot.collections.model import Scale
from bot.validation.diagnostics import Diagnostic, kind_of, shown
from bot.validation.model import is_finite_number, is_repo_id
from bot.validation.positions import Locator, Path
from bot.validation.yamldump import dump_mapping
from bot.validation.yamlload import load_yaml

TOP = ("id", "name", "category", "description", "tags", "pass_criteria", "benchmarks")
TOP_DROPPED = ("custom", "agent")
BENCHMARK = ("id", "weight", "primary_score", "pass_criteria")
BENCHMARK_DROPPED = ("provider_id", "url", "parameters", "test_data_ref")
PRIMARY = ("metric", "lower_is_better")
PASSING = ("threshold",)


@dataclass(frozen=True, slots=True)
class HubTarget:
    """The Hub benchmark an EvalHub benchmark id stands for: dataset, task, optional metric."""

    dataset: str
    task_id: str
    metric: str | None = None

    @classmethod
    def parse(cls, text: str) -> HubTarget | None:
        """`OWNER/NAME:TASK[:METRIC]`, or None when it is not that."""
        parts = text.split(":")
        if len(parts) not in (2, 3) or not is_repo_id(parts[0]) or not all(parts[1:]):
            return None
        return cls(parts[0], parts[1], parts[2] if len(parts) == 3 else None)

    @property
    def text(self) -> str:
        """`OWNER/NAME:TASK[:METRIC]`, as `--map` takes it."""
        return f"{self.dataset}:{self.task_id}" + (f":{self.metric}" if self.metric else "")


@dataclass(slots=True)
class Imported:
    """The evalbot collection as YAML text (None when there is any error) and the findings."""

    text: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    scale: Scale | None = None
    scale_inferred: bool = False


def import_evalhub(
    content: bytes,
    targets: Mapping[str, HubTarget],
    *,
    scale: Scale | None = None,
    drop_unmapped: bool = False,
    source: str = "an EvalHub collection",
    origins: Mapping[str, str] | None = None,
    hints: Mapping[str, str] | None = None,
) -> Imported:
    """`targets`: EvalHub id -> Hub target; `origins`: where a target came from when the user
    did not write it (the mapping table's row), said in the header; `hints`: what to write for
    an unmapped id, when something is known of it."""
    origins = origins or {}
    hints = hints or {}
    loaded = load_yaml(content)
    if not loaded.ok:
        return Imported(None, list(loaded.diagnostics))
    reader = _Reader(Locator(loaded.positions))
    data = loaded.data
    if not isinstance(data, dict):
        reader.report("COLL-NOT-MAPPING", (), kind=kind_of(data))
        return Imported(None, reader.diagnostics)
    reader.fields(data, (), TOP, TOP_DROPPED)
    items = data.get("benchmarks")
    if not isinstance(items, list) or not items:
        reader.report("COLL-BENCHMARKS-EMPTY", ("benchmarks",))
        return Imported(None, reader.diagnostics)
    benchmarks = [reader.benchmark(item, ("benchmarks", i)) for i, item in enumerate(items)]
    passing = data.get("pass_criteria")
    threshold = reader.threshold(passing, ("pass_criteria",))
    if any(item is None for item in benchmarks) or threshold is None or reader.has_errors():
        return Imported(None, reader.diagnostics)
    parsed = [item for item in benchmarks if item is not None]
    thresholds = [threshold, *(item.threshold for item in parsed if item.threshold is not None)]
    inferred = scale is None
    chosen = scale or (Scale.FRACTION if all(0 <= t <= 1 for t in thresholds) else Scale.PERCENT)
    members: list[dict[str, Any]] = []
    dropped_ids: list[str] = []
    for item in parsed:
        target = targets.get(item.id)
        if target is None:
            if drop_unmapped:
                dropped_ids.append(item.id)
                continue
            reader.report(
                "IMPORT-UNMAPPED",
                (*item.path, "id"),
                value=shown(item.id),
                id=item.id,
                hint=hints.get(item.id)
                or collection_diagnostics.IMPORT_UNMAPPED_HINT.format(id=item.id),
            )
            continue
        members.append(item.member(target, chosen))
    if reader.has_errors():
        return Imported(None, reader.diagnostics)
    if not members:
        reader.report("COLL-BENCHMARKS-EMPTY", ("benchmarks",))
        return Imported(None, reader.diagnostics)
    document: dict[str, Any] = {}
    for key in ("name", "category", "description", "tags"):
        if key in data:
            document[key] = data[key]
    document["scale"] = chosen.value
    document["pass_criteria"] = {"threshold": threshold}
    document["benchmarks"] = members
    header = [
        f"# Imported from {source} by `evalbot collections import`.",
        f"# Scale: {chosen.value} ("
        + ("inferred from the thresholds; pass --scale to choose" if inferred else "given")
        + ").",
    ]
    if "id" in data:
        header.append(f"# EvalHub id: {data['id']} (here the file name is the id).")
    header.extend(
        f"# {item.id} -> {target.dataset} task {target.task_id}"
        + (f" (EvalHub metric {item.metric})" if item.metric else "")
        + (f", from {origins[item.id]}" if item.id in origins else "")
        for item in parsed
        if (target := targets.get(item.id)) is not None
    )
    if reader.dropped:
        header.append("# Not read by evalbot, dropped: " + ", ".join(sorted(reader.dropped)) + ".")
    if dropped_ids:
        header.append("# Not mapped to a Hub benchmark, dropped: " + ", ".join(dropped_ids) + ".")
    text = "\n".join(header) + "\n" + dump_mapping(document)
    return Imported(text, reader.diagnostics, chosen, inferred)


@dataclass(slots=True)
class _Benchmark:
    id: str
    path: Path
    weight: float
    metric: str | None
    lower_is_better: bool | None
    threshold: float | None

    def member(self, target: HubTarget, scale: Scale) -> dict[str, Any]:
        out: dict[str, Any] = {"id": target.dataset, "task_id": target.task_id}
        if target.metric is not None:
            out["metric"] = target.metric
        if self.threshold is not None:
            out["threshold"] = self.threshold
        out["weight"] = self.weight
        if self.lower_is_better is not None:
            out["lower_is_better"] = self.lower_is_better
        out["scale"] = scale.value
        return out


class _Reader:
    def __init__(self, where: Locator) -> None:
        self.where = where
        self.diagnostics: list[Diagnostic] = []
        self.dropped: set[str] = set()

    def has_errors(self) -> bool:
        return any(diagnostic.is_error for diagnostic in self.diagnostics)

    def report(self, code: str, path: Path, **params: object) -> None:
        line, column = self.where.at(path)
        field_name = ".".join(str(part) for part in path) or None
        self.diagnostics.append(
            collection_diagnostics.make(code, line=line, column=column, field=field_name, **params)
        )

    def fields(
        self, mapping: dict[str, Any], path: Path, known: tuple[str, ...], dropped: tuple[str, ...]
    ) -> None:
        for key in mapping:
            if key in dropped:
                self.dropped.add(".".join([*(str(p) for p in path if isinstance(p, str)), key]))
            elif key not in known:
                self.report(
                    "COLL-FIELD-UNKNOWN",
                    (*path, key),
                    hint="it is not a field of EvalHub's collection schema either: remove it",
                )

    def benchmark(self, item: Any, path: Path) -> _Benchmark | None:
        if not isinstance(item, dict):
            self.report(
                "COLL-FIELD-TYPE",
                path,
                expected="a mapping",
                kind=kind_of(item),
                hint="write `- id: …` then its fields",
            )
            return None
        self.fields(item, path, BENCHMARK, BENCHMARK_DROPPED)
        benchmark_id = item.get("id")
        if not isinstance(benchmark_id, str):
            self.report("COLL-FIELD-MISSING", (*path, "id"), hint="add `id:`")
            return None
        weight = item.get("weight", 1)
        if not is_finite_number(weight) or weight < 0:
            self.report(
                "COLL-FIELD-TYPE",
                (*path, "weight"),
                expected="a number of 0 or more",
                kind=shown(weight),
                hint="write a plain number; omitted, it is 1",
            )
            return None
        metric: str | None = None
        lower: bool | None = None
        primary = item.get("primary_score")
        if primary is not None:
            if not isinstance(primary, dict):
                self.report(
                    "COLL-FIELD-TYPE",
                    (*path, "primary_score"),
                    expected="a mapping",
                    kind=kind_of(primary),
                    hint="indent `metric:` and `lower_is_better:` under it",
                )
                return None
            self.fields(primary, (*path, "primary_score"), PRIMARY, ())
            raw_metric = primary.get("metric")
            metric = raw_metric if isinstance(raw_metric, str) else None
            raw_lower = primary.get("lower_is_better")
            lower = raw_lower if isinstance(raw_lower, bool) else None
        threshold = None
        if "pass_criteria" in item:
            threshold = self.threshold(item["pass_criteria"], (*path, "pass_criteria"))
            if threshold is None:
                return None
        return _Benchmark(benchmark_id, path, float(weight), metric, lower, threshold)

    def threshold(self, raw: Any, path: Path) -> float | None:
        if not isinstance(raw, dict):
            self.report("COLL-FIELD-MISSING", (*path, "threshold"), hint="add `threshold:`")
            return None
        self.fields(raw, path, PASSING, ())
        value = raw.get("threshold")
        if not is_finite_number(value):
            self.report(
                "COLL-FIELD-TYPE",
                (*path, "threshold"),
                expected="a finite number",
                kind=kind_of(value),
                hint="write a plain number, unquoted",
            )
            return None
        return float(value)
