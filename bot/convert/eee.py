"""`.eval_results` entries -> Every Eval Ever aggregate records (`evalbot convert --to eee`), with
every field EEE has no place for under `hf_*` details, so the round trip is exact
(docs/convert.md, "Every Eval Ever"). Pure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.convert.adapters import eee as keys
from bot.validation.eee import VERSIONS
from bot.validation.model import MetricDef

DEFAULT_VERSION = "0.3.0"
UNKNOWN = "unknown"

#: (framework name, framework version, benchmark id lower-cased): one record each
RecordKey = tuple[str | None, str | None, str]
#: benchmark id, its revision (None: the default branch), metric id or None (a live entry) ->
#: its definition, when the benchmark has one
MetricLookup = Callable[[str, str | None, str | None], MetricDef | None]


class EeeWriteError(ValueError):
    """The entries cannot be written as valid records of the requested schema version."""


def _no_metrics(_benchmark: str, _revision: str | None, _metric: str | None) -> MetricDef | None:
    return None


def to_eee(
    entries: list[dict[str, Any]],
    *,
    model_id: str,
    retrieved_timestamp: str,
    version: str = DEFAULT_VERSION,
    metric_of: MetricLookup = _no_metrics,
) -> list[dict[str, Any]]:
    """EEE records for `entries` of `model_id`; `retrieved_timestamp` is Unix seconds as text."""
    return [
        record
        for _key, record in keyed_records(
            entries,
            model_id=model_id,
            retrieved_timestamp=retrieved_timestamp,
            version=version,
            metric_of=metric_of,
        )
    ]


def record_key(framework: str | None, framework_version: str | None, benchmark: str) -> RecordKey:
    """The record a framework's results on a benchmark go to."""
    return framework, framework_version, benchmark.lower()


def keyed_records(
    entries: list[dict[str, Any]],
    *,
    model_id: str,
    retrieved_timestamp: str,
    version: str = DEFAULT_VERSION,
    metric_of: MetricLookup = _no_metrics,
) -> list[tuple[RecordKey, dict[str, Any]]]:
    """`to_eee`'s records, each with its `record_key` (what its samples are found by)."""
    if version not in VERSIONS:
        raise ValueError(f"EEE schema {version} is not one evalbot writes ({VERSIONS})")
    groups: dict[RecordKey, list[dict[str, Any]]] = {}
    for entry in entries:
        framework = _mapping(entry.get("framework"))
        key = record_key(framework.get("name"), framework.get("version"), entry["dataset"]["id"])
        groups.setdefault(key, []).append(entry)
    records = []
    for number, (key, members) in enumerate(groups.items()):
        name, framework_version, _benchmark = key
        results = [
            result
            for entry in members
            for result in _results(entry, version=version, metric_of=metric_of)
        ]
        record: dict[str, Any] = {
            "schema_version": version,
            "evaluation_id": f"{model_id}/{retrieved_timestamp}/{number}",
            "retrieved_timestamp": retrieved_timestamp,
            "source_metadata": {
                "source_name": "Hugging Face .eval_results",
                "source_type": "documentation",
                "source_organization_name": model_id.split("/", 1)[0],
                "evaluator_relationship": "other",
            },
            "model_info": {"name": model_id, "id": model_id},
            "evaluation_results": results,
        }
        if version != "0.2.0":
            record["eval_library"] = {
                "name": name or UNKNOWN,
                "version": framework_version or UNKNOWN,
            }
        if version == "0.3.0":
            record["model_info"]["additional_details"] = {
                "deployment_type": UNKNOWN,
                "model_availability": UNKNOWN,
            }
        records.append((key, record))
    return records


def _results(
    entry: dict[str, Any], *, version: str, metric_of: MetricLookup
) -> list[dict[str, Any]]:
    dataset = entry["dataset"]
    details: dict[str, str] = {
        keys.DETAIL_DATASET: dataset["id"],
        keys.DETAIL_TASK: dataset["task_id"],
    }
    if isinstance(dataset.get("revision"), str):
        details[keys.DETAIL_DATASET_REVISION] = dataset["revision"]
    if isinstance(entry.get("notes"), str):
        details[keys.DETAIL_NOTES] = entry["notes"]
    if isinstance(entry.get("model_revision"), str):
        details[keys.DETAIL_MODEL_REVISION] = entry["model_revision"]
    framework = _mapping(entry.get("framework"))
    for key, field in (
        (keys.DETAIL_FRAMEWORK_NAME, "name"),
        (keys.DETAIL_FRAMEWORK_VERSION, "version"),
        (keys.DETAIL_FRAMEWORK_COMMAND, "command"),
    ):
        if isinstance(framework.get(field), str):
            details[key] = framework[field]
    source = _mapping(entry.get("source"))
    for key, value in source.items():
        if isinstance(value, str):
            details[keys.DETAIL_SOURCE_PREFIX + key] = value
    run = _mapping(entry.get("run"))
    for key, value in run.items():
        if key != "num_samples" and isinstance(value, str | int) and not isinstance(value, bool):
            details[keys.DETAIL_RUN_PREFIX + key] = str(value)
    num_samples = run.get("num_samples")
    if "metrics" in entry:
        scores = [(metric["metric_id"], metric["value"]) for metric in entry["metrics"]]
    else:
        scores = [(None, entry["value"])]
    results = []
    for metric_id, value in scores:
        revision = dataset.get("revision")
        metric = metric_of(
            dataset["id"], revision if isinstance(revision, str) else None, metric_id
        )
        config: dict[str, Any] = {
            # the draft spec's default is higher_is_better: true (docs/convert.md)
            "lower_is_better": not metric.higher_is_better if metric is not None else False,
        }
        if metric is not None and metric.min_score is not None and metric.max_score is not None:
            config["score_type"] = "continuous"
            config["min_score"] = metric.min_score
            config["max_score"] = metric.max_score
        if version != "0.3.0" and "score_type" not in config:
            # The 0.2.x schemas read a metric_config without score_type as `levels` (their
            # `if` is vacuously true), so a result needs known bounds to be valid there.
            raise EeeWriteError(
                f"{dataset['id']} {metric_id or 'value'}: EEE {version} needs the metric's"
                " min_score and max_score, which its eval.yaml does not declare; write 0.3.0"
            )
        result_details = dict(details)
        if metric_id is not None:
            result_details[keys.DETAIL_METRIC] = metric_id
            if version == "0.3.0":
                config["metric_id"] = metric_id
        result: dict[str, Any] = {
            "evaluation_name": dataset["task_id"],
            "source_data": {
                "dataset_name": dataset["id"],
                "source_type": "hf_dataset",
                "hf_repo": dataset["id"],
            },
            "metric_config": config,
            "score_details": {"score": value, "details": result_details},
        }
        if isinstance(num_samples, int) and not isinstance(num_samples, bool):
            result["score_details"]["uncertainty"] = {"num_samples": num_samples}
        if isinstance(entry.get("date"), str):
            result["evaluation_timestamp"] = entry["date"]
        results.append(result)
    return results


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
