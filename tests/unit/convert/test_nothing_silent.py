"""Nothing is dropped without a word: NaN, infinite and non-numeric scores, values off their
scale, duplicate JSON keys and truncated files are refused or reported, each naming the input
file, its task and metric; suggestions never offer a standard error, are not printed for rows
a converted task does not need, and are capped.

Inputs are the real outputs in `tests/samples/` (provenance in their READMEs), changed in code
where a test needs a defect the real file does not have.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import entries_from
from bot.convert.findings import SUGGESTIONS_SHOWN, findings
from bot.convert.mapping import MappingTable, parse_mappings
from bot.convert.registry import ConvertError

ROOT = Path(__file__).parents[3]
SAMPLES = ROOT / "tests" / "samples"
LM_EVAL = SAMPLES / "real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"
QWEN3_MAX = SAMPLES / "convert/evalscope/qwen3-max"
EXAMPLES = DirectoryBenchmarkSource(ROOT / "examples" / "benchmarks")
SHIPPED = parse_mappings(
    "bot/data/convert/mappings.yaml", (ROOT / "bot/data/convert/mappings.yaml").read_bytes()
)
#: the real file's two tasks, each mapped to the dataset it records (`configs[t].dataset_path`)
MATH_ROWS = (
    b"mappings:\n"
    b'  - {framework: lm-eval, task: math_rephrased_full, metric: "exact_match,none",'
    b" benchmark: stellaathena/math_rephrased_full, task_id: default, scale: percent}\n"
    b'  - {framework: lm-eval, task: math_perturbed_full, metric: "exact_match,none",'
    b" benchmark: stellaathena/math_perturbed_5000, task_id: default, scale: percent}\n"
)


@pytest.fixture
def math_benchmark(tmp_path: Path) -> tuple[DirectoryBenchmarkSource, MappingTable]:
    for name in ("math_rephrased_full", "math_perturbed_5000"):
        folder = tmp_path / "benchmarks" / "stellaathena" / name
        folder.mkdir(parents=True)
        (folder / "eval.yaml").write_text(
            "name: math\ndescription: written by the test\ntasks:\n  - id: default\n"
        )
    return DirectoryBenchmarkSource(tmp_path / "benchmarks"), parse_mappings("t.yaml", MATH_ROWS)


def lm_eval_with(value_text: str) -> bytes:
    """The real lm-eval file with `math_rephrased_full`'s score replaced by `value_text`."""
    content = LM_EVAL.read_bytes()
    assert content.count(b'"exact_match,none": 0.0004,') == 1
    return content.replace(
        b'"exact_match,none": 0.0004,', f'"exact_match,none": {value_text},'.encode()
    )


@pytest.mark.parametrize(
    ("value_text", "shown"),
    [
        ("NaN", "NaN"),
        ("Infinity", "Infinity"),
        ('"N/A"', 'the text "N/A"'),
        ("null", "null"),
        ("1.5", "1.5 is outside 0-1"),  # lm-eval's exact_match is a fraction: 150 on 0-100
        ("-0.1", "-0.1 is outside 0-1"),
    ],
)
def test_a_score_that_is_not_one_refuses_the_run_naming_file_task_and_metric(
    math_benchmark: tuple[DirectoryBenchmarkSource, MappingTable], value_text: str, shown: str
) -> None:
    """Was: the NaN score vanished (one entry, ok, nothing said); 1.5 became `value: 150.0`."""
    source, table = math_benchmark
    name = "out/run-a/results_2026-01-21T03-44-18.458309.json"
    conversion = entries_from(
        lm_eval_with(value_text), filename=name, benchmarks=source, mappings=table
    )
    assert not conversion.ok()
    [left] = conversion.left_out
    assert (left.task, left.metric) == ("math_rephrased_full", "exact_match,none")
    assert shown in left.reason
    [line] = [line for line in findings(conversion, allow_partial=False) if "rephrased" in line]
    assert line.startswith(f"error: {name}: task `math_rephrased_full` metric `exact_match,none`")
    assert "--allow-partial" in line
    # --allow-partial keeps the other score and names the one left out
    assert conversion.ok(allow_partial=True)
    assert [entry["dataset"]["id"] for entry in conversion.entries] == [
        "stellaathena/math_perturbed_5000"
    ]
    [note] = [line for line in findings(conversion, allow_partial=True) if "rephrased" in line]
    assert note.startswith(f"warning: {name}: task `math_rephrased_full`")
    assert "left out" in note


def test_a_nan_metric_of_an_evalscope_report_is_not_dropped_from_its_entry() -> None:
    """Was: an entry with 3 of its 4 IFEval metrics, and no message."""
    report = json.loads((QWEN3_MAX / "ifeval.json").read_bytes())
    report["metrics"][1]["score"] = float("nan")
    name = report["metrics"][1]["name"]
    conversion = entries_from(
        json.dumps(report).encode(),
        filename="reports/qwen3-max/ifeval.json",
        benchmarks=EXAMPLES,
        mappings=SHIPPED,
    )
    assert not conversion.ok()
    assert [(left.task, left.metric) for left in conversion.left_out] == [("ifeval", name)]
    assert any(
        line.startswith(f"error: reports/qwen3-max/ifeval.json: task `ifeval` metric `{name}`")
        for line in findings(conversion, allow_partial=False)
    )
    assert conversion.ok(allow_partial=True)
    [entry] = conversion.entries
    assert len(entry["metrics"]) == 3


