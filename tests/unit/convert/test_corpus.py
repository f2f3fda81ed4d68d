"""The real-output corpus: every framework output kept in `tests/samples/convert/` (and the
framework outputs of `tests/samples/real-world/`), converted with the shipped rows against the
shipped and proposed benchmarks, with what each must give: the exact cells (the value is the
source's, scaled in decimal), or a refusal whose reason is about the run, or, for a benchmark
evalbot has no eval.yaml for, no entry and its tasks listed with the rows to add. Provenance of
each file: `tests/samples/convert/README.md` and `tests/samples/real-world/README.md`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import entries_from
from bot.convert.mapping import parse_mappings
from tests.unit.convert.test_coverage import cells

ROOT = Path(__file__).parents[3]
SAMPLES = ROOT / "tests" / "samples"
EXAMPLES = DirectoryBenchmarkSource(ROOT / "examples" / "benchmarks")
SHIPPED = parse_mappings(
    "bot/data/convert/mappings.yaml", (ROOT / "bot/data/convert/mappings.yaml").read_bytes()
)
IFEVAL = "wis-k/instruction-following-eval"
LEADERBOARD_VIA_EEE = "Open LLM Leaderboard v2 setup (via Every Eval Ever)"

#: file -> (adapter, cells | a run problem's text | the unmapped tasks of an unknown benchmark)
Outcome = dict[tuple[str, str, str | None, str | None], str] | str | set[str]
CORPUS: dict[str, tuple[str, Outcome]] = {
    # lm-eval
    "convert/lm-eval/Meta-Llama-3-8B-Instruct_results_2024-08-25T21-59-12.123082.json": (
        "lm-eval",
        {
            (
                "openai/gsm8k",
                "gsm8k",
                None,
                "lm-eval gsm8k_cot_llama (8-shot CoT, Llama format, strict-match)",
            ): "77.25549658832449"  # exact_match,strict-match 0.7725549658832449
        },
    ),
    "convert/lm-eval/gsm8k-v0-res.json": (
        "lm-eval",
        {("openai/gsm8k", "gsm8k", None, "lm-eval 0.3 gsm8k (acc)"): "0.0"},
    ),
    "convert/lm-eval/cpu_group_regression_expected.json": (
        "lm-eval",
        "task `arc_challenge` ran on 10 of 1172 samples (--limit)",
    ),
    "convert/lm-eval/gemma-2b_results_2026-01-16T15-23-47.285735.json": (
        "lm-eval",
        {"masakhaner_luo_prompt_1"},
    ),
    "convert/lm-eval/nl2foam-formatted_results_2025-12-17T21-42-56.466948.json": (
        "lm-eval",
        {"nl2foam_gen_formatted", "nl2foam_llm_judge_formatted"},
    ),
    "convert/lm-eval/results_v03_no_comma_metric_keys.json": ("lm-eval", {"arc_easy", "sciq"}),
    "real-world/lm-eval/results_2026-01-21T03-44-18.458309.json": (
        "lm-eval",
        {"math_perturbed_full", "math_rephrased_full"},
    ),
    # lighteval
    "convert/lighteval/SmolLM2-1.7B-Instruct_results_2026-01-21T03-44-18.458309.json": (
        "lighteval",
        {"glue:cola|0", "mmlu:anatomy|5", "mmlu:abstract_algebra|5", "mmlu:_average|5"},
    ),
    "convert/lighteval/dummy-model_results_2026-08-10T17-22-11.385681.json": (
        "lighteval",
        "max_samples is 2",
    ),
    "convert/lighteval/gpt-5.2_results_2025-12-12T15-11-59.471879.json": (
        "lighteval",
        {"community|lexam-en-idk|0"},
    ),
    "convert/lighteval/claude-sonnet-4.5_results_2025-12-12T20-36-10.749437.json": (
        "lighteval",
        {"community|lexam-en-idk|0"},
    ),
    "convert/lighteval/gemini-3-pro-preview_results_2025-12-12T15-23-50.919930.json": (
        "lighteval",
        {"community|lexam-en-idk|0"},
    ),
    # inspect-ai: .json logs and .eval archives
    "convert/inspect-ai/data_arc_qwen.json": ("inspect-ai", {"inspect_evals/arc_easy"}),
    "convert/inspect-ai/data_cvebench_empty_choices.json": (
        "inspect-ai",
        "78 of 80 samples completed",
    ),
    "convert/inspect-ai/data_cyse2_vuln_exploit_challenges.json": (
        "inspect-ai",
        {"inspect_evals/cyse2_vulnerability_exploit"},
    ),
    "convert/inspect-ai/data_pubmedqa_gpt4o_mini.json": ("inspect-ai", {"inspect_evals/pubmedqa"}),
    "convert/inspect-ai/mmlu-summary-choices.eval": ("inspect-ai", {"inspect_evals/mmlu_0_shot"}),
    "convert/inspect-ai/log_streaming.eval": ("inspect-ai", {"popularity"}),
    "convert/inspect-ai/2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval": (
        "inspect-ai",
        "the log holds no numeric score",
    ),
    "real-world/inspect-ai/data_intercode_ctf_local_path.json": (
        "inspect-ai",
        {"inspect_evals/gdm_intercode_ctf"},
    ),
    # EvalScope 1.x (qwen3-max, `mean_*` metrics) and 0.x (Qwen2.5, `AverageAccuracy`)
    "convert/evalscope/qwen3-max/gsm8k.json": (
        "evalscope",
        {("openai/gsm8k", "gsm8k", None, "EvalScope gsm8k"): "100.0"},
    ),
    "convert/evalscope/qwen3-max/gpqa_diamond.json": (
        "evalscope",
        {("Idavidrein/gpqa", "diamond", None, "EvalScope gpqa_diamond"): "90.0"},
    ),
    "convert/evalscope/qwen3-max/ifeval.json": (
        "evalscope",
        {
            (IFEVAL, "ifeval", "prompt_level_strict_acc", "EvalScope ifeval"): "80.0",
            (IFEVAL, "ifeval", "inst_level_strict_acc", "EvalScope ifeval"): "86.67",
            (IFEVAL, "ifeval", "prompt_level_loose_acc", "EvalScope ifeval"): "90.0",
            (IFEVAL, "ifeval", "inst_level_loose_acc", "EvalScope ifeval"): "96.67",
        },
    ),
    "convert/evalscope/qwen3-max/iquiz.json": ("evalscope", {"iquiz", "iquiz/EQ", "iquiz/IQ"}),
    "convert/evalscope/Qwen2.5-0.5B-Instruct/gsm8k.json": (
        "evalscope",
        {("openai/gsm8k", "gsm8k", None, "EvalScope gsm8k"): "40.0"},
    ),
    "convert/evalscope/Qwen2.5-0.5B-Instruct/ceval.json": (
        "evalscope",
        {
            "ceval",
            "ceval/computer_network",
            "ceval/operating_system",
            "ceval/computer_architecture",
            "ceval/college_programming",
        },
    ),
    # Every Eval Ever records
    "real-world/every_eval_ever/98ea850e-7019-4728-a558-8b1819ec47c2.json": (
        "eee",
        {
            ("SaylorTwift/bbh", "bbh", None, LEADERBOARD_VIA_EEE): "42.24",
            ("DigitalLearningGmbH/MATH-lighteval", "math_hard", None, LEADERBOARD_VIA_EEE): "2.49",
            ("TAUR-Lab/MuSR", "musr", None, LEADERBOARD_VIA_EEE): "41.9",
            ("TIGER-Lab/MMLU-Pro", "mmlu_pro", None, LEADERBOARD_VIA_EEE): "19.46",
        },
    ),
}


@pytest.mark.parametrize(("name", "expected"), sorted(CORPUS.items()))
def test_each_real_output_converts_exactly_or_is_refused_for_a_reason_about_the_run(
    name: str, expected: tuple[str, Outcome]
) -> None:
    adapter, outcome = expected
    conversion = entries_from(SAMPLES / name, benchmarks=EXAMPLES, mappings=SHIPPED)
    assert conversion.adapter == adapter
    assert conversion.problems == []  # no row is contradicted by what the output records
    assert conversion.left_out == []
    if isinstance(outcome, dict):
        assert conversion.ok(), conversion.run_problems
        assert cells(conversion) == outcome
        assert all(report.ok for report in conversion.reports)
    elif isinstance(outcome, str):
        assert not conversion.ok()
        assert any(outcome in problem for problem in conversion.run_problems)
    else:
        assert conversion.entries == []
        assert {item.task for item in conversion.unmapped} == outcome


def test_the_corpus_has_five_outputs_of_each_framework_and_lists_every_file() -> None:
    kept = {
        str(path.relative_to(SAMPLES))
        for folder in ("lm-eval", "lighteval", "inspect-ai", "evalscope")
        for path in (SAMPLES / "convert" / folder).rglob("*")
        if path.suffix in (".json", ".eval")
    }
    written_by_hand = {  # EvalScope 1.14's own ReportGenerator over synthetic scores (README)
        "convert/evalscope/gsm8k.json",
        "convert/evalscope/mmlu_pro.json",
        "convert/evalscope/gsm8k_partial.json",
    }
    assert kept - written_by_hand <= CORPUS.keys()
    per_framework = Counter(adapter for adapter, _outcome in CORPUS.values())
    assert min(per_framework[name] for name in ("lm-eval", "lighteval", "inspect-ai")) >= 5
    assert per_framework["evalscope"] >= 5
