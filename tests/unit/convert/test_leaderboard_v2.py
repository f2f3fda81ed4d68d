"""Open LLM Leaderboard v2 runs convert through the shipped rows and the proposed benchmarks.

No lm-eval results file of a leaderboard run could be traced to a public repository and commit
(tests/samples/convert/README.md), so the run is derived here from a real one: the real
lm-eval 0.4.9.2 file of `tests/samples/real-world/lm-eval/` with its `results`, `versions`,
`n-samples` and `configs` replaced by the leaderboard tasks. The values are those published
for EleutherAI/pythia-1b by the Open LLM Leaderboard (the dataset card of
`open-llm-leaderboard/EleutherAI__pythia-1b-details`, run 2025-01-27T10-10-36.877664),
transcribed; the task versions are lm-eval's
(`metadata.version` of `lm_eval/tasks/leaderboard/*`).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import entries_from
from bot.convert.mapping import check_mappings, parse_mappings
from bot.convert.scale import exact_decimal

ROOT = Path(__file__).parents[3]
REAL_LM_EVAL = ROOT / "tests/samples/real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"
EXAMPLES_DIR = ROOT / "examples" / "benchmarks"
EXAMPLES = DirectoryBenchmarkSource(EXAMPLES_DIR)
SHIPPED = parse_mappings(
    "bot/data/convert/mappings.yaml", (ROOT / "bot/data/convert/mappings.yaml").read_bytes()
)
PROPOSED = (
    "SaylorTwift/bbh",
    "wis-k/instruction-following-eval",
    "DigitalLearningGmbH/MATH-lighteval",
    "TAUR-Lab/MuSR",
)

ACC_NORM = "acc_norm,none"
EXACT = "exact_match,none"
#: task -> (metric -> value), EleutherAI/pythia-1b on the Open LLM Leaderboard v2.
PYTHIA_1B: dict[str, dict[str, float]] = {
    "leaderboard_bbh": {ACC_NORM: 0.29699704912341607},
    "leaderboard_bbh_boolean_expressions": {ACC_NORM: 0.468},
    "leaderboard_bbh_causal_judgement": {ACC_NORM: 0.5187165775401069},
    "leaderboard_bbh_date_understanding": {ACC_NORM: 0.204},
    "leaderboard_bbh_disambiguation_qa": {ACC_NORM: 0.332},
    "leaderboard_bbh_formal_fallacies": {ACC_NORM: 0.468},
    "leaderboard_bbh_geometric_shapes": {ACC_NORM: 0.108},
    "leaderboard_bbh_hyperbaton": {ACC_NORM: 0.512},
    "leaderboard_bbh_logical_deduction_five_objects": {ACC_NORM: 0.204},
    "leaderboard_bbh_logical_deduction_seven_objects": {ACC_NORM: 0.128},
    "leaderboard_bbh_logical_deduction_three_objects": {ACC_NORM: 0.36},
    "leaderboard_bbh_movie_recommendation": {ACC_NORM: 0.24},
    "leaderboard_bbh_navigate": {ACC_NORM: 0.44},
    "leaderboard_bbh_object_counting": {ACC_NORM: 0.072},
    "leaderboard_bbh_penguins_in_a_table": {ACC_NORM: 0.1917808219178082},
    "leaderboard_bbh_reasoning_about_colored_objects": {ACC_NORM: 0.104},
    "leaderboard_bbh_ruin_names": {ACC_NORM: 0.2},
    "leaderboard_bbh_salient_translation_error_detection": {ACC_NORM: 0.224},
    "leaderboard_bbh_snarks": {ACC_NORM: 0.5393258426966292},
    "leaderboard_bbh_sports_understanding": {ACC_NORM: 0.46},
    "leaderboard_bbh_temporal_sequences": {ACC_NORM: 0.26},
    "leaderboard_bbh_tracking_shuffled_objects_five_objects": {ACC_NORM: 0.2},
    "leaderboard_bbh_tracking_shuffled_objects_seven_objects": {ACC_NORM: 0.16},
    "leaderboard_bbh_tracking_shuffled_objects_three_objects": {ACC_NORM: 0.32},
    "leaderboard_bbh_web_of_lies": {ACC_NORM: 0.496},
    "leaderboard_ifeval": {
        "prompt_level_strict_acc,none": 0.16820702402957485,
        "inst_level_strict_acc,none": 0.2733812949640288,
        "prompt_level_loose_acc,none": 0.1756007393715342,
        "inst_level_loose_acc,none": 0.2865707434052758,
    },
    "leaderboard_math_hard": {EXACT: 0.0030211480362537764},
    "leaderboard_math_algebra_hard": {EXACT: 0.006514657980456026},
    "leaderboard_math_counting_and_prob_hard": {EXACT: 0.0},
    "leaderboard_math_geometry_hard": {EXACT: 0.0},
    "leaderboard_math_intermediate_algebra_hard": {EXACT: 0.0035714285714285713},
    "leaderboard_math_num_theory_hard": {EXACT: 0.0},
    "leaderboard_math_prealgebra_hard": {EXACT: 0.0051813471502590676},
    "leaderboard_math_precalculus_hard": {EXACT: 0.0},
    "leaderboard_musr": {ACC_NORM: 0.3544973544973545},
    "leaderboard_musr_murder_mysteries": {ACC_NORM: 0.492},
    "leaderboard_musr_object_placements": {ACC_NORM: 0.265625},
    "leaderboard_musr_team_allocation": {ACC_NORM: 0.308},
}
GROUPS = ("leaderboard_bbh", "leaderboard_math_hard", "leaderboard_musr")


def leaderboard_run() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(REAL_LM_EVAL.read_bytes())
    data["results"] = {task: {"alias": task, **metrics} for task, metrics in PYTHIA_1B.items()}
    data["group_subtasks"] = {
        group: [task for task in PYTHIA_1B if task.startswith(group.removesuffix("_hard") + "_")]
        for group in GROUPS
    }
    data["versions"] = {
        task: 3.0 if "ifeval" in task or "math" in task else 1.0 for task in PYTHIA_1B
    }
    data["n-samples"] = {}
    data["configs"] = {}
    return data


def test_the_proposed_benchmarks_are_marked_and_valid() -> None:
    for benchmark in PROPOSED:
        text = (EXAMPLES_DIR / benchmark / "eval.yaml").read_text()
        assert text.startswith("# PROPOSED BY EVALBOT"), benchmark
        assert type(EXAMPLES.lookup(benchmark, None)).__name__ == "Benchmark", benchmark


def test_every_leaderboard_task_has_its_rows_checked_against_a_proposed_benchmark() -> None:
    assert check_mappings(SHIPPED, EXAMPLES) == []
    rows = {
        (row.task, row.metric): row for row in SHIPPED.rows.values() if row.framework == "lm-eval"
    }
    for task, metrics in PYTHIA_1B.items():
        for metric in metrics:
            assert rows[task, metric].benchmark in PROPOSED, (task, metric)


def test_a_leaderboard_run_converts_with_the_published_values() -> None:
    conversion = entries_from(
        json.dumps(leaderboard_run()).encode(),
        filename="results_2025-01-27T10-10-36.877664.json",
        benchmarks=EXAMPLES,
        mappings=SHIPPED,
    )
    assert conversion.ok(), (conversion.problems, conversion.mapping_problems)
    assert conversion.unmapped == []
    by_cell = {(e["dataset"]["id"], e["dataset"]["task_id"]): e for e in conversion.entries}
    assert len(by_cell) == 24 + 1 + 1 + 7 + 1 + 3 + 1
    assert set(conversion.files) == {
        ".eval_results/bbh.yaml",
        ".eval_results/instruction_following_eval.yaml",
        ".eval_results/math_lighteval.yaml",
        ".eval_results/musr.yaml",
    }

    def value(benchmark: str, task_id: str) -> Decimal:
        return exact_decimal(by_cell[benchmark, task_id]["value"])

    assert value("SaylorTwift/bbh", "bbh") == Decimal("29.699704912341607")
    assert value("SaylorTwift/bbh", "penguins_in_a_table") == Decimal("19.17808219178082")
    assert value("SaylorTwift/bbh", "web_of_lies") == Decimal("49.6")
    assert value("DigitalLearningGmbH/MATH-lighteval", "math_hard") == Decimal(
        "0.30211480362537764"
    )
    assert value("DigitalLearningGmbH/MATH-lighteval", "counting_and_probability_hard") == 0
    assert value("DigitalLearningGmbH/MATH-lighteval", "number_theory_hard") == 0
    assert value("TAUR-Lab/MuSR", "musr") == Decimal("35.44973544973545")
    assert value("TAUR-Lab/MuSR", "object_placements") == Decimal("26.5625")
    ifeval = by_cell["wis-k/instruction-following-eval", "ifeval"]
    assert "value" not in ifeval
    assert {m["metric_id"]: exact_decimal(m["value"]) for m in ifeval["metrics"]} == {
        "inst_level_loose_acc": Decimal("28.65707434052758"),
        "inst_level_strict_acc": Decimal("27.33812949640288"),
        "prompt_level_loose_acc": Decimal("17.56007393715342"),
        "prompt_level_strict_acc": Decimal("16.820702402957485"),
    }
    for entry in conversion.entries:
        assert entry["framework"] == {"name": "lm-eval", "version": "0.4.9.2"}
        assert entry["notes"].startswith("Open LLM Leaderboard v2 setup (lm-eval leaderboard_")
    # versions[task] as run.adapter_version; this derived file records no n-samples
    assert ifeval["run"] == {"adapter_version": "3.0"}
    assert by_cell["TAUR-Lab/MuSR", "team_allocation"]["run"] == {"adapter_version": "1.0"}