def test_a_nan_of_a_score_no_row_maps_is_a_warning_naming_it(
    math_benchmark: tuple[DirectoryBenchmarkSource, MappingTable],
) -> None:
    source, _table = math_benchmark
    rows = MappingTable(
        {k: v for k, v in parse_mappings("t.yaml", MATH_ROWS).rows.items() if "perturbed" in k[1]}
    )
    conversion = entries_from(
        lm_eval_with("NaN"), filename="results.json", benchmarks=source, mappings=rows
    )
    assert conversion.ok()  # nothing would have been written for it
    assert [(left.task, left.metric) for left in conversion.ignored] == [
        ("math_rephrased_full", "exact_match,none")
    ]
    lines = findings(conversion, allow_partial=False)
    assert any(
        line.startswith("warning: results.json: task `math_rephrased_full` metric")
        and "NaN" in line
        for line in lines
    )


def test_duplicate_json_keys_are_refused_with_their_line() -> None:
    """Was: read silently, the last value winning."""
    content = LM_EVAL.read_bytes().replace(
        b'"exact_match,none": 0.0004,',
        b'"exact_match,none": 0.0004,\n      "exact_match,none": 0.9,',
    )
    with pytest.raises(ConvertError) as caught:
        entries_from(content, filename="results.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    message = str(caught.value)
    assert message.startswith('results.json: key "exact_match,none" appears twice')
    # the object of `math_rephrased_full` opens on line 8 of the real file
    assert "in the object at line 8 column 28" in message


def test_a_truncated_json_says_where_it_ends() -> None:
    """Was: "not JSON, nor an output format evalbot can read"."""
    content = LM_EVAL.read_bytes()
    cut = content[: len(content) // 2]
    lines = cut.count(b"\n") + 1
    columns = len(cut) - cut.rfind(b"\n")
    with pytest.raises(ConvertError) as caught:
        entries_from(cut, filename="results.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    message = str(caught.value)
    assert message.startswith(f"results.json: the JSON ends at line {lines} column {columns} ")
    assert "truncated" in message
    for end in range(1, len(content.rstrip()), 97):  # cut anywhere: always "truncated"
        with pytest.raises(ConvertError, match="the file is truncated"):
            entries_from(content[:end], filename="r.json", benchmarks=EXAMPLES, mappings=SHIPPED)
    broken = content.replace(b'"results": {', b'"results": {,', 1)
    with pytest.raises(ConvertError, match=r"results\.json: not valid JSON at line 2 column 15"):
        entries_from(broken, filename="results.json", benchmarks=EXAMPLES, mappings=SHIPPED)


def test_json_lines_are_named_as_such() -> None:
    """Per-sample JSON Lines (EEE instance-level rows) are not a document evalbot converts."""
    sample = (
        SAMPLES
        / "real-world/every_eval_ever/demo_f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl"
    )
    row = sample.read_bytes().strip() + b"\n"
    with pytest.raises(ConvertError, match=r"rows\.jsonl: a second JSON value starts at line 2"):
        entries_from(row * 2, filename="rows.jsonl", benchmarks=EXAMPLES, mappings=SHIPPED)


def inspect_log(metrics: dict[str, float]) -> bytes:
    """The real inspect log, its score's metrics replaced (as inspect_evals' IFEval names them)."""
    log: dict[str, Any] = json.loads(
        (SAMPLES / "convert/inspect-ai/data_arc_qwen.json").read_bytes()
    )
    [score] = log["results"]["scores"]
    score["name"] = "instruction_following"
    score["metrics"] = {
        name: {"name": name, "value": value, "params": {}} for name, value in metrics.items()
    }
    return json.dumps(log).encode()


def test_standard_errors_are_never_offered_as_rows() -> None:
    """Was: 5 of 10 rows suggested for an inspect IFEval log were standard errors."""
    metrics = {
        "prompt_strict_acc": 0.8,
        "prompt_strict_stderr": 0.01,
        "inst_strict_acc": 0.85,
        "inst_strict_stderr": 0.01,
        "final_acc": 0.8,
        "final_stderr": 0.02,
    }
    conversion = entries_from(
        inspect_log(metrics), filename="ifeval.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    offered = {item.metric.rsplit("/", 1)[-1] for item in conversion.unmapped}
    assert offered == {"prompt_strict_acc", "inst_strict_acc", "final_acc"}
    assert not any("stderr" in line for line in findings(conversion, allow_partial=False))


def test_a_successful_evalscope_conversion_suggests_no_row_for_its_subset() -> None:
    """Was: every successful EvalScope conversion ended with "1 score(s) not mapped"."""
    conversion = entries_from(
        SAMPLES / "convert/evalscope/gsm8k.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    assert conversion.ok()
    assert conversion.entries
    assert findings(conversion, allow_partial=False) == []
    listed = findings(conversion, allow_partial=False, all_suggestions=True)
    assert any('task: "gsm8k/main"' in line for line in listed)


def test_suggestions_are_grouped_and_capped() -> None:
    """Was: a 180-task run printed 407 lines."""
    results = {
        f"custom_task_{n}": {"alias": f"custom_task_{n}", "acc,none": 0.5, "acc_norm,none": 0.6}
        for n in range(180)
    }
    content = json.dumps({"results": results, "versions": {}, "lm_eval_version": "0.4.9"})
    conversion = entries_from(
        content.encode(), filename="big.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    lines = findings(conversion, allow_partial=False)
    assert len(lines) == 1 + SUGGESTIONS_SHOWN + 1
    assert lines[0].startswith("big.json: 360 score(s) of 180 task(s) not mapped")
    assert re.fullmatch(
        r"  \.\.\. and 350 more row\(s\) for 175 task\(s\): --all-suggestions lists them",
        lines[-1],
    )
    # grouped: a task's rows are next to each other
    assert 'task: "custom_task_0", metric: "acc,none"' in lines[1]
    assert 'task: "custom_task_0", metric: "acc_norm,none"' in lines[2]
    everything = findings(conversion, allow_partial=False, all_suggestions=True)
    assert len(everything) == 1 + 360
