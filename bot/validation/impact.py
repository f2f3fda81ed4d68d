"""What a change to a benchmark's eval.yaml does to the results that already reference it: the
ones it orphans or re-ranks, pure (docs/comment.md, "PRs on benchmark datasets")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.validation.limits import DEFAULT_LIMITS
from bot.validation.model import Benchmark
from bot.validation.yamlload import load_yaml


class ChangeKind(StrEnum):
    TASK_REMOVED = "task-removed"
    TASK_RENAMED = "task-renamed"
    METRIC_REMOVED = "metric-removed"
    METRIC_RENAMED = "metric-renamed"
    PRIMARY_CHANGED = "primary-changed"
    DIRECTION_FLIPPED = "direction-flipped"


@dataclass(frozen=True, slots=True)
class Change:
    kind: ChangeKind
    old: str
    new: str | None = None


@dataclass(frozen=True, slots=True)
class ResultRef:
    """One entry of a model's results file that names the benchmark."""

    model_id: str
    path: str
    line: int
    task_id: str | None
    metric_ids: tuple[str, ...]  # a target entry's metric ids; () for a live entry
    pr: int | None = None


@dataclass(frozen=True, slots=True)
class Impact:
    changes: tuple[Change, ...]
    orphaned: tuple[tuple[ResultRef, Change], ...]
    reranked: tuple[ResultRef, ...]
    results: int  # results looked at


def compare(old: Benchmark, new: Benchmark) -> list[Change]:
    """The changes from `old` to `new` that matter to existing results, in a stable order."""
    changes: list[Change] = []
    old_tasks = [task.id for task in old.tasks]
    new_tasks = [task.id for task in new.tasks]
    changes.extend(
        _id_changes(old_tasks, new_tasks, ChangeKind.TASK_REMOVED, ChangeKind.TASK_RENAMED)
    )
    old_metrics = [metric.id for metric in old.metrics]
    new_metrics = [metric.id for metric in new.metrics]
    metric_changes = _id_changes(
        old_metrics, new_metrics, ChangeKind.METRIC_REMOVED, ChangeKind.METRIC_RENAMED
    )
    changes.extend(metric_changes)
    renamed = {c.old: c.new for c in metric_changes if c.kind is ChangeKind.METRIC_RENAMED}
    before, after = old.primary_metric, new.primary_metric
    if before is not None and after is not None and renamed.get(before.id, before.id) != after.id:
        changes.append(Change(ChangeKind.PRIMARY_CHANGED, before.id, after.id))
    for metric in old.metrics:
        counterpart = new.metric(renamed.get(metric.id) or metric.id)
        if counterpart is not None and counterpart.higher_is_better != metric.higher_is_better:
            changes.append(Change(ChangeKind.DIRECTION_FLIPPED, metric.id, counterpart.id))
    return changes


def _id_changes(
    old: Sequence[str], new: Sequence[str], removed_kind: ChangeKind, renamed_kind: ChangeKind
) -> list[Change]:
    removed = [item for item in old if item not in new]
    added = [item for item in new if item not in old]
    if removed and len(removed) == len(added):
        return [Change(renamed_kind, a, b) for a, b in zip(removed, added, strict=True)]
    return [Change(removed_kind, item) for item in removed]


def referencing(
    content: bytes, benchmark_id: str, model_id: str, path: str, pr: int | None = None
) -> list[ResultRef]:
    """The entries of a results file that name `benchmark_id` (case-insensitively)."""
    loaded = load_yaml(content, DEFAULT_LIMITS)
    if not loaded.ok or not isinstance(loaded.data, list):
        return []
    refs: list[ResultRef] = []
    for index, item in enumerate(loaded.data):
        dataset = item.get("dataset") if isinstance(item, dict) else None
        if not isinstance(dataset, dict) or not isinstance(dataset.get("id"), str):
            continue
        if dataset["id"].lower() != benchmark_id.lower():
            continue
        task = dataset.get("task_id")
        metrics = item.get("metrics") if isinstance(item.get("metrics"), list) else []
        ids = tuple(
            str(metric["metric_id"])
            for metric in metrics
            if isinstance(metric, dict) and isinstance(metric.get("metric_id"), str)
        )
        line = loaded.positions.get((index,), (0, 0))[0]
        task_id = task if isinstance(task, str) else None
        refs.append(ResultRef(model_id, path, line, task_id, ids, pr))
    return refs


def assess(changes: Sequence[Change], results: Sequence[ResultRef]) -> Impact:
    tasks = {
        c.old: c for c in changes if c.kind in (ChangeKind.TASK_REMOVED, ChangeKind.TASK_RENAMED)
    }
    metrics = {
        c.old: c
        for c in changes
        if c.kind in (ChangeKind.METRIC_REMOVED, ChangeKind.METRIC_RENAMED)
    }
    ranking = any(
        c.kind in (ChangeKind.PRIMARY_CHANGED, ChangeKind.DIRECTION_FLIPPED) for c in changes
    )
    orphaned: list[tuple[ResultRef, Change]] = []
    reranked: list[ResultRef] = []
    for result in results:
        cause = tasks.get(result.task_id or "") or next(
            (metrics[m] for m in result.metric_ids if m in metrics), None
        )
        if cause is not None:
            orphaned.append((result, cause))
        elif ranking:
            reranked.append(result)
    return Impact(tuple(changes), tuple(orphaned), tuple(reranked), len(results))
