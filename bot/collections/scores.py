"""The scores a collection reads from a model's validated results, main first, then open PRs.

Only entries that passed validation count (an invalid one is not a result), matched on the
canonical benchmark id, the exact `task_id`, the metric, and `notes` when the collection names
them. A later layer (an open PR's changed files) replaces an earlier one (main) for the
benchmarks it has results for: the PR's head is what the repo would hold once it is merged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.collections.aggregate import Found, Origin
from bot.collections.model import VALUE_METRIC, Collection, CollectionBenchmark
from bot.spec.formats import is_finite_number
from bot.spec.model import Dialect, EntryReport, FileReport


@dataclass(frozen=True, slots=True)
class ResultsLayer:
    """Validated results files of one revision: main (`pr` None) or an open PR's changed files."""

    reports: Sequence[FileReport]
    pr: int | None = None


def find_scores(collection: Collection, layers: Sequence[ResultsLayer]) -> dict[int, Found]:
    """Each collection benchmark's candidates, by its index; the last layer that has any wins."""
    found: dict[int, Found] = {}
    for layer in layers:
        for index, member in enumerate(collection.benchmarks):
            candidates = tuple(
                (value, Origin(report.path, entry.entry.line, layer.pr, _notes(entry)))
                for report in layer.reports
                for entry in report.entries
                if (value := score_of(entry, member)) is not None
            )
            if candidates:
                found[index] = Found(candidates)
    return found


def score_of(entry: EntryReport, member: CollectionBenchmark) -> float | None:
    """The entry's score for `member`, or None when the entry is not a result for it."""
    benchmark = entry.benchmark
    if not entry.ok or benchmark is None:
        return None
    if benchmark.repo_id.lower() != member.id.lower() or entry.entry.task_id != member.task_id:
        return None
    if member.notes is not None and _notes(entry) != member.notes:
        return None
    data = entry.entry.data
    if entry.entry.dialect is Dialect.LIVE:
        primary = benchmark.primary_metric
        stands_for = primary.id if primary is not None else VALUE_METRIC
        value = data.get("value") if member.metric == stands_for else None
    else:
        metrics = data.get("metrics")
        value = next(
            (
                item.get("value")
                for item in metrics or ()
                if isinstance(item, dict) and item.get("metric_id") == member.metric
            ),
            None,
        )
    return float(value) if is_finite_number(value) else None


def _notes(entry: EntryReport) -> str | None:
    notes = entry.entry.data.get("notes")
    return notes if isinstance(notes, str) else None
