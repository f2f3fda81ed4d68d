"""Real framework outputs convert to entries that validate, with the source's values.

Samples: `tests/samples/real-world/` and `tests/samples/convert/` (provenance in their
READMEs). Outputs whose tasks have no benchmark evalbot can check get a mapping and a
benchmark written here, in a temporary folder: what is tested is the conversion, not a guess.
"""

from __future__ import annotations

import io
import json
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import entries_from
from bot.convert.api import Conversion, read_runs
from bot.convert.mapping import MappingError, MappingTable, check_mappings, parse_mappings
from bot.convert.scale import Scaled, exact_decimal, rescale
from bot.convert.yamlio import dump_entries, merge
from bot.validation.validate import validate_results_files
from bot.validation.yamlload import load_yaml

ROOT = Path(__file__).parents[3]
SAMPLES = ROOT / "tests" / "samples"
REAL = SAMPLES / "real-world"
CONVERT = SAMPLES / "convert"
EXAMPLES = DirectoryBenchmarkSource(ROOT / "examples" / "benchmarks")
SHIPPED = parse_mappings(
    "bot/data/convert/mappings.yaml", (ROOT / "bot/data/convert/mappings.yaml").read_bytes()
)


def percent(source: float) -> Decimal:
    return Decimal(repr(source)) * 100


def test_shipped_mappings_match_the_example_benchmarks() -> None:
    assert check_mappings(SHIPPED, EXAMPLES) == []


def local(
    tmp_path: Path, benchmark: str, task_id: str, rows: str
) -> tuple[DirectoryBenchmarkSource, MappingTable]:
    folder = tmp_path / "benchmarks" / benchmark
    folder.mkdir(parents=True)
    (folder / "eval.yaml").write_text(
        f"name: test\ndescription: a benchmark written by the test\ntasks:\n  - id: {task_id}\n"
    )
    table = parse_mappings("test.yaml", f"mappings:\n{rows}".encode())
    return DirectoryBenchmarkSource(tmp_path / "benchmarks"), table


def recorded_dataset(path: Path) -> str:
    """The Hub dataset the output says it ran on (the benchmark a row for it must name), or a
    test benchmark when it records none."""
    _adapter, runs = read_runs(path.read_bytes(), path.name)
    found = {score.dataset_id for run in runs for score in run.scores if score.dataset_id}
    return found.pop() if found else "test-org/bench"


def assert_valid(conversion: Conversion) -> None:
    assert conversion.reports, "no file was produced"
    for report in conversion.reports:
        assert report.ok, [d.message for e in report.entries for d in e.diagnostics]


def test_lm_eval_real_file(tmp_path: Path) -> None:
    source, table = local(
        tmp_path,
        "stellaathena/math_rephrased_full",
        "default",
        '  - {framework: lm-eval, task: math_rephrased_full, metric: "exact_match,none",'
        " benchmark: stellaathena/math_rephrased_full, task_id: default, scale: percent}\n",
    )
    conversion = entries_from(
        REAL / "lm-eval/results_2026-01-21T03-44-18.458309.json", benchmarks=source, mappings=table
    )
    assert_valid(conversion)
    [entry] = conversion.entries
    assert Decimal(repr(entry["value"])) == percent(0.0004) == Decimal("0.04")
    assert entry["framework"] == {"name": "lm-eval", "version": "0.4.9.2"}
    assert entry["model_revision"] == "82047f5e5d5245c1b3a4cd75ad98aa441d6487cd"
    assert entry["date"] == "2026-01-21T02:59:43Z"
    assert "revision" not in entry["dataset"]  # not recorded by the run
    # n-samples[task].effective and versions[task]; the stderr (0.0002828...) has no field
    assert entry["run"] == {"num_samples": 5000, "adapter_version": "1.0"}
    assert [u.task for u in conversion.unmapped] == ["math_perturbed_full"]
    assert conversion.unmapped[0].line.startswith(
        '- {framework: "lm-eval", task: "math_perturbed_full", metric: "exact_match,none",'
    )


