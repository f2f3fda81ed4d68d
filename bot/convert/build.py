"""Runs plus the mapping table -> `.eval_results` entries (plain dicts); a score no row maps is
`Unmapped`, with the row to add (docs/convert.md, "Run metadata", "The mapping table")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.convert.evidence import disagreement, suggested_fields
from bot.convert.mapping import Fields, MappingTable, mapping_fields, row_line
from bot.convert.model import LeftOut, Run, Score
from bot.convert.scale import SCALE_TOP, rescale
from bot.validation.model import Benchmark, benchmark_file_stem

#: a benchmark by its Hub id, or None when it cannot be read (`entries_from` looks them up)
BenchmarkOf = Callable[[str], Benchmark | None]


def _no_benchmarks(_dataset_id: str) -> Benchmark | None:
    return None


@dataclass(frozen=True, slots=True)
class Unmapped:
    """A score no row maps; `line` is the row to add."""

    framework: str
    task: str
    metric: str
    value: float | int
    score: Score
    #: the benchmark the score's recorded dataset is, among those the conversion read (no
    #: lookup happens here): `line` is built when it is read, usually for a few rows only
    benchmark_of: BenchmarkOf = field(default=_no_benchmarks, compare=False, repr=False)

    @property
    def fields(self) -> Fields:
        """The row to add: completed from the evidence when the dataset the output records is
        a benchmark evalbot can read, else the framework side only (None: unknown)."""
        dataset_id = self.score.dataset_id
        benchmark = self.benchmark_of(dataset_id) if dataset_id is not None else None
        if benchmark is not None:
            return suggested_fields(self.framework, self.score, benchmark)
        return mapping_fields(
            self.framework, self.task, self.metric, scale_known=self.score.scale is not None
        )

    @property
    def line(self) -> str:
        """The row to add, as the line printed."""
        return row_line(self.fields)


@dataclass(frozen=True, slots=True)
class ScaleUnknown:
    task: str
    metric: str
    message: str


@dataclass(slots=True)
class Built:
    """What `build_entries` made of the runs.

    `left_out` are scores a row (or a record's declared target) would have converted but whose
    value cannot be (NaN, infinite, a text, outside its scale): they block writing unless the
    user allows a partial result. `ignored` are unconvertible values of scores no row maps:
    reported, never blocking, since nothing would have been written for them."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    ignored: list[LeftOut] = field(default_factory=list)
    converted: set[str] = field(default_factory=set)  # tasks with a score in an entry
    #: each converted task's entry: (benchmark id, task id), the first one it gave
    origins: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: unmapped scores of a task that is converted, or part of one (its subsets, subtasks):
    #: rows deliberately not needed, so not suggested unless asked for
    not_needed: list[Unmapped] = field(default_factory=list)
    #: what the entries leave out and why, said to the user (never blocking)
    notes: list[str] = field(default_factory=list)


def build_entries(
    adapter: str,
    runs: list[Run],
    table: MappingTable,
    *,
    source: dict[str, str] | None = None,
    benchmark_of: BenchmarkOf = _no_benchmarks,
    suggestion_of: BenchmarkOf = _no_benchmarks,
) -> Built:
    """The entries of `runs`, the scores left unmapped or out, and problems; `source` is the
    user's `source.url`/`name`. `benchmark_of` gives the eval.yaml a row's recorded evidence
    is checked against; `suggestion_of` the benchmark an unmapped score's recorded dataset is,
    which completes the row suggested for it."""
    built = Built()
    by_key: dict[tuple[str, str, str | None], dict[str, Any]] = {}
    for run in runs:
        for left in run.left_out:
            mapped = table.find(adapter, left.task, left.metric) is not None
            (built.left_out if mapped else built.ignored).append(left)
        for score in run.scores:
            target = _target(adapter, run, score, table, built, benchmark_of)
            if target is None:
                if score.declared is None and table.find(adapter, score.task, score.metric) is None:
                    built.unmapped.append(
                        Unmapped(
                            adapter, score.task, score.metric, score.value, score, suggestion_of
                        )
                    )
                continue
            dataset_id, task_id, metric_id, notes, value, extra = target
            built.converted.add(score.task)
            built.origins.setdefault(score.task, (dataset_id, task_id))
            key = (dataset_id.lower(), task_id, notes)
            existing = by_key.get(key)
            if metric_id is not None and existing is not None and "metrics" in existing:
                existing["metrics"].append({"metric_id": metric_id, "value": value})
                continue
            entry = _entry(run, score, dataset_id, task_id, metric_id, notes, value, extra, source)
            _bind_framework(entry, run, benchmark_of(dataset_id), built.notes)
            by_key[key] = entry
            built.entries.append(entry)
    _set_aside_not_needed(built, runs)
    for entry in built.entries:
        if "metrics" in entry:
            entry["metrics"].sort(key=lambda metric: metric["metric_id"])
    return built


def _bind_framework(
    entry: dict[str, Any], run: Run, benchmark: Benchmark | None, notes: list[str]
) -> None:
    """Leave `framework` out of an entry whose benchmark is bound to another framework.

    `framework` comes from the draft format, whose rule D1 binds a benchmark's leaderboard to
    the `evaluation_framework` of its eval.yaml; written with another framework's name, the
    entry would carry a warning of evalbot's making (ENTRY-FRAMEWORK-MISMATCH) and fail
    `validate --strict`. Without it, the entry is what the Hub's live format holds: a
    community result, its setup named in `notes` (docs/convert.md#the-framework-field).
    """
    bound = benchmark.evaluation_framework if benchmark is not None else None
    framework = entry.get("framework")
    if bound is None or not isinstance(framework, dict) or framework.get("name") == bound:
        return
    del entry["framework"]
    assert benchmark is not None
    note = (
        f"{benchmark.repo_id}'s leaderboard is bound to `{bound}` (the evaluation_framework of"
        f" its eval.yaml): its {run.framework} entries are written without `framework`, as"
        " community results"
        + (
            " (the setup is in `notes`)"
            if "notes" in entry
            else "; a mapping row's `notes` can name the setup"
        )
    )
    if note not in notes:
        notes.append(note)


def _set_aside_not_needed(built: Built, runs: list[Run]) -> None:
    """Move to `not_needed` the unmapped scores of converted tasks and of their parts."""
    parents = {score.task: score.parent for run in runs for score in run.scores if score.parent}

    def covered(task: str) -> bool:
        seen: set[str] = set()
        current: str | None = task
        while current is not None and current not in seen:
            if current in built.converted:
                return True
            seen.add(current)
            current = parents.get(current)
        return False

    keep: list[Unmapped] = []
    for unmapped in built.unmapped:
        (built.not_needed if covered(unmapped.task) else keep).append(unmapped)
    built.unmapped = keep


Target = tuple[str, str, str | None, str | None, float | int, dict[str, Any]]


def _target(  # noqa: PLR0917  (one call site)
    adapter: str,
    run: Run,
    score: Score,
    table: MappingTable,
    built: Built,
    benchmark_of: BenchmarkOf,
) -> Target | None:
    declared = score.declared
    if declared is not None:
        extra: dict[str, Any] = {}
        if declared.model_revision is not None:
            extra["model_revision"] = declared.model_revision
        if declared.source is not None:
            extra["source"] = dict(declared.source)
        if declared.run is not None:
            extra["run"] = dict(declared.run)
        return (
            declared.dataset_id,
            declared.task_id,
            declared.metric_id,
            declared.notes,
            score.value,
            extra,
        )
    mapping = table.find(adapter, score.task, score.metric)
    if mapping is None:
        return None
    contradiction = disagreement(
        score, mapping, benchmark_of(mapping.benchmark), run.framework_version
    )
    if contradiction is not None:
        built.problems.append(contradiction)
        return None
    source_scale = mapping.source_scale or score.scale
    if source_scale is None:
        built.problems.append(
            f"{adapter} task `{score.task}` metric `{score.metric}`: its scale is not known;"
            f" add `source_scale: fraction` or `percent` to the mapping row at"
            f" {mapping.file}:{mapping.line}"
        )
        return None
    top = SCALE_TOP[source_scale]
    if not 0 <= score.value <= top:
        said = (
            "the framework writes it on"
            if mapping.source_scale is None
            else f"the row at {mapping.file}:{mapping.line} says it is on"
        )
        built.left_out.append(
            LeftOut(
                score.task,
                score.metric,
                f"its value {score.value!r} is outside 0-{top}, the {source_scale} scale {said}",
            )
        )
        return None
    value = rescale(score.value, source_scale, mapping.scale)
    return (mapping.benchmark, mapping.task_id, mapping.metric_id, mapping.notes, value, {})


def _entry(  # noqa: PLR0917
    run: Run,
    score: Score,
    dataset_id: str,
    task_id: str,
    metric_id: str | None,
    notes: str | None,
    value: float | int,
    extra: dict[str, Any],
    source: dict[str, str] | None,
) -> dict[str, Any]:
    dataset: dict[str, Any] = {"id": dataset_id, "task_id": task_id}
    if (
        score.dataset_revision is not None
        and score.dataset_id is not None
        and score.dataset_id.lower() == dataset_id.lower()
    ) or (score.declared is not None and score.dataset_revision is not None):
        dataset["revision"] = score.dataset_revision
    entry: dict[str, Any] = {"dataset": dataset}
    if metric_id is not None:
        entry["metrics"] = [{"metric_id": metric_id, "value": value}]
    else:
        entry["value"] = value
    run_fields = _run_fields(score, extra)
    if run.framework is not None:
        framework = {"name": run.framework}
        if run.framework_version is not None:
            framework["version"] = run.framework_version
        if run.command is not None:
            framework["command"] = run.command
        entry["framework"] = framework
    if run_fields:
        entry["run"] = run_fields
    model_revision = extra.get("model_revision", run.model_revision)
    if model_revision is not None:
        entry["model_revision"] = model_revision
    if run.date is not None:
        entry["date"] = run.date
    chosen_source = extra.get("source") or source
    if chosen_source:
        entry["source"] = dict(chosen_source)
    if notes is not None:
        entry["notes"] = notes
    return entry


def _run_fields(score: Score, extra: dict[str, Any]) -> dict[str, Any]:
    """The entry's `run`: the sample count the value was computed on (`num_samples`) and the
    task's version (`adapter_version`, the task definition on top of the framework), where the
    output records them; a record that carried other `run` fields gives them back too."""
    fields: dict[str, Any] = dict(extra.get("run") or {})
    if score.num_samples is not None:
        fields["num_samples"] = score.num_samples
    if score.task_version is not None:
        fields["adapter_version"] = score.task_version
    return fields


def results_path(dataset_id: str) -> str:
    """The Hub's naming rule: `.eval_results/<repo name, lower-cased, - as _>.yaml`."""
    return f".eval_results/{benchmark_file_stem(dataset_id)}.yaml"


def group_by_file(entries: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    files: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        files.setdefault(results_path(entry["dataset"]["id"]), []).append(entry)
    return files
