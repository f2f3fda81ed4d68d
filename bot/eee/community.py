"""EEE's correspondence between a datastore record and a Community Evals entry: which result
stands for which benchmark and task, its value and its date, mirroring
`every_eval_ever/tools/hf_community_evals.py` (evaleval/every_eval_ever @ 9bce4136) function by
function (docs/diagnostics.md#entry-source-mismatch-error)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class BenchmarkConfig:
    """`BenchmarkConfig` of the converter: a benchmark's id, task, aliases, preferred metrics."""

    dataset_id: str
    task_id: str | None
    dataset_aliases: tuple[str, ...] = ()
    preferred_metric_ids: tuple[str, ...] = ()


#: `BENCHMARK_CONFIGS` of the converter (the YAML file names left out).
BENCHMARK_CONFIGS: dict[str, BenchmarkConfig] = {
    "gpqa": BenchmarkConfig("Idavidrein/gpqa", "diamond", ("reasoningMIA/gpqa_diamond",)),
    "hle": BenchmarkConfig(
        "cais/hle", "default", preferred_metric_ids=("hle.accuracy", "hle/accuracy")
    ),
    "mmlu_pro": BenchmarkConfig(
        "TIGER-Lab/MMLU-Pro",
        "mmlu_pro",
        preferred_metric_ids=("mmlu_pro/overall", "mmlu-pro::chain-of-thought-correctness"),
    ),
    "gsm8k": BenchmarkConfig("openai/gsm8k", "gsm8k", ("gsm8k",)),
}


def config_for(dataset_id: str) -> tuple[str | None, BenchmarkConfig]:
    """The converter's name and config of the benchmark `dataset_id` names (an alias included);
    for any other benchmark, a config of its own id (no name)."""
    wanted = dataset_id.strip().lower()
    for name, config in BENCHMARK_CONFIGS.items():
        if wanted in _dataset_ids(config):
            return name, config
    return None, BenchmarkConfig(dataset_id.strip(), None)


def normalize_benchmark(value: str) -> str:
    return value.strip().lower().replace("-", "_")


def _dataset_ids(config: BenchmarkConfig) -> set[str]:
    return {config.dataset_id.strip().lower(), *(a.strip().lower() for a in config.dataset_aliases)}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def result_matches_dataset(result: dict[str, Any], config: BenchmarkConfig) -> bool:
    """`_result_matches_dataset` of the converter."""
    source = _mapping(result.get("source_data"))
    if source.get("source_type") == "hf_dataset":
        hf_repo = _text(source.get("hf_repo")).strip().lower()
        if hf_repo in _dataset_ids(config):
            return True
        details = _mapping(source.get("additional_details"))
        benchmark_repo = str(details.get("benchmark_hf_repo") or "").strip().lower()
        if benchmark_repo in _dataset_ids(config):
            return True
        if hf_repo or config.task_id is None:
            return False
        return normalize_benchmark(_text(source.get("dataset_name"))) == normalize_benchmark(
            config.task_id
        )
    if source.get("source_type") == "url":
        urls = source.get("url")
        listed = urls if isinstance(urls, list) else []
        cleaned = [u.strip().lower().rstrip("/") for u in listed if isinstance(u, str)]
        return any(
            url.endswith(f"/datasets/{dataset_id}")
            for dataset_id in _dataset_ids(config)
            for url in cleaned
        )
    return False


def result_matches_preferred_metric(result: dict[str, Any], config: BenchmarkConfig) -> bool:
    """`_result_matches_preferred_metric` of the converter."""
    if not config.preferred_metric_ids:
        return True
    allowed = {item.strip().lower() for item in config.preferred_metric_ids}
    metric = _mapping(result.get("metric_config"))
    ids = {
        item.strip().lower()
        for item in (result.get("evaluation_result_id"), metric.get("metric_id"))
        if isinstance(item, str)
    }
    return bool(allowed & ids)


def results_for(record: dict[str, Any], dataset_id: str) -> list[dict[str, Any]]:
    """The record's evaluation results that stand for the benchmark `dataset_id`."""
    _, config = config_for(dataset_id)
    results = record.get("evaluation_results")
    return [
        result
        for result in (results if isinstance(results, list) else [])
        if isinstance(result, dict)
        and result_matches_dataset(result, config)
        and result_matches_preferred_metric(result, config)
    ]


def gpqa_variant_notes(result: dict[str, Any]) -> str | None:
    """`_gpqa_variant_notes` of the converter."""
    source = _mapping(result.get("source_data"))
    hf_repo = _text(source.get("hf_repo")).strip().lower()
    dataset_name = normalize_benchmark(_text(source.get("dataset_name"))).replace(" ", "_")
    result_id = _text(result.get("evaluation_result_id")).strip().lower()
    metric_name = _text(_mapping(result.get("metric_config")).get("metric_name")).strip().lower()
    if (
        hf_repo == "human-centered-eval/openeval"
        and dataset_name == "gpqa"
        and (
            result_id == "gpqa::chain-of-thought-correctness"
            or metric_name == "chain_of_thought_correctness"
        )
    ):
        return "GPQA chain-of-thought"
    if dataset_name == "gpqa_diamond" or result_id.startswith("gpqa_diamond/"):
        return "GPQA Diamond"
    return None


def task_ids_for(result: dict[str, Any], dataset_id: str) -> tuple[str, ...]:
    """The task ids the converter would write for `result` on `dataset_id` (empty: the record
    says nothing about the task). GPQA: `diamond`, or `main` for the chain-of-thought variant;
    an index row's `subset` may also pick `main` (`GPQA_SUBSET_NOTES`), so both are accepted
    for a result that is neither variant."""
    name, config = config_for(dataset_id)
    if name == "gpqa":
        notes = gpqa_variant_notes(result)
        if notes == "GPQA chain-of-thought":
            return ("main",)
        if notes == "GPQA Diamond":
            return ("diamond",)
        return ("diamond", "main")
    if config.task_id is not None:
        return (config.task_id,)
    subset = _mapping(result.get("source_data")).get("hf_subset")
    return (subset,) if isinstance(subset, str) and subset else ()


@dataclass(frozen=True, slots=True)
class Score:
    """A result's score: as recorded, and on the 0-100 scale (None when the record gives
    neither a unit nor a `max_score` of 1 or 100, as the converter requires)."""

    recorded: float
    percent: float | None


def score_of(result: dict[str, Any]) -> Score | None:
    """`_community_eval_value` of the converter, without its range check; None when the score
    is not a finite number."""
    score = _mapping(result.get("score_details")).get("score")
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        return None
    metric = _mapping(result.get("metric_config"))
    unit = _text(metric.get("metric_unit")).strip().lower()
    max_score = metric.get("max_score")
    if unit in {"percent", "percentage"} or max_score == 100:
        return Score(float(score), round(float(score), 10))
    if unit == "proportion" or max_score == 1:
        return Score(float(score), round(float(score) * 100, 10))
    return Score(float(score), None)


def date_of(record: dict[str, Any], result: dict[str, Any]) -> str | None:
    """`_date_from_result` of the converter: the evaluation's date, `YYYY-MM-DD`, or None."""
    value = result.get("evaluation_timestamp") or record.get("evaluation_timestamp")
    if not isinstance(value, str) or not value:
        return None
    if value.replace(".", "", 1).isdigit():
        try:
            return datetime.fromtimestamp(float(value), tz=UTC).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    return value[:10] if len(value) >= 10 else None