def test_lm_eval_group_run_with_limit_is_partial(tmp_path: Path) -> None:
    source, table = local(
        tmp_path,
        "allenai/ai2_arc",
        "ARC-Easy",
        '  - {framework: lm-eval, task: arc_easy, metric: "acc,none", benchmark: allenai/ai2_arc,'
        " task_id: ARC-Easy, scale: percent}\n",
    )
    path = CONVERT / "lm-eval/cpu_group_regression_expected.json"
    conversion = entries_from(path, benchmarks=source, mappings=table)
    assert any("10 of 2376" in problem for problem in conversion.run_problems)
    assert not conversion.ok()
    assert conversion.ok(allow_partial=True)
    assert conversion.entries[0]["value"] == 30.0
    assert conversion.entries[0]["run"] == {"num_samples": 10, "adapter_version": "1.0"}
    _adapter, [run] = read_runs(path.read_bytes(), path.name)
    tasks = {score.task for score in run.scores}
    assert tasks == {"arc_challenge", "arc_easy", "regression_arc"}  # groups read as tasks
    assert all(score.stderr is None for score in run.scores)  # "N/A" dropped


def test_lm_eval_03_files_map_through_the_shipped_table() -> None:
    conversion = entries_from(
        CONVERT / "lm-eval/gsm8k-v0-res.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    assert_valid(conversion)
    assert conversion.entries == [
        {
            "dataset": {"id": "openai/gsm8k", "task_id": "gsm8k"},
            "value": 0.0,
            "framework": {"name": "lm-eval"},
            "run": {"adapter_version": "0"},  # `versions`; a 0.3 file records no n-samples
            "notes": "lm-eval 0.3 gsm8k (acc)",
        }
    ]
    path = CONVERT / "lm-eval/results_v03_no_comma_metric_keys.json"
    _adapter, [run] = read_runs(path.read_bytes(), path.name)
    assert run.model == "bigscience/bloom-3b"
    assert {(s.task, s.metric, s.value) for s in run.scores} >= {("sciq", "acc", 0.891)}


@pytest.mark.parametrize(
    ("name", "task", "metric", "value", "problem", "run"),
    [
        (
            REAL / "inspect-ai/data_intercode_ctf_local_path.json",
            "inspect_evals/gdm_intercode_ctf",
            "includes/accuracy",
            0.35443037974683544,
            None,
            {"adapter_version": "0"},  # inspect 0.3.75 records no scored_samples
        ),
        (
            CONVERT / "inspect-ai/data_arc_qwen.json",
            "inspect_evals/arc_easy",
            "choice/accuracy",
            0.3333333333333333,
            None,
            {"num_samples": 3, "adapter_version": "0"},
        ),
        (
            CONVERT / "inspect-ai/data_cvebench_empty_choices.json",
            "cvebench",
            "check_exploit/mean",
            0.7051282051282052,
            "78 of 80",
            {"num_samples": 78, "adapter_version": "0"},
        ),
        (
            CONVERT / "inspect-ai/data_cyse2_vuln_exploit_challenges.json",
            "inspect_evals/cyse2_vulnerability_exploit",
            "vul_exploit_scorer/accuracy",
            0.38108974358974373,
            None,
            {"adapter_version": "0"},
        ),
    ],
)
def test_inspect_logs(
    tmp_path: Path,
    name: Path,
    task: str,
    metric: str,
    value: float,
    problem: str | None,
    run: dict[str, Any],
) -> None:
    bench = recorded_dataset(name)
    source, table = local(
        tmp_path,
        bench,
        "main",
        f'  - {{framework: inspect-ai, task: "{task}", metric: "{metric}",'
        f" benchmark: {bench}, task_id: main, scale: percent, source_scale: fraction}}\n",
    )
    conversion = entries_from(name, benchmarks=source, mappings=table)
    assert_valid(conversion)
    assert conversion.ok() is (problem is None)
    if problem:
        assert any(problem in p for p in conversion.run_problems)
    [entry] = conversion.entries
    assert Decimal(repr(entry["value"])) == Decimal(repr(float(percent(value))))
    assert entry["value"] == float(percent(value))
    assert entry["framework"]["name"] == "inspect-ai"
    assert entry["run"] == run  # `scored_samples` and `eval.task_version`


def test_inspect_eval_archive_reads_like_its_json(tmp_path: Path) -> None:
    log = (REAL / "inspect-ai/data_intercode_ctf_local_path.json").read_bytes()
    header = json.loads(log)
    header.pop("samples", None)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("header.json", json.dumps(header))
        archive.writestr("samples/1_epoch_1.json", "{}")
    _a, json_runs = read_runs(log, "log.json")
    adapter, eval_runs = read_runs(buffer.getvalue(), "log.eval")
    assert adapter.name == "inspect-ai"
    assert eval_runs[0].scores == json_runs[0].scores


def test_lighteval_partial_multi_task(tmp_path: Path) -> None:
    source, table = local(
        tmp_path,
        "facebook/anli",
        "r1",
        '  - {framework: lighteval, task: "anli:r1|0", metric: acc, benchmark: facebook/anli,'
        " task_id: r1, scale: percent}\n",
    )
    path = CONVERT / "lighteval/dummy-model_results_2026-08-10T17-22-11.385681.json"
    conversion = entries_from(path, benchmarks=source, mappings=table)
    assert_valid(conversion)
    assert any("max_samples is 2" in p for p in conversion.run_problems)
    assert [u.task for u in conversion.unmapped] == ["squad_v2|0"]
    [entry] = conversion.entries
    assert entry["date"] == "2026-08-10T17:22:11"
    assert entry["framework"] == {"name": "lighteval"}  # no version recorded
    # effective_num_docs is -1 here (not a count): only the task version is written
    assert entry["run"] == {"adapter_version": "0"}


def test_evalscope_report_v2_and_legacy(tmp_path: Path) -> None:
    """No real EvalScope report was found to copy: the shapes of evalscope/report/report.py."""
    legacy = {
        "name": "r",
        "dataset_name": "gsm8k",
        "model_name": "m",
        "score": 0.5,
        "num": 2,
        "metrics": [
            {
                "name": "AverageAccuracy",
                "score": 0.5,
                "num": 2,
                "categories": [
                    {"name": ["default"], "subsets": [{"name": "main", "score": 0.5, "num": 2}]}
                ],
            }
        ],
    }
    conversion = entries_from(
        json.dumps(legacy).encode(), filename="gsm8k.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    assert_valid(conversion)
    assert conversion.entries[0]["value"] == 50.0
    v2 = {
        "schema_version": 2,
        "dataset_name": "gsm8k",
        "model_name": "m",
        "metrics": [
            {
                "identity": {"name": "accuracy", "aggregation": "mean", "dimensions": {}},
                "score": 0.75,
                "num": 8,
                "semantics": {"value_range": {"min": 0, "max": 1}, "direction": "higher_is_better"},
            }
        ],
        "execution_summary": {"requested": 8, "succeeded": 7, "errored": 1},
    }
    _a, [run] = read_runs(json.dumps(v2).encode(), "gsm8k.json")
    assert run.scores[0].metric == "accuracy"
    assert run.scores[0].scale == "fraction"
    assert run.problems == ["not every sample was scored: 7 of 8 succeeded, 1 errored"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("98ea850e-7019-4728-a558-8b1819ec47c2.json", 0.1946),
        ("community_evals_converter_676f4465-ce78-411a-9f5a-c97b3d2eac4f.json", 0.5229),
    ],
)
def test_eee_records_map_through_the_shipped_table(name: str, value: float) -> None:
    conversion = entries_from(
        REAL / "every_eval_ever" / name, benchmarks=EEE_SOURCE, mappings=SHIPPED
    )
    assert_valid(conversion)
    [entry] = [e for e in conversion.entries if e["dataset"]["id"] == "TIGER-Lab/MMLU-Pro"]
    assert entry["dataset"] == {"id": "TIGER-Lab/MMLU-Pro", "task_id": "mmlu_pro"}
    assert Decimal(repr(entry["value"])) == percent(value)


def test_eee_open_llm_leaderboard_scrape_maps_to_the_proposed_benchmarks() -> None:
    path = REAL / "every_eval_ever/98ea850e-7019-4728-a558-8b1819ec47c2.json"
    conversion = entries_from(path, benchmarks=EEE_SOURCE, mappings=SHIPPED)
    assert_valid(conversion)
    cells = {
        (e["dataset"]["id"], e["dataset"]["task_id"]): str(exact_decimal(e["value"]))
        for e in conversion.entries
    }
    assert cells == {
        ("SaylorTwift/bbh", "bbh"): "42.24",
        ("DigitalLearningGmbH/MATH-lighteval", "math_hard"): "2.49",
        ("TAUR-Lab/MuSR", "musr"): "41.9",
        ("TIGER-Lab/MMLU-Pro", "mmlu_pro"): "19.46",
    }
    assert sorted(u.task for u in conversion.unmapped) == ["GPQA", "IFEval"]


EEE_SOURCE = EXAMPLES


def test_eee_uncertainty_gives_the_sample_count_not_the_stderr() -> None:
    record = json.loads(
        (REAL / "every_eval_ever/98ea850e-7019-4728-a558-8b1819ec47c2.json").read_bytes()
    )
    mmlu_pro = next(r for r in record["evaluation_results"] if r["evaluation_name"] == "MMLU-PRO")
    mmlu_pro["score_details"]["uncertainty"] = {
        "standard_error": {"value": 0.0036},
        "num_samples": 12032,
    }
    conversion = entries_from(
        json.dumps(record).encode(), filename="r.json", benchmarks=EEE_SOURCE, mappings=SHIPPED
    )
    _adapter, [run] = read_runs(json.dumps(record).encode(), "r.json")
    [score] = [s for s in run.scores if s.task == "MMLU-PRO"]
    assert (score.stderr, score.num_samples) == (0.0036, 12032)
    [entry] = [e for e in conversion.entries if e["dataset"]["id"] == "TIGER-Lab/MMLU-Pro"]
    assert entry["run"] == {"num_samples": 12032}
    assert all("run" not in e for e in conversion.entries if e is not entry)
    assert "0.0036" not in json.dumps(entry)  # an entry has no field for a standard error


def test_mapping_errors_name_the_line(tmp_path: Path) -> None:
    rows = (
        "mappings:\n"
        "  - {framework: lm-eval, task: a, metric: acc, "
        "benchmark: Idavidrein/gpqa, task_id: gpqa_diamond, scale: percent}\n"
        "  - {framework: lm-eval, task: b, metric: acc, "
        "benchmark: Idavidrein/gpqa, task_id: diamond, scale: percent, metric_id: acc}\n"
        "  - {framework: lm-eval, task: c, metric: acc, "
        "benchmark: MathArena/aime_2026, task_id: aime_2026, scale: fraction,"
        " metric_id: accuracy}\n"
        "  - {framework: lm-eval, task: d, metric: acc, "
        "benchmark: MathArena/aime_2026, task_id: aime_2026, scale: percent,"
        " metric_id: acuracy}\n"
        "  - {framework: lm-eval, task: e, metric: acc, benchmark: nobody/nothing, task_id: x,"
        " scale: percent}\n"
    )
    problems = [str(p) for p in check_mappings(parse_mappings("m.yaml", rows.encode()), EXAMPLES)]
    assert problems[0].startswith(
        "m.yaml:2: task_id `gpqa_diamond` is not a task of Idavidrein/gpqa"
    )
    assert "did you mean `diamond`?" in problems[0]
    assert problems[1].startswith(
        "m.yaml:3: Idavidrein/gpqa declares no metrics; remove `metric_id`"
    )
    assert problems[2].startswith("m.yaml:4: metric `accuracy` goes up to 100")
    assert problems[3].startswith("m.yaml:5: metric_id `acuracy` is not a metric")
    assert "did you mean `accuracy`" in problems[3]
    assert problems[4].startswith("m.yaml:6: benchmark `nobody/nothing` cannot be read")
    with pytest.raises(MappingError, match=r"m.yaml:3: unknown key `taks`"):
        parse_mappings("m.yaml", b"mappings:\n  - framework: x\n    taks: y\n")


@pytest.mark.parametrize(
    ("source", "expected"), [(0.29, 29.0), (0.07, 7.0), (0.0004, 0.04), (0.5229, 52.29), (1, 100.0)]
)
def test_rescale_is_exact_in_decimal(source: float, expected: float) -> None:
    assert rescale(source, "fraction", "percent") == expected
    assert 0.29 * 100 != 29.0  # what naive scaling would publish


@given(st.floats(min_value=0, max_value=1, allow_nan=False))
def test_rescale_gives_the_float_nearest_the_decimal_product(value: float) -> None:
    scaled = rescale(value, "fraction", "percent")
    assert scaled == float(Decimal(repr(value)) * 100)
    assert isinstance(scaled, Scaled)
    assert Decimal(scaled.text) == Decimal(repr(value)) * 100
    assert load_yaml(dump_entries([{"value": scaled}])).data == [{"value": scaled}]
    assert rescale(value, "fraction", "fraction") is value


def test_merge_replaces_the_same_cell_and_keeps_others() -> None:
    existing = dump_entries(
        [
            {"dataset": {"id": "Idavidrein/gpqa", "task_id": "diamond"}, "value": 1.0},
            {"dataset": {"id": "Idavidrein/gpqa", "task_id": "main"}, "value": 2.0},
        ]
    )
    new = [{"dataset": {"id": "idavidrein/GPQA", "task_id": "diamond"}, "value": 3.0}]
    merged = merge(existing, new)
    assert [entry["value"] for entry in load_yaml(merged.content).data] == [3.0, 2.0]
    assert merged.replaced == [(0, new[0])]
    assert merged.added == []
    reports = validate_results_files({".eval_results/gpqa.yaml": merged.content}, EXAMPLES)
    assert all(report.ok for report in reports)


yaml_values = st.recursive(
    st.one_of(
        st.text(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.booleans(),
        st.none(),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(st.lists(st.dictionaries(st.text(), yaml_values, max_size=4), max_size=3))
def test_dumped_yaml_reads_back_the_same_under_yaml_1_2(entries: list[dict[str, Any]]) -> None:
    loaded = load_yaml(dump_entries(entries))
    assert loaded.ok, loaded.diagnostics
    assert loaded.data == entries


@pytest.mark.parametrize(
    ("name", "task", "metric", "value", "problem"),
    [
        ("mmlu-summary-choices.eval", "inspect_evals/mmlu_0_shot", "choice/accuracy", 0.0, None),
        ("log_streaming.eval", "popularity", "match/accuracy", 0.75, None),
        (
            "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval",
            None,
            None,
            None,
            "the log holds no numeric score",
        ),
    ],
)
def test_real_eval_archives(
    tmp_path: Path,
    name: str,
    task: str | None,
    metric: str | None,
    value: float | None,
    problem: str | None,
) -> None:
    path = CONVERT / "inspect-ai" / name
    adapter, [run] = read_runs(path.read_bytes(), path.name)
    assert adapter.name == "inspect-ai"
    assert run.framework == "inspect-ai"
    assert run.framework_version is not None
    if problem is not None:
        assert run.problems == [problem]
        assert run.scores == []
        return
    assert task is not None
    assert metric is not None
    assert value is not None
    bench = recorded_dataset(path)
    source, table = local(
        tmp_path,
        bench,
        "main",
        f'  - {{framework: inspect-ai, task: "{task}", metric: "{metric}",'
        f" benchmark: {bench}, task_id: main, scale: fraction}}\n",
    )
    conversion = entries_from(path, benchmarks=source, mappings=table)
    assert_valid(conversion)
    assert conversion.ok()
    assert conversion.entries[0]["value"] == value  # fraction to fraction: the source's value


def test_lighteval_nan_and_unknown_scales(tmp_path: Path) -> None:
    path = CONVERT / "lighteval/SmolLM2-1.7B-Instruct_results_2026-01-21T03-44-18.458309.json"
    source, table = local(
        tmp_path,
        "nyu-mll/glue",
        "cola",
        '  - {framework: lighteval, task: "glue:cola|0", metric: custom_reward,'
        " benchmark: nyu-mll/glue, task_id: cola, scale: percent}\n"
        '  - {framework: lighteval, task: "mmlu:anatomy|5", metric: acc,'
        " benchmark: lighteval/mmlu, task_id: anatomy, scale: percent}\n",
    )
    mmlu = tmp_path / "benchmarks" / "lighteval" / "mmlu"  # what the file says it ran on
    mmlu.mkdir(parents=True)
    (mmlu / "eval.yaml").write_text("name: m\ndescription: d\ntasks:\n  - id: anatomy\n")
    conversion = entries_from(path, benchmarks=source, mappings=table)
    # custom_reward's scale is not known: the row must say it; nothing is written meanwhile
    assert conversion.problems == [
        "lighteval task `glue:cola|0` metric `custom_reward`: its scale is not known; add"
        " `source_scale: fraction` or `percent` to the mapping row at test.yaml:2"
    ]
    assert not conversion.ok()
    [anatomy] = conversion.entries
    assert Decimal(repr(anatomy["value"])) == Decimal("44.44444444444444")
    # effective_num_docs and versions[task]
    assert anatomy["run"] == {"num_samples": 135, "adapter_version": "0"}
    _a, [run] = read_runs(path.read_bytes(), path.name)
    metrics = {(score.task, score.metric): score for score in run.scores}
    assert ("glue:cola|0", "broken_metric") not in metrics  # NaN is not a score
    assert metrics[("mmlu:anatomy|5", "acc")].stderr is None  # NaN stderr dropped
    assert run.model_revision is None  # `revision: main` is a branch, not a commit


def test_evalscope_reports_written_by_evalscope() -> None:
    gsm8k = entries_from(CONVERT / "evalscope/gsm8k.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    assert_valid(gsm8k)
    assert gsm8k.ok()
    assert gsm8k.entries == [
        {
            "dataset": {"id": "openai/gsm8k", "task_id": "gsm8k"},
            "value": 74.62,
            "framework": {"name": "evalscope"},
            "run": {"num_samples": 1319},  # the report's `num`; it records no version
            "notes": "EvalScope gsm8k",
        }
    ]
    # a multi-subset report: the overall score maps; its subsets need no row, so none is
    # suggested (they are kept apart as not needed)
    mmlu = entries_from(CONVERT / "evalscope/mmlu_pro.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    assert_valid(mmlu)
    assert [entry["value"] for entry in mmlu.entries] == [
        float(percent(0.3658))
    ]  # as EvalScope rounded it
    assert mmlu.unmapped == []
    assert sorted(u.task for u in mmlu.not_needed) == [
        "mmlu_pro/biology",
        "mmlu_pro/law",
        "mmlu_pro/math",
    ]
    partial = entries_from(
        CONVERT / "evalscope/gsm8k_partial.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    assert partial.run_problems == [
        "not every sample was scored: 10 of 13 succeeded, 3 errored, the run is incomplete"
    ]
    assert not partial.ok()


QWEN3_MAX = CONVERT / "evalscope/qwen3-max"  # one real EvalScope run of four benchmarks


@pytest.mark.parametrize(
    ("report", "cells"),
    [
        ("gsm8k.json", {("openai/gsm8k", "gsm8k", None): "100.0"}),
        ("gpqa_diamond.json", {("Idavidrein/gpqa", "diamond", None): "90.0"}),
        (
            "ifeval.json",
            {
                ("wis-k/instruction-following-eval", "ifeval", "prompt_level_strict_acc"): "80.0",
                ("wis-k/instruction-following-eval", "ifeval", "inst_level_strict_acc"): "86.67",
                ("wis-k/instruction-following-eval", "ifeval", "prompt_level_loose_acc"): "90.0",
                ("wis-k/instruction-following-eval", "ifeval", "inst_level_loose_acc"): "96.67",
            },
        ),
        ("iquiz.json", {}),  # no Hub benchmark: every score listed with its row to add
    ],
)
def test_real_evalscope_run_of_four_benchmarks(report: str, cells: dict[Any, str]) -> None:
    conversion = entries_from(QWEN3_MAX / report, benchmarks=EXAMPLES, mappings=SHIPPED)
    source = json.loads((QWEN3_MAX / report).read_bytes())
    found: dict[Any, str] = {}
    for entry in conversion.entries:
        dataset = entry["dataset"]
        for metric in entry.get("metrics", [{"metric_id": None, "value": entry.get("value")}]):
            key = (dataset["id"], dataset["task_id"], metric["metric_id"])
            found[key] = str(exact_decimal(metric["value"]))
        if dataset["id"] == "Idavidrein/gpqa":
            # bound to inspect-ai: an EvalScope result is a community one, without `framework`
            assert "framework" not in entry
        else:
            assert entry["framework"] == {"name": "evalscope"}  # a report records no version
        assert entry["run"] == {"num_samples": 10}  # `num`: the run's `limit: 10`
        assert not {"date", "model_revision"} & entry.keys()
    assert found == cells
    if cells:
        assert_valid(conversion)
        assert conversion.ok()
        # the values are the report's own, times 100 exactly
        sources = {Decimal(repr(metric["score"])) * 100 for metric in source["metrics"]}
        assert {Decimal(value) for value in cells.values()} == sources
    else:
        assert conversion.entries == []
        assert sorted(u.task for u in conversion.unmapped) == ["iquiz", "iquiz/EQ", "iquiz/IQ"]


def test_real_legacy_evalscope_reports() -> None:
    run = CONVERT / "evalscope/Qwen2.5-0.5B-Instruct"
    gsm8k = entries_from(run / "gsm8k.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    assert_valid(gsm8k)
    assert [(e["dataset"]["id"], e["value"]) for e in gsm8k.entries] == [("openai/gsm8k", 40.0)]
    ceval = entries_from(run / "ceval.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    assert ceval.entries == []
    assert [(u.task, u.metric, u.value) for u in ceval.unmapped] == [
        ("ceval", "AverageAccuracy", 0.35),
        ("ceval/computer_network", "AverageAccuracy", 0.1),
        ("ceval/operating_system", "AverageAccuracy", 0.3),
        ("ceval/computer_architecture", "AverageAccuracy", 0.6),
        ("ceval/college_programming", "AverageAccuracy", 0.4),
    ]


def test_lighteval_community_task_with_custom_metrics(tmp_path: Path) -> None:
    path = CONVERT / "lighteval/gpt-5.2_results_2025-12-12T15-11-59.471879.json"
    source, table = local(
        tmp_path,
        "LEXam-Benchmark/LEXam",
        "en_idk",
        '  - {framework: lighteval, task: "community|lexam-en-idk|0", metric: trad_score,'
        " benchmark: LEXam-Benchmark/LEXam, task_id: en_idk, scale: percent,"
        " source_scale: fraction}\n",
    )
    conversion = entries_from(path, benchmarks=source, mappings=table)
    assert_valid(conversion)
    assert conversion.ok()
    [entry] = conversion.entries
    # the nearest double's shortest text is 88.85298869143782; the YAML shows the exact digits
    assert entry["value"] == float(Decimal("88.85298869143781"))
    [file_bytes] = [dump_entries(entries) for entries in conversion.files.values()]
    assert b"value: 88.85298869143781\n" in file_bytes
    assert entry["date"] == "2025-12-12T15:11:59"
    # the task converted: its other metrics are rows it does not need, not suggestions
    assert conversion.unmapped == []
    assert {u.metric for u in conversion.not_needed} == {"idk_score", "idk_freq", "extract_fail"}
