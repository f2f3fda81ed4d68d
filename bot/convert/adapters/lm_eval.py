"""lm-evaluation-harness `results_<date>.json` (0.4's `lm_eval/result_schema.py`, and 0.3's plain
keys); the names and fields read: docs/convert.md, "Formats"."""

from __future__ import annotations

from typing import Any, ClassVar

from bot.convert.adapters._common import (
    hub_id,
    is_uncertainty,
    iso_from_epoch,
    iso_from_filename,
    mapping,
    not_a_number,
    number,
    sha40,
    text,
    version_text,
)
from bot.convert.model import LeftOut, Run, Scale, Score
from bot.convert.registry import ConvertError, adapter

#: Metrics lm-eval reports as proportions in [0, 1]; any other metric's scale is not assumed
#: (bleu is 0-100, perplexities are unbounded): the mapping must then state `source_scale`.
FRACTION_METRICS = frozenset(
    {
        "acc",
        "acc_norm",
        "acc_mutual_info",
        "exact_match",
        "em",
        "f1",
        "mc1",
        "mc2",
        "inst_level_strict_acc",
        "inst_level_loose_acc",
        "prompt_level_strict_acc",
        "prompt_level_loose_acc",
        "pass@1",
        "pass_at_1",
    }
)
_NOT_METRICS = frozenset({"alias", "name", "sample_len", "sample_count", "samples"})


@adapter
class LmEvalAdapter:
    name: ClassVar[str] = "lm-eval"
    description: ClassVar[str] = "lm-evaluation-harness results_*.json"

    def sniff(self, filename: str, content: bytes, data: Any) -> bool:
        return (
            isinstance(data, dict)
            and isinstance(data.get("results"), dict)
            and "config_general" not in data
            and ("lm_eval_version" in data or "versions" in data or "n-shot" in data)
        )

    def read(self, filename: str, content: bytes, data: Any) -> list[Run]:
        if not self.sniff(filename, content, data):
            raise ConvertError(f"{filename}: not an lm-eval results file (no `results` mapping)")
        config = mapping(data.get("config"))
        run = Run(
            framework=self.name,
            framework_version=text(data.get("lm_eval_version")),
            model=_model(config, data),
            model_revision=sha40(config.get("model_sha")),
            date=iso_from_epoch(data.get("date")) or iso_from_filename(filename),
        )
        samples = mapping(data.get("n-samples"))
        higher = mapping(data.get("higher_is_better"))
        configs = mapping(data.get("configs"))
        versions = mapping(data.get("versions"))
        parents = _parents(mapping(data.get("group_subtasks")))
        seen: set[str] = set()
        for section in ("results", "groups"):
            for task, values in mapping(data.get(section)).items():
                if task in seen or not isinstance(values, dict):
                    continue
                seen.add(task)
                counts = mapping(samples.get(task))
                effective = counts.get("effective")
                original = counts.get("original")
                if (
                    isinstance(effective, int)
                    and isinstance(original, int)
                    and effective < original
                ):
                    run.problems.append(
                        f"task `{task}` ran on {effective} of {original} samples (--limit):"
                        " its scores are not comparable with a full run"
                    )
                task_config = mapping(configs.get(task))
                found = _scores(
                    task,
                    values,
                    mapping(higher.get(task)),
                    task_config,
                    effective,
                    version=version_text(versions.get(task)),
                    parent=parents.get(task),
                    left_out=run.left_out,
                )
                run.scores.extend(found)
        if not run.scores:
            run.problems.append("the file holds no numeric score")
        return [run]


def _parents(groups: dict[str, Any]) -> dict[str, str]:
    """Subtask -> its group, from `group_subtasks` (`{"mmlu": ["mmlu_stem", ...]}`)."""
    parents: dict[str, str] = {}
    for group, subtasks in groups.items():
        if isinstance(subtasks, list):
            for subtask in subtasks:
                if isinstance(subtask, str) and subtask != group:
                    parents.setdefault(subtask, group)
    return parents


def _model(config: dict[str, Any], data: dict[str, Any]) -> str | None:
    named = text(data.get("model_name"))
    if named is not None:
        return named
    args = config.get("model_args")
    if isinstance(args, dict):
        return text(args.get("pretrained"))
    if isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() == "pretrained" and value.strip():
                return value.strip()
    return text(config.get("model"))


def _scores(
    task: str,
    values: dict[str, Any],
    higher: dict[str, Any],
    config: dict[str, Any],
    effective: Any,
    *,
    version: str | None,
    parent: str | None,
    left_out: list[LeftOut],
) -> list[Score]:
    dataset_id = hub_id(config.get("dataset_path"))
    # lm-eval scores `test_split`, or `validation_split` when a task has no test split (GPQA)
    split = text(config.get("test_split")) or text(config.get("validation_split"))
    dataset_config = text(config.get("dataset_name"))
    kwargs = mapping(config.get("dataset_kwargs"))
    revision = text(kwargs.get("revision"))
    scores: list[Score] = []
    for key, raw in values.items():
        base, _, filter_name = key.partition(",")
        if key in _NOT_METRICS or is_uncertainty(base):
            continue
        value = number(raw)
        if value is None:
            left_out.append(LeftOut(task, key, not_a_number(raw)))
            continue
        stderr_key = f"{base}_stderr,{filter_name}" if filter_name else f"{base}_stderr"
        direction = higher.get(base)
        scale: Scale | None = "fraction" if base in FRACTION_METRICS else None
        scores.append(
            Score(
                task=task,
                metric=key,
                value=value,
                scale=scale,
                stderr=_float(values.get(stderr_key)),
                num_samples=effective if isinstance(effective, int) else None,
                higher_is_better=direction if isinstance(direction, bool) else None,
                dataset_id=dataset_id,
                dataset_revision=revision,
                dataset_config=dataset_config,
                dataset_split=split,
                task_version=version,
                parent=parent,
            )
        )
    return scores


def _float(value: Any) -> float | None:
    found = number(value)
    return float(found) if found is not None else None
