"""The mapping table: framework task and metric -> Hub benchmark, task, metric and scale, every
row checked against its benchmark's eval.yaml (docs/convert.md, "The mapping table")."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from bot.convert.model import SCALES, Scale
from bot.validation.diagnostics import did_you_mean
from bot.validation.limits import Limits
from bot.validation.model import Benchmark, BenchmarkSource, is_repo_id
from bot.validation.positions import Path
from bot.validation.yamlload import load_yaml

REQUIRED = ("framework", "task", "metric", "benchmark", "task_id", "scale")
OPTIONAL = ("metric_id", "source_scale", "notes", "dataset")
#: keys whose value is not a text (checked on their own)
STRUCTURED = ("former_datasets",)
FORMER_KEYS = ("dataset", "versions", "reason")
_LIMITS = Limits(max_file_bytes=8 * 1024 * 1024)


@dataclass(frozen=True, slots=True)
class FormerDataset:
    """A place the framework's task read the benchmark's data from before it moved, accepted as
    evidence for runs of the framework versions that recorded it (docs/convert.md#dataset-moves)."""

    dataset: str
    versions: SpecifierSet
    reason: str

    def recorded_by(self, version: str | None) -> bool:
        """Whether a run of framework `version` may have recorded this dataset; a run that
        records no version is not checked (lm-eval recorded its version only from 0.4.9)."""
        if version is None:
            return True
        return self.versions.contains(version, prereleases=True) is True


@dataclass(frozen=True, slots=True)
class Mapping:
    framework: str
    task: str
    metric: str
    benchmark: str
    task_id: str
    scale: Scale
    metric_id: str | None = None
    source_scale: Scale | None = None
    notes: str | None = None
    #: the Hub dataset the framework's task reads when it is a copy of the benchmark's data
    #: under another name (lm-eval `ifeval` reads `google/IFEval`); None: the benchmark itself
    dataset: str | None = None
    #: earlier homes of that dataset the row still accepts as evidence, by framework version
    former_datasets: tuple[FormerDataset, ...] = ()
    file: str = "<mappings>"
    line: int | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.framework, self.task, self.metric)


@dataclass(frozen=True, slots=True)
class MappingProblem:
    """An error in a mapping file; `str()` is `file:line: message`, as compilers print."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.message}"


class MappingError(Exception):
    """A mapping file that cannot be used; carries every problem found."""

    def __init__(self, problems: list[MappingProblem]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems


@dataclass(slots=True)
class MappingTable:
    rows: dict[tuple[str, str, str], Mapping] = field(default_factory=dict)

    def find(self, framework: str, task: str, metric: str) -> Mapping | None:
        return self.rows.get((framework, task, metric))

    def merged(self, other: MappingTable) -> MappingTable:
        """This table with `other`'s rows added; a row of `other` replaces one with its key."""
        return MappingTable({**self.rows, **other.rows})


def parse_mappings(file: str, content: bytes) -> MappingTable:
    """Read a mapping file; raise MappingError listing every problem with its line."""
    loaded = load_yaml(content, _LIMITS)
    problems: list[MappingProblem] = []
    if not loaded.ok:
        for diagnostic in loaded.diagnostics:
            problems.append(MappingProblem(file, diagnostic.line, diagnostic.message))
        raise MappingError(problems)

    def line(path: Path) -> int | None:
        while path:
            position = loaded.positions.get(path)
            if position is not None:
                return position[0]
            path = path[:-1]
        return None

    data = loaded.data
    rows = data.get("mappings") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise MappingError([MappingProblem(file, 1, "expected `mappings:` with a list of rows")])
    table = MappingTable()
    for index, row in enumerate(rows):
        mapping = _row(file, index, row, line, problems)
        if mapping is None:
            continue
        if mapping.key in table.rows:
            first = table.rows[mapping.key]
            problems.append(
                MappingProblem(
                    file,
                    mapping.line,
                    f"{mapping.framework} task `{mapping.task}` metric `{mapping.metric}` is"
                    f" mapped twice (first at line {first.line}); keep one row",
                )
            )
            continue
        table.rows[mapping.key] = mapping
    if problems:
        raise MappingError(problems)
    return table


