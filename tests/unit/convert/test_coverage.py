"""Every framework's tasks over a benchmark evalbot knows convert through the shipped rows, each
checked against the dataset, config and split the output records; a row the evidence
contradicts is refused; a suggestion for a dataset that is a known benchmark is a complete row.

The outputs are the real files of `tests/samples/` (provenance in their READMEs) with their task
renamed in code, and the task's recorded dataset set to what the framework's own task definition
reads (the values quoted beside each case, from the definitions the shipped rows cite).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import entries_from
from bot.convert.api import Conversion
from bot.convert.mapping import parse_mappings
from bot.convert.scale import exact_decimal

ROOT = Path(__file__).parents[3]
SAMPLES = ROOT / "tests" / "samples"
EXAMPLES = DirectoryBenchmarkSource(ROOT / "examples" / "benchmarks")
SHIPPED = parse_mappings(
    "bot/data/convert/mappings.yaml", (ROOT / "bot/data/convert/mappings.yaml").read_bytes()
)
LM_EVAL = SAMPLES / "real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"
LIGHTEVAL = SAMPLES / "convert/lighteval/gpt-5.2_results_2025-12-12T15-11-59.471879.json"
INSPECT = SAMPLES / "convert/inspect-ai/data_arc_qwen.json"
QWEN3_MAX = SAMPLES / "convert/evalscope/qwen3-max"


def lm_eval_run(task: str, metrics: dict[str, float], config: dict[str, Any]) -> bytes:
    """The real lm-eval file holding one task, `task`, with its config's dataset fields."""
    data = json.loads(LM_EVAL.read_bytes())
    [first, *_] = data["results"]
    template = data["configs"][first]
    data["results"] = {task: {"alias": task, **metrics}}
    data["configs"] = {task: {**template, "task": task, "dataset_name": None, **config}}
    data["group_subtasks"] = {task: []}
    data["versions"] = {task: 2.2}
    data["n-samples"] = {task: {"original": 198, "effective": 198}}
    data["higher_is_better"] = {task: {}}
    return json.dumps(data).encode()


def lighteval_run(task: str, metrics: dict[str, float], config: dict[str, Any]) -> bytes:
    data = json.loads(LIGHTEVAL.read_bytes())
    [(_name, template)] = data["config_tasks"].items()
    data["results"] = {task: metrics, "all": metrics}
    data["config_tasks"] = {task: {**template, **config}}
    data["versions"] = {task: 0}
    return json.dumps(data).encode()


def cells(conversion: Conversion) -> dict[tuple[str, str, str | None, str | None], str]:
    found = {}
    for entry in conversion.entries:
        dataset = entry["dataset"]
        for metric in entry.get("metrics", [{"metric_id": None, "value": entry.get("value")}]):
            key = (dataset["id"], dataset["task_id"], metric["metric_id"], entry.get("notes"))
            found[key] = str(exact_decimal(metric["value"]))
    return found


GPQA = {"dataset_path": "Idavidrein/gpqa", "validation_split": "train", "test_split": None}
IFEVAL = {"dataset_path": "google/IFEval", "test_split": "train"}
IFEVAL_METRICS = (
    "prompt_level_strict_acc",
    "inst_level_strict_acc",
    "prompt_level_loose_acc",
    "inst_level_loose_acc",
)


