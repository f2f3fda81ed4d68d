"""EvalScope reports (`outputs/<ts>/reports/<model>/<benchmark>.json`, schema 2 and legacy);
the names and fields read: docs/convert.md, "Formats"."""

from __future__ import annotations

from typing import Any, ClassVar

from bot.convert.adapters._common import is_uncertainty, mapping, not_a_number, number, text
from bot.convert.model import LeftOut, Run, Scale, Score
from bot.convert.registry import ConvertError, adapter


@adapter
class EvalScopeAdapter:
    name: ClassVar[str] = "evalscope"
    description: ClassVar[str] = "EvalScope report JSON (schema 2 and legacy)"

    def sniff(self, filename: str, content: bytes, data: Any) -> bool:
        return (
            isinstance(data, dict)
            and isinstance(data.get("dataset_name"), str)
            and isinstance(data.get("metrics"), list)
            and "evaluation_results" not in data
        )

    def read(self, filename: str, content: bytes, data: Any) -> list[Run]:
        if not self.sniff(filename, content, data):
            raise ConvertError(f"{filename}: not an EvalScope report (no `dataset_name`)")
        run = Run(framework=self.name, model=text(data.get("model_name")))
        task = data["dataset_name"]
        summary = mapping(data.get("execution_summary"))
        errored = number(summary.get("errored")) or 0
        if errored > 0 or summary.get("incomplete") is True:
            requested, succeeded = summary.get("requested"), summary.get("succeeded")
            run.problems.append(
                f"not every sample was scored: {succeeded} of {requested} succeeded,"
                f" {errored} errored"
                + (", the run is incomplete" if summary.get("incomplete") else "")
            )
        reason = text(data.get("primary_metric_unavailable_reason"))
        if reason is not None:
            run.problems.append(f"no primary metric: {reason}")
        for metric in data["metrics"]:
            if isinstance(metric, dict):
                run.scores.extend(_scores(task, metric, run.left_out))
        if not run.scores:
            run.problems.append("the report holds no numeric score")
        return [run]


def _scores(task: str, metric: dict[str, Any], left_out: list[LeftOut]) -> list[Score]:
    identity = mapping(metric.get("identity"))
    if identity:
        name = _identity_name(identity)
        scale = _scale(mapping(metric.get("semantics")))
        semantics = mapping(metric.get("semantics"))
        direction = text(semantics.get("direction"))
        higher = {"higher_is_better": True, "lower_is_better": False}.get(direction or "")
    else:
        name = text(metric.get("name")) or "score"
        scale = "fraction" if "acc" in name.lower() else None
        higher = None
    found: list[Score] = []
    if is_uncertainty(name):
        return found
    value = number(metric.get("score"))
    count = metric.get("num")
    if value is not None:
        found.append(_score(task, name, value, scale, higher, count))
    elif "score" in metric:
        left_out.append(LeftOut(task, name, not_a_number(metric.get("score"))))
    seen = {task}
    for category in metric.get("categories") or []:
        for raw_subset in mapping(category).get("subsets") or []:
            subset = mapping(raw_subset)
            subset_name = text(subset.get("name"))
            subset_value = number(subset.get("score"))
            if subset_name is None or subset.get("is_aggregate"):
                continue
            subset_task = f"{task}/{subset_name}"
            if subset_task in seen:
                continue
            seen.add(subset_task)
            if subset_value is None:
                left_out.append(LeftOut(subset_task, name, not_a_number(subset.get("score"))))
                continue
            found.append(
                _score(subset_task, name, subset_value, scale, higher, subset.get("num"), task)
            )
    return found


def _score(  # noqa: PLR0917  (one call shape, two call sites)
    task: str,
    name: str,
    value: float | int,
    scale: Scale | None,
    higher: bool | None,
    count: Any,
    parent: str | None = None,
) -> Score:
    return Score(
        parent=parent,
        task=task,
        metric=name,
        value=value,
        scale=scale,
        higher_is_better=higher,
        num_samples=count if isinstance(count, int) and not isinstance(count, bool) else None,
    )


def _identity_name(identity: dict[str, Any]) -> str:
    name = text(identity.get("name")) or "score"
    aggregation = text(identity.get("aggregation"))
    if aggregation not in (None, "mean"):
        name += f"@{aggregation}"
    dimensions = mapping(identity.get("dimensions"))
    if dimensions:
        name += "[" + ",".join(f"{key}={dimensions[key]}" for key in sorted(dimensions)) + "]"
    return name


def _scale(semantics: dict[str, Any]) -> Scale | None:
    bounds = mapping(semantics.get("value_range"))
    low, high = number(bounds.get("min")), number(bounds.get("max"))
    if low == 0 and high == 1:
        return "fraction"
    if low == 0 and high == 100:
        return "percent"
    return None