def _row(
    file: str,
    index: int,
    row: Any,
    line: Any,
    problems: list[MappingProblem],
) -> Mapping | None:
    here = line(("mappings", index))
    if not isinstance(row, dict):
        problems.append(MappingProblem(file, here, "a row must be a mapping of `key: value`"))
        return None
    before = len(problems)
    for key in row:
        if key not in REQUIRED and key not in OPTIONAL and key not in STRUCTURED:
            allowed = ", ".join((*REQUIRED, *OPTIONAL, *STRUCTURED))
            problems.append(
                MappingProblem(
                    file, line(("mappings", index, key)), f"unknown key `{key}` (known: {allowed})"
                )
            )
    unset = [key for key, value in row.items() if value == PLACEHOLDERS.get(key)]
    for key in unset:
        problems.append(
            MappingProblem(
                file,
                line(("mappings", index, key)),
                f"`{key}` is still the placeholder `{row[key]}`: set it (see the row's"
                " TODO(evalbot) comment)",
            )
        )
    if unset:
        return None
    for key in (*REQUIRED, *OPTIONAL):
        value = row.get(key)
        if key in REQUIRED and key not in row:
            problems.append(MappingProblem(file, here, f"missing `{key}:`"))
        elif key in row and not (isinstance(value, str) and value.strip()):
            problems.append(
                MappingProblem(
                    file, line(("mappings", index, key)), f"`{key}` must be a non-empty text"
                )
            )
    for key in ("scale", "source_scale"):
        value = row.get(key)
        if isinstance(value, str) and value not in SCALES:
            problems.append(
                MappingProblem(
                    file,
                    line(("mappings", index, key)),
                    f"`{key}: {value}` is not a scale; write `fraction` (0-1) or `percent` (0-100)",
                )
            )
    for key in ("benchmark", "dataset"):
        value = row.get(key)
        if isinstance(value, str) and not is_repo_id(value):
            problems.append(
                MappingProblem(file, line(("mappings", index, key)), f"`{key}` must be `org/name`")
            )
    former = _former_datasets(file, index, row.get("former_datasets"), line, problems)
    if len(problems) > before:
        return None
    return Mapping(
        framework=row["framework"],
        task=row["task"],
        metric=row["metric"],
        benchmark=row["benchmark"],
        task_id=row["task_id"],
        scale=row["scale"],
        metric_id=row.get("metric_id"),
        source_scale=row.get("source_scale"),
        notes=row.get("notes"),
        dataset=row.get("dataset"),
        former_datasets=former,
        file=file,
        line=here,
    )


def _former_datasets(
    file: str, index: int, raw: Any, line: Any, problems: list[MappingProblem]
) -> tuple[FormerDataset, ...]:
    """The row's `former_datasets`: a list of `{dataset, versions, reason}`, all three given."""
    if raw is None:
        return ()
    where: Path = ("mappings", index, "former_datasets")
    if not isinstance(raw, list) or not raw:
        problems.append(
            MappingProblem(
                file,
                line(where),
                "`former_datasets` must list `{dataset: org/name, versions: ..., reason: ...}`",
            )
        )
        return ()
    found: list[FormerDataset] = []
    for position, item in enumerate(raw):
        here = line((*where, position))
        if not isinstance(item, dict):
            problems.append(
                MappingProblem(file, here, "a former dataset is `{dataset, versions, reason}`")
            )
            continue
        wrong = [key for key in item if key not in FORMER_KEYS]
        missing = [
            key for key in FORMER_KEYS if not (isinstance(item.get(key), str) and item[key].strip())
        ]
        if wrong or missing:
            what = "; ".join(
                [f"unknown key `{key}`" for key in wrong]
                + [f"`{key}` must be a non-empty text" for key in missing]
            )
            problems.append(
                MappingProblem(
                    file, here, f"former dataset: {what} (keys: dataset, versions, reason)"
                )
            )
            continue
        if not is_repo_id(item["dataset"]):
            problems.append(
                MappingProblem(file, here, "former dataset: `dataset` must be `org/name`")
            )
            continue
        try:
            versions = SpecifierSet(item["versions"])
        except InvalidSpecifier:
            problems.append(
                MappingProblem(
                    file,
                    here,
                    f"former dataset: `versions: {item['versions']}` is not a version range"
                    ' (write it as pip does, e.g. ">=0.4.4,<0.4.8")',
                )
            )
            continue
        found.append(FormerDataset(item["dataset"], versions, item["reason"]))
    return tuple(found)