@pytest.mark.parametrize(
    ("task", "metric", "subset", "notes"),
    [
        ("gpqa_diamond_zeroshot", "acc,none", "diamond", "lm-eval gpqa_diamond_zeroshot"),
        ("gpqa_main_n_shot", "acc,none", "main", "lm-eval gpqa_main_n_shot"),
        (
            "gpqa_diamond_cot_zeroshot",
            "exact_match,strict-match",
            "diamond",
            "lm-eval gpqa_diamond_cot_zeroshot",
        ),
        (
            "gpqa_extended_generative_n_shot",
            "exact_match,strict-match",
            "extended",
            "lm-eval gpqa_extended_generative_n_shot",
        ),
    ],
)
def test_lm_eval_gpqa_variants(task: str, metric: str, subset: str, notes: str) -> None:
    """Was refused for a missing row: lm-eval's own GPQA tasks (lm_eval/tasks/gpqa)."""
    content = lm_eval_run(
        task, {metric: 0.5151515151515151}, {**GPQA, "dataset_name": f"gpqa_{subset}"}
    )
    conversion = entries_from(
        content, filename="results.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    assert conversion.ok(), conversion.problems
    [(key, value)] = cells(conversion).items()
    assert key[:3] == ("Idavidrein/gpqa", subset, None)
    assert key[3] is not None
    assert key[3].startswith(notes)
    assert value == "51.51515151515151"
    # the flexible extraction is no row's: not converted, not suggested
    both = lm_eval_run(
        task,
        {metric: 0.5, metric.replace("strict-match", "flexible-extract"): 0.6},
        {**GPQA, "dataset_name": f"gpqa_{subset}"},
    )
    again = entries_from(both, filename="results.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    assert len(again.entries) == 1
    assert again.unmapped == []


def test_a_row_the_recorded_dataset_contradicts_is_refused() -> None:
    """A task renamed in a release must not land on the wrong task: `gpqa_diamond_zeroshot`
    that records gpqa_main (or another split) is refused, naming the row."""
    for config in (
        {**GPQA, "dataset_name": "gpqa_main"},
        {**GPQA, "dataset_name": "gpqa_diamond", "validation_split": "test"},
        {**GPQA, "dataset_path": "someone/gpqa-copy", "dataset_name": "gpqa_diamond"},
    ):
        content = lm_eval_run("gpqa_diamond_zeroshot", {"acc,none": 0.5}, config)
        conversion = entries_from(
            content, filename="results.json", benchmarks=EXAMPLES, mappings=SHIPPED
        )
        assert not conversion.ok()
        assert conversion.entries == []
        [problem] = conversion.problems
        assert problem.startswith(
            "lm-eval task `gpqa_diamond_zeroshot` metric `acc,none`: the output says it ran on"
        )
        assert "bot/data/convert/mappings.yaml:" in problem


def test_lm_eval_ifeval_reads_a_copy_of_the_benchmark() -> None:
    metrics = {f"{name},none": 0.75 for name in IFEVAL_METRICS}
    conversion = entries_from(
        lm_eval_run("ifeval", metrics, IFEVAL),
        filename="results.json",
        benchmarks=EXAMPLES,
        mappings=SHIPPED,
    )
    assert conversion.ok(), conversion.problems
    [entry] = conversion.entries
    assert entry["dataset"]["id"] == "wis-k/instruction-following-eval"
    assert sorted(metric["metric_id"] for metric in entry["metrics"]) == sorted(IFEVAL_METRICS)


@pytest.mark.parametrize(
    ("task", "metric", "config", "cell"),
    [
        (
            "gpqa:diamond|0",
            "gpqa_pass@k:k=1",
            {"hf_repo": "Idavidrein/gpqa", "hf_subset": "gpqa_diamond"},
            ("Idavidrein/gpqa", "diamond"),
        ),
        (
            "lighteval|gpqa:diamond|0",
            "gpqa_pass@1:1_samples",
            {"hf_repo": "Idavidrein/gpqa", "hf_subset": "gpqa_diamond"},
            ("Idavidrein/gpqa", "diamond"),
        ),
        (
            "musr:team_allocation|0",
            "acc",
            {
                "hf_repo": "TAUR-Lab/MuSR",
                "hf_subset": "default",
                "evaluation_splits": ["team_allocation"],
            },
            ("TAUR-Lab/MuSR", "team_allocation"),
        ),
        (
            "mmlu_pro|0",
            "extractive_match",
            {"hf_repo": "TIGER-Lab/MMLU-Pro", "hf_subset": "default"},
            ("TIGER-Lab/MMLU-Pro", "mmlu_pro"),
        ),
        (
            "gsm8k|0",
            "extractive_match",
            {"hf_repo": "openai/gsm8k", "hf_subset": "main"},
            ("openai/gsm8k", "gsm8k"),
        ),
    ],
)
def test_lighteval_tasks(
    task: str, metric: str, config: dict[str, Any], cell: tuple[str, str]
) -> None:
    """Was: lighteval had no row at all, not even gpqa:diamond."""
    splits = {"evaluation_splits": ["train" if "gpqa" in task else "test"]}
    content = lighteval_run(task, {metric: 0.625, f"{metric}_stderr": 0.03}, {**splits, **config})
    conversion = entries_from(
        content,
        filename="results_2025-12-12T15-11-59.471879.json",
        benchmarks=EXAMPLES,
        mappings=SHIPPED,
    )
    assert conversion.ok(), conversion.problems
    [(key, value)] = cells(conversion).items()
    assert key[:2] == cell
    assert value == "62.5"


def test_lighteval_task_on_the_wrong_split_is_refused() -> None:
    content = lighteval_run(
        "musr:team_allocation|0",
        {"acc": 0.5},
        {"hf_repo": "TAUR-Lab/MuSR", "evaluation_splits": ["murder_mysteries"]},
    )
    conversion = entries_from(content, filename="r.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    assert not conversion.ok()
    assert "split `murder_mysteries`, not `team_allocation`" in conversion.problems[0]


def test_inspect_ifeval_maps_its_four_accuracies_not_its_stderrs() -> None:
    """Was: unmapped, and half the suggested rows were standard errors."""
    log: dict[str, Any] = json.loads(INSPECT.read_bytes())
    log["eval"]["task"] = "inspect_evals/ifeval"
    log["eval"]["dataset"] = {"name": "IFEval", "location": "google/IFEval", "samples": 541}
    [score] = log["results"]["scores"]
    score["name"] = score["scorer"] = "instruction_following"
    names = ["prompt_strict", "prompt_loose", "inst_strict", "inst_loose", "final"]
    values = {f"{name}_acc": 0.5 + i / 10 for i, name in enumerate(names)}
    values |= {f"{name}_stderr": 0.02 for name in names}
    score["metrics"] = {k: {"name": k, "value": v, "params": {}} for k, v in values.items()}
    conversion = entries_from(
        json.dumps(log).encode(), filename="ifeval.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    assert conversion.ok(), conversion.problems
    assert cells(conversion) == {
        ("wis-k/instruction-following-eval", "ifeval", "prompt_level_strict_acc", n): "50.0",
        ("wis-k/instruction-following-eval", "ifeval", "prompt_level_loose_acc", n): "60.0",
        ("wis-k/instruction-following-eval", "ifeval", "inst_level_strict_acc", n): "70.0",
        ("wis-k/instruction-following-eval", "ifeval", "inst_level_loose_acc", n): "80.0",
    }
    # final_acc is the mean of the four: no metric of the benchmark, not needed, not suggested
    assert conversion.unmapped == []
    assert [u.metric for u in conversion.not_needed] == ["instruction_following/final_acc"]


n = "inspect_evals ifeval (0-shot)"


def test_evalscope_0x_ifeval_metric_names() -> None:
    """Was unmapped: EvalScope 0.x names IFEval's metrics `prompt_level_strict_acc`..."""
    report = json.loads((QWEN3_MAX / "ifeval.json").read_bytes())
    for metric in report["metrics"]:
        metric["name"] = metric["name"].removeprefix("mean_") + "_acc"
    conversion = entries_from(
        json.dumps(report).encode(), filename="ifeval.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    assert conversion.ok(), conversion.problems
    [entry] = conversion.entries
    assert sorted(m["metric_id"] for m in entry["metrics"]) == sorted(IFEVAL_METRICS)
    assert {Decimal(repr(m["value"])) for m in entry["metrics"]} == {
        Decimal(repr(m["score"])) * 100 for m in report["metrics"]
    }


def test_the_suggestion_for_a_known_benchmark_is_a_complete_row() -> None:
    """Was: `benchmark: <org/name>` even when the output names a benchmark evalbot knows."""
    content = lm_eval_run(
        "my_gpqa_diamond", {"acc,none": 0.5}, {**GPQA, "dataset_name": "gpqa_diamond"}
    )
    conversion = entries_from(content, filename="r.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    [unmapped] = conversion.unmapped
    assert unmapped.line == (
        '- {framework: "lm-eval", task: "my_gpqa_diamond", metric: "acc,none",'
        " benchmark: Idavidrein/gpqa, task_id: diamond, scale: percent}"
    )
    # the row as suggested converts the run
    rows = parse_mappings("mine.yaml", f"mappings:\n  {unmapped.line}\n".encode())
    mine = entries_from(
        content, filename="r.json", benchmarks=EXAMPLES, mappings=SHIPPED.merged(rows)
    )
    assert mine.ok(), mine.problems
    assert cells(mine) == {("Idavidrein/gpqa", "diamond", None, None): "50.0"}
    # evidence that does not single out a task leaves the task to the user
    content = lm_eval_run("my_gpqa", {"acc,none": 0.5}, {"dataset_path": "Idavidrein/gpqa"})
    [vague] = entries_from(
        content, filename="r.json", benchmarks=EXAMPLES, mappings=SHIPPED
    ).unmapped
    assert "benchmark: Idavidrein/gpqa, task_id: <task id from its eval.yaml>" in vague.line


class CountingSource:
    """The example benchmarks, counting the lookups made through it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def lookup(self, dataset_id: str, revision: str | None) -> Any:
        self.asked.append(dataset_id)
        return EXAMPLES.lookup(dataset_id, revision)


def test_suggestion_lookups_are_capped_and_each_benchmark_is_read_once() -> None:
    """Each lookup may be a Hub request: a run over 40 unknown datasets asks for 32, once each,
    and the row's benchmark is read once for the mapping check, the evidence and validation."""
    data = json.loads(lm_eval_run("gpqa_diamond_zeroshot", {"acc,none": 0.5}, GPQA))
    data["configs"]["gpqa_diamond_zeroshot"]["dataset_name"] = "gpqa_diamond"
    for n in range(40):
        data["results"][f"custom_{n}"] = {"acc,none": 0.5}
        data["configs"][f"custom_{n}"] = {"dataset_path": f"someone/data_{n}"}
    source = CountingSource()
    conversion = entries_from(
        json.dumps(data).encode(), filename="r.json", benchmarks=source, mappings=SHIPPED
    )
    assert conversion.ok(), conversion.problems
    assert len(conversion.unmapped) == 40
    assert source.asked.count("Idavidrein/gpqa") == 1
    unknown = [name for name in source.asked if name.startswith("someone/")]
    assert len(unknown) == len(set(unknown)) == 32
