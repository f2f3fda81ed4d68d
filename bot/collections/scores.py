"""The results a collection reads from a model repo: one merged view of main and each open PR's
changes, as the files would be once merged, every matching entry a candidate
(docs/collections.md, "Semantics")."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.collections.aggregate import Candidate, Found, GateResult, Origin, Unreadable, evaluate
from bot.collections.model import VALUE_METRIC, Collection, CollectionBenchmark
from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.model import Dialect, EntryReport, FileReport, is_finite_number

#: Validation limits for a whole repo's results (a folder, or a branch on the Hub): the per-file
#: caps hold, the files-per-PR cap does not (a collection may need more than a PR may carry).
REPO_LIMITS: Limits = replace(DEFAULT_LIMITS, max_files=sys.maxsize)

#: Validation's finding on the later of two entries for one benchmark and task: for a gate the
#: two are equals, and the pair is ambiguous (or, agreeing, still two sources).
DUPLICATE_CODE = "ENTRY-DUPLICATE"


@dataclass(frozen=True, slots=True)
class ResultsLayer:
    """Validated results files of one revision: main (`pr` None) or an open PR's changed files,
    with `removed` the results files that PR deletes."""

    reports: Sequence[FileReport]
    pr: int | None = None
    removed: frozenset[str] = frozenset()


def merged_view(layers: Sequence[ResultsLayer]) -> list[tuple[FileReport, int | None]]:
    """The files the layers leave, each with the PR it came from, in path order."""
    view: dict[str, tuple[FileReport, int | None]] = {}
    for layer in layers:
        for path in layer.removed:
            view.pop(path, None)
        for report in layer.reports:
            view[report.path] = (report, layer.pr)
    return [view[path] for path in sorted(view)]


def find_scores(collection: Collection, layers: Sequence[ResultsLayer]) -> dict[int, Found]:
    """Each collection benchmark's candidates in the merged view, by the benchmark's index.

    The view's entries are indexed once by (benchmark id, task) and by (benchmark id, task,
    notes), so a gate costs one pass over the entries plus one look-up per collection
    benchmark, not their product.
    """
    Held = list[tuple[EntryReport, str, int | None]]
    by_task: dict[tuple[str, str | None], Held] = {}
    by_notes: dict[tuple[str, str | None, str | None], Held] = {}
    for report, pr in merged_view(layers):
        for entry in report.entries:
            dataset, task = _dataset_of(entry).lower(), entry.entry.task_id
            held = (entry, report.path, pr)
            by_task.setdefault((dataset, task), []).append(held)
            by_notes.setdefault((dataset, task, _notes(entry)), []).append(held)
    found: dict[int, Found] = {}
    for index, member in enumerate(collection.benchmarks):
        dataset = member.id.lower()
        if member.notes is None:
            entries = by_task.get((dataset, member.task_id), [])
        else:
            entries = by_notes.get((dataset, member.task_id, member.notes), [])
        candidates = tuple(
            candidate
            for entry, path, pr in entries
            if (candidate := candidate_of(entry, member, path, pr)) is not None
        )
        if candidates:
            found[index] = Found(candidates)
    return found


def _dataset_of(entry: EntryReport) -> str:
    benchmark = entry.benchmark
    dataset_id = benchmark.repo_id if benchmark is not None else entry.entry.dataset_id
    return dataset_id or ""


def unreadable_files(layers: Sequence[ResultsLayer]) -> list[Unreadable]:
    """The view's files whose errors leave no entry (a YAML error, too many entries...)."""
    out: list[Unreadable] = []
    for report, pr in merged_view(layers):
        first = next((d for d in report.diagnostics if d.is_error), None)
        if report.entries or first is None:
            continue
        out.append(Unreadable(Origin(report.path, first.line or 1, pr), first.code, first.column))
    return out


def evaluate_view(collection: Collection, layers: Sequence[ResultsLayer]) -> GateResult:
    """The collection's gate over the merged view of `layers`: what every caller runs."""
    return evaluate(collection, find_scores(collection, layers), unreadable_files(layers))


def candidate_of(
    entry: EntryReport, member: CollectionBenchmark, path: str, pr: int | None
) -> Candidate | None:
    """The entry as a result for `member`, or None when it is a result for something else."""
    benchmark = entry.benchmark
    dataset_id = benchmark.repo_id if benchmark is not None else entry.entry.dataset_id
    if dataset_id is None or dataset_id.lower() != member.id.lower():
        return None
    if entry.entry.task_id != member.task_id:
        return None
    notes = _notes(entry)
    if member.notes is not None and notes != member.notes:
        return None
    present, value = _metric_value(entry, member)
    if not present:
        return None
    problems = tuple(
        sorted(
            {
                diagnostic.code
                for diagnostic in entry.diagnostics
                if diagnostic.is_error and diagnostic.code != DUPLICATE_CODE
            }
        )
    )
    number = float(value) if is_finite_number(value) else None
    return Candidate(number, Origin(path, entry.entry.line, pr, notes), problems)


def _metric_value(entry: EntryReport, member: CollectionBenchmark) -> tuple[bool, Any]:
    """(whether the entry reports `member`'s metric at all, the value it writes for it)."""
    data = entry.entry.data
    benchmark = entry.benchmark
    if entry.entry.dialect is Dialect.LIVE:
        primary = benchmark.primary_metric if benchmark is not None else None
        stands_for = primary.id if primary is not None else VALUE_METRIC
        if benchmark is not None and member.metric != stands_for:
            return False, None
        return "value" in data, data.get("value")
    metrics = data.get("metrics")
    for item in metrics if isinstance(metrics, list) else ():
        if isinstance(item, dict) and item.get("metric_id") == member.metric:
            return True, item.get("value")
    return False, None


def _notes(entry: EntryReport) -> str | None:
    notes = entry.entry.data.get("notes")
    return notes if isinstance(notes, str) else None