def check_mappings(table: MappingTable, benchmarks: BenchmarkSource) -> list[MappingProblem]:
    """Every row against its benchmark's eval.yaml; an empty list means the table is sound."""
    problems: list[MappingProblem] = []
    for mapping in table.rows.values():
        found = benchmarks.lookup(mapping.benchmark, None)
        if not isinstance(found, Benchmark):
            problems.append(
                MappingProblem(
                    mapping.file,
                    mapping.line,
                    f"benchmark `{mapping.benchmark}` cannot be read: {found.reason}",
                )
            )
            continue
        problems.extend(_against(mapping, found))
    return problems


def _against(mapping: Mapping, benchmark: Benchmark) -> list[MappingProblem]:
    problems: list[MappingProblem] = []

    def problem(message: str) -> None:
        problems.append(MappingProblem(mapping.file, mapping.line, message))

    if benchmark.task(mapping.task_id) is None:
        ids = [task.id for task in benchmark.tasks]
        match = did_you_mean(mapping.task_id, ids)
        problem(
            f"task_id `{mapping.task_id}` is not a task of {benchmark.repo_id}"
            f" (its tasks: {', '.join(ids)})" + (f"; did you mean `{match}`?" if match else "")
        )
    if not benchmark.metrics:
        if mapping.metric_id is not None:
            problem(
                f"{benchmark.repo_id} declares no metrics; remove `metric_id` (its entries carry"
                " one `value`)"
            )
        return problems
    if mapping.metric_id is None:
        declared = ", ".join(metric.id for metric in benchmark.metrics)
        problem(f"{benchmark.repo_id} declares metrics ({declared}); add `metric_id:` naming one")
        return problems
    metric = benchmark.metric(mapping.metric_id)
    if metric is None:
        ids = [item.id for item in benchmark.metrics]
        match = did_you_mean(mapping.metric_id, ids)
        problem(
            f"metric_id `{mapping.metric_id}` is not a metric of {benchmark.repo_id}"
            f" (its metrics: {', '.join(ids)})" + (f"; did you mean `{match}`?" if match else "")
        )
        return problems
    if metric.max_score == 100 and mapping.scale == "fraction":
        problem(f"metric `{metric.id}` goes up to 100: its scale is `percent`, not `fraction`")
    if metric.max_score == 1 and mapping.scale == "percent":
        problem(f"metric `{metric.id}` goes up to 1: its scale is `fraction`, not `percent`")
    return problems


#: what a suggested row holds where nothing can be known: text that fails `parse_mappings`
#: or `check_mappings` until a person replaces it, so that such a row is never used as is
PLACEHOLDERS = {
    "benchmark": "<org/name>",
    "task_id": "<task id from its eval.yaml>",
    "metric_id": "<metric id from its eval.yaml>",
    "scale": "<fraction|percent>",
    "source_scale": "<fraction|percent>",
}

#: a suggested row: its keys in order, None where nothing can be known (a placeholder)
Fields = list[tuple[str, str | None]]


def mapping_fields(framework: str, task: str, metric: str, *, scale_known: bool) -> Fields:
    """The row for an unmapped score when nothing but the framework side is known."""
    fields: Fields = [
        ("framework", framework),
        ("task", task),
        ("metric", metric),
        ("benchmark", None),
        ("task_id", None),
        ("scale", None),
    ]
    if not scale_known:
        fields.append(("source_scale", None))
    return fields


def row_line(fields: Fields) -> str:
    """A suggested row as the one line printed: `- {framework: "lm-eval", ...}`, the framework
    side quoted exactly, the unknown parts as `<placeholders>`."""

    def shown(key: str, value: str | None) -> str:
        if value is None:
            return PLACEHOLDERS[key]
        return json.dumps(value) if key in ("framework", "task", "metric") else value

    return "- {" + ", ".join(f"{key}: {shown(key, value)}" for key, value in fields) + "}"


def row_values(fields: Fields) -> dict[str, str]:
    """A suggested row as the mapping a file holds, placeholders in the unknown places."""
    return {key: PLACEHOLDERS[key] if value is None else value for key, value in fields}
