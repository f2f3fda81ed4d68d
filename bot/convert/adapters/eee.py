"""Every Eval Ever aggregate records, of the schema versions `evalbot validate` checks, as a
source of entries; what is read: docs/convert.md, "Formats" and "Every Eval Ever"."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from bot.convert.adapters._common import hub_id, iso_from_epoch, iso_text, mapping, number, text
from bot.convert.model import DeclaredTarget, Run, Scale, Score
from bot.convert.registry import ConvertError, adapter
from bot.validation.eee import VERSIONS

#: `score_details.details` keys through which an EEE result carries `.eval_results` fields.
DETAIL_DATASET = "hf_dataset_id"
DETAIL_TASK = "hf_task_id"
DETAIL_METRIC = "hf_metric_id"
DETAIL_NOTES = "hf_notes"
DETAIL_MODEL_REVISION = "hf_model_revision"
DETAIL_SOURCE_PREFIX = "hf_source_"
DETAIL_DATASET_REVISION = "hf_dataset_revision"
DETAIL_FRAMEWORK_COMMAND = "hf_framework_command"
DETAIL_FRAMEWORK_NAME = "hf_framework_name"
DETAIL_FRAMEWORK_VERSION = "hf_framework_version"
DETAIL_RUN_PREFIX = "hf_run_"
#: `run` fields that are integers in an entry (details hold strings only)
_RUN_INTEGERS = frozenset({"seed", "batch_size", "num_samples"})


@adapter
class EeeAdapter:
    name: ClassVar[str] = "eee"
    description: ClassVar[str] = "Every Eval Ever aggregate records (schema 0.2.x, 0.3.0)"

    def sniff(self, filename: str, content: bytes, data: Any) -> bool:
        return (
            isinstance(data, dict)
            and "schema_version" in data
            and isinstance(data.get("evaluation_results"), list)
        )

    def read(self, filename: str, content: bytes, data: Any) -> list[Run]:
        if not self.sniff(filename, content, data):
            raise ConvertError(
                f"{filename}: not an Every Eval Ever aggregate record (no `evaluation_results`);"
                " instance-level JSONL holds samples, not scores: convert its aggregate record"
            )
        version = data.get("schema_version")
        if version not in VERSIONS:
            shown = json.dumps(version)[:40]
            raise ConvertError(
                f"{filename}: schema_version {shown} is not one evalbot reads"
                f" ({', '.join(VERSIONS)}; `evalbot validate` checks the same ones): write the"
                f" record again with schema {VERSIONS[-1]}"
            )
        library = mapping(data.get("eval_library"))
        model = mapping(data.get("model_info"))
        run = Run(
            framework=_known(text(library.get("name"))),
            framework_version=_known(text(library.get("version"))),
            model=text(model.get("id")) or text(model.get("name")),
            date=_date(data.get("evaluation_timestamp")),
        )
        for index, result in enumerate(data["evaluation_results"]):
            if not isinstance(result, dict):
                continue
            score = _score(index, result, run)
            if score is not None:
                run.scores.append(score)
        if not run.scores:
            run.problems.append("the record holds no numeric score")
        return [run]


def _known(value: str | None) -> str | None:
    return None if value is None or value.lower() == "unknown" else value


def _date(value: Any) -> str | None:
    return iso_text(value) or iso_from_epoch(value)


def _score(index: int, result: dict[str, Any], run: Run) -> Score | None:
    details = mapping(mapping(result.get("score_details")).get("details"))
    value = number(mapping(result.get("score_details")).get("score"))
    if value is None:
        run.problems.append(f"evaluation_results[{index}] has no finite score")
        return None
    config = mapping(result.get("metric_config"))
    source = mapping(result.get("source_data"))
    uncertainty = mapping(mapping(result.get("score_details")).get("uncertainty"))
    stderr = number(mapping(uncertainty.get("standard_error")).get("value"))
    samples = uncertainty.get("num_samples")
    lower = config.get("lower_is_better")
    if run.date is None:
        run.date = _date(result.get("evaluation_timestamp"))
    # a record written by evalbot names the entry's framework here (0.2.0 has no eval_library)
    for key, attribute in (
        (DETAIL_FRAMEWORK_COMMAND, "command"),
        (DETAIL_FRAMEWORK_NAME, "framework"),
        (DETAIL_FRAMEWORK_VERSION, "framework_version"),
    ):
        found = text(details.get(key))
        if found is not None:
            setattr(run, attribute, found)
    return Score(
        task=text(result.get("evaluation_name")) or f"result {index}",
        metric=text(config.get("metric_id")) or "score",
        value=value,
        scale=_scale(config),
        stderr=float(stderr) if stderr is not None else None,
        num_samples=samples if isinstance(samples, int) and not isinstance(samples, bool) else None,
        higher_is_better=(not lower) if isinstance(lower, bool) else None,
        dataset_id=hub_id(source.get("hf_repo")),
        dataset_revision=text(details.get(DETAIL_DATASET_REVISION)),
        task_version=text(details.get(DETAIL_RUN_PREFIX + "adapter_version")),
        declared=_declared(details),
    )


def _scale(config: dict[str, Any]) -> Scale | None:
    unit = (text(config.get("metric_unit")) or "").lower()
    if unit in ("percent", "percentage", "%"):
        return "percent"
    if unit in ("proportion", "fraction", "ratio"):
        return "fraction"
    low, high = number(config.get("min_score")), number(config.get("max_score"))
    if low == 0 and high == 1:
        return "fraction"
    if low == 0 and high == 100:
        return "percent"
    return None


def _declared(details: dict[str, Any]) -> DeclaredTarget | None:
    dataset_id, task_id = text(details.get(DETAIL_DATASET)), text(details.get(DETAIL_TASK))
    if dataset_id is None or task_id is None:
        return None
    source = {
        key[len(DETAIL_SOURCE_PREFIX) :]: value
        for key, value in details.items()
        if key.startswith(DETAIL_SOURCE_PREFIX) and isinstance(value, str)
    }
    run = _run(details)
    return DeclaredTarget(
        dataset_id=dataset_id,
        task_id=task_id,
        metric_id=text(details.get(DETAIL_METRIC)),
        notes=details.get(DETAIL_NOTES) if isinstance(details.get(DETAIL_NOTES), str) else None,
        model_revision=text(details.get(DETAIL_MODEL_REVISION)),
        source=source or None,
        run=run or None,
    )


def _run(details: dict[str, Any]) -> dict[str, str | int]:
    """The `run` fields an evalbot record carries as `hf_run_<key>` details (the sample count
    and the adapter version travel on the score itself)."""
    run: dict[str, str | int] = {}
    for key, value in details.items():
        name = key[len(DETAIL_RUN_PREFIX) :]
        if not key.startswith(DETAIL_RUN_PREFIX) or name == "adapter_version":
            continue
        if not isinstance(value, str):
            continue
        if name in _RUN_INTEGERS:
            if value.isdecimal():
                run[name] = int(value)
        else:
            run[name] = value
    return run
