"""`evalbot convert` through `bot.cli.main`, and once as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.cli import main
from bot.validation.validate import validate_results_files
from bot.validation.yamlload import load_yaml
from tests.conftest import REPO_ROOT

BENCHMARKS = str(REPO_ROOT / "examples" / "benchmarks")
REAL = REPO_ROOT / "tests" / "samples" / "real-world"
CONVERT = REPO_ROOT / "tests" / "samples" / "convert"
LEADERBOARD = {  # an lm-eval Open LLM Leaderboard v2 run, cut to a few tasks
    "results": {
        "leaderboard_gpqa_diamond": {"acc_norm,none": 0.25252525252525254, "alias": "x"},
        "leaderboard_gpqa_main": {"acc_norm,none": 0.23214285714285715},
        "leaderboard_mmlu_pro": {"acc,none": 0.11087101063829788},
        "leaderboard_arc_challenge": {"acc_norm,none": 0.3967576791808874},  # not mapped
    },
    "versions": {},
    "configs": {
        "leaderboard_gpqa_diamond": {
            "dataset_path": "Idavidrein/gpqa",
            "dataset_kwargs": {"revision": "90b8e5be2b1d3d2dbfe016cdab47981150600c4a"},
        }
    },
    "lm_eval_version": "0.4.3",
    "config": {"model_sha": "b" * 40},
    "date": 1718645845.0,
}


def test_yaml_on_stdout_and_the_unmapped_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "results_2024-06-17T17-37-25.144953.json"
    source.write_text(json.dumps(LEADERBOARD))
    assert main(["convert", str(source), "--benchmarks", BENCHMARKS]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("# .eval_results/gpqa.yaml\n")
    unmapped = '- {framework: "lm-eval", task: "leaderboard_arc_challenge", metric: "acc_norm,none"'
    assert unmapped in captured.err
    gpqa = captured.out.split("# .eval_results/mmlu_pro.yaml\n")[0]
    entries = load_yaml(gpqa.encode()).data
    assert entries[0]["dataset"] == {
        "id": "Idavidrein/gpqa",
        "task_id": "diamond",
        "revision": "90b8e5be2b1d3d2dbfe016cdab47981150600c4a",
    }
    assert entries[0]["value"] == 25.252525252525254
    assert entries[0]["model_revision"] == "b" * 40
    assert entries[0]["date"] == "2024-06-17T17:37:25Z"


def test_out_merges_into_the_repo_and_validates(tmp_path: Path) -> None:
    source = tmp_path / "results.json"
    source.write_text(json.dumps(LEADERBOARD))
    repo = tmp_path / "model"
    (repo / ".eval_results").mkdir(parents=True)
    (repo / ".eval_results" / "gpqa.yaml").write_text(
        "- dataset:\n    id: Idavidrein/gpqa\n    task_id: extended\n  value: 26.0\n"
    )
    args = ["convert", str(source), "--benchmarks", BENCHMARKS, "--out", str(repo)]
    assert main(args) == 0
    assert main(args) == 0  # a re-run replaces its own entries instead of duplicating them
    gpqa = load_yaml((repo / ".eval_results" / "gpqa.yaml").read_bytes()).data
    assert [entry["dataset"]["task_id"] for entry in gpqa] == ["extended", "diamond", "main"]
    files = {
        f".eval_results/{path.name}": path.read_bytes()
        for path in (repo / ".eval_results").iterdir()
    }
    reports = validate_results_files(files, DirectoryBenchmarkSource(BENCHMARKS))
    assert all(report.ok for report in reports)


def test_partial_run_writes_nothing_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = tmp_path / "rows.yaml"
    rows.write_text(
        "mappings:\n  - {framework: lm-eval, task: arc_easy, metric: 'acc,none',"
        " benchmark: openai/gsm8k, task_id: gsm8k, scale: percent}\n"
    )
    path = str(CONVERT / "lm-eval/cpu_group_regression_expected.json")
    args = ["convert", path, "--benchmarks", BENCHMARKS, "--mappings", str(rows)]
    assert main(args) == 1
    assert "ran on 10 of 2376 samples" in capsys.readouterr().err
    assert main([*args, "--allow-partial"]) == 0
    assert "value: 30.0" in capsys.readouterr().out


def test_bad_mapping_file_is_a_usage_error_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = tmp_path / "rows.yaml"
    rows.write_text("mappings:\n  - framework: lm-eval\n    task: x\n")
    status = main(["convert", "x.json", "--benchmarks", BENCHMARKS, "--mappings", str(rows)])
    assert status == 2
    assert f"{rows}:2: missing `metric:`" in capsys.readouterr().err


def test_an_integer_of_thousands_of_digits_is_an_error_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past Python's limit of digits (4,300): an error naming the output, not a traceback."""
    output = tmp_path / "results.json"
    output.write_text(json.dumps(LEADERBOARD).replace("0.11087101063829788", "9" * 5000))
    assert main(["convert", str(output), "--benchmarks", BENCHMARKS]) == 2
    err = capsys.readouterr().err
    assert f"{output}: an integer of more than 4300 digits, which evalbot does not read" in err


def test_check_mappings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", "--check-mappings", "--benchmarks", BENCHMARKS]) == 0
    rows = tmp_path / "rows.yaml"
    rows.write_text(
        "mappings:\n  - {framework: x, task: y, metric: z, benchmark: Idavidrein/gpqa,"
        " task_id: Diamond, scale: percent}\n"
    )
    args = ["convert", "--check-mappings", "--benchmarks", BENCHMARKS, "--mappings", str(rows)]
    assert main(args) == 1
    assert f"{rows}:2: task_id `Diamond` is not a task" in capsys.readouterr().err


def test_to_eee_writes_valid_records(tmp_path: Path) -> None:
    out = tmp_path / "eee"
    repo = REPO_ROOT / "examples" / "model-good"
    args = ["convert", "--to", "eee", str(repo), "--model-repo", "org/model", "--out", str(out)]
    assert main([*args, "--benchmarks", BENCHMARKS]) == 0
    records = sorted(out.rglob("*.json"))  # one record per framework and benchmark
    assert main(["validate", str(out)]) == 0
    tasks = {
        result["evaluation_name"]
        for path in records
        for result in json.loads(path.read_text())["evaluation_results"]
    }
    assert {"diamond", "mmlu_pro", "hle", "aime_2026"} <= tasks


def test_run_fields_reach_the_entries_and_eee_and_come_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = {
        **LEADERBOARD,
        "versions": {"leaderboard_gpqa_diamond": 1.0},
        "n-samples": {"leaderboard_gpqa_diamond": {"original": 198, "effective": 198}},
    }
    run["results"] = {
        "leaderboard_gpqa_diamond": {
            "acc_norm,none": 0.25252525252525254,
            "acc_norm_stderr,none": 0.030954055470365897,
        }
    }
    source = tmp_path / "results_2024-06-17T17-37-25.144953.json"
    source.write_text(json.dumps(run))
    repo = tmp_path / "repo"
    assert main(["convert", str(source), "--benchmarks", BENCHMARKS, "--out", str(repo)]) == 0
    [entry] = load_yaml((repo / ".eval_results/gpqa.yaml").read_bytes()).data
    assert entry["run"] == {"num_samples": 198, "adapter_version": "1.0"}
    out = tmp_path / "eee"
    args = ["convert", "--to", "eee", str(repo), "--model-repo", "org/model", "--out", str(out)]
    assert main([*args, "--benchmarks", BENCHMARKS]) == 0
    [record_path] = out.rglob("*.json")
    [result] = json.loads(record_path.read_text())["evaluation_results"]
    # the sample count has an EEE field; the stderr never reached the entry, so none is written
    assert result["score_details"]["uncertainty"] == {"num_samples": 198}
    assert result["score_details"]["details"]["hf_run_adapter_version"] == "1.0"
    capsys.readouterr()
    assert main(["convert", str(record_path), "--benchmarks", BENCHMARKS]) == 0
    [back] = load_yaml(capsys.readouterr().out.encode()).data
    assert back == entry


def test_to_eee_needs_a_model_repo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", "--to", "eee", str(REPO_ROOT / "examples" / "model-good")]) == 2
    assert "--model-repo" in capsys.readouterr().err


def test_subprocess_lists_the_converters() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "convert", "--list"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0, done.stderr
    names = [line.split()[0] for line in done.stdout.splitlines()]
    assert names == ["eee", "evalscope", "inspect-ai", "lighteval", "lm-eval"]


def test_several_inputs_each_finding_names_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: three runs converted at once wrote nothing, and nothing said which one was the
    `--limit` run."""
    paths: list[str] = []
    for name in ("a", "b", "c"):
        run = json.loads(json.dumps(LEADERBOARD))
        if name == "b":
            run["n-samples"] = {"leaderboard_gpqa_main": {"original": 448, "effective": 10}}
        written = tmp_path / "out" / name / "results_2024-06-17T17-37-25.144953.json"
        written.parent.mkdir(parents=True)
        written.write_text(json.dumps(run))
        paths.append(str(written))
    assert main(["convert", *paths, "--benchmarks", BENCHMARKS]) == 1
    err = capsys.readouterr().err
    assert f"error: {paths[1]}: task `leaderboard_gpqa_main` ran on 10 of 448 samples" in err
    assert f"evalbot convert: nothing written: 1 of 3 input(s) refused ({paths[1]})" in err
    # the unmapped task of each file is listed under that file's name
    for shown in paths:
        assert f"{shown}: 1 score(s) of 1 task(s) not mapped" in err


def test_all_suggestions_lists_the_rows_the_cap_leaves_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = json.loads(json.dumps(LEADERBOARD))
    for n in range(12):
        run["results"][f"custom_{n}"] = {"acc,none": 0.5}
    source = tmp_path / "results.json"
    source.write_text(json.dumps(run))
    assert main(["convert", str(source), "--benchmarks", BENCHMARKS]) == 0
    capped = capsys.readouterr().err
    assert "... and 3 more row(s) for 3 task(s): --all-suggestions lists them" in capped
    assert main(["convert", str(source), "--benchmarks", BENCHMARKS, "--all-suggestions"]) == 0
    listed = capsys.readouterr().err
    assert "more row(s)" not in listed
    assert listed.count("  - {framework:") == 13


def test_nothing_mapped_names_the_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(CONVERT / "lm-eval/gemma-2b_results_2026-01-16T15-23-47.285735.json")
    assert main(["convert", path, "--benchmarks", BENCHMARKS]) == 1
    err = capsys.readouterr().err
    assert err.rstrip().endswith(f"evalbot convert: no score is mapped in {path}: nothing to write")


def test_format_json_reports_each_input_and_the_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "results_2024-06-17T17-37-25.144953.json"
    source.write_text(json.dumps(LEADERBOARD))
    args = ["convert", str(source), "--benchmarks", BENCHMARKS, "--format", "json"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True
    (one,) = report["inputs"]
    assert one["source"] == str(source)
    assert one["converter"] == "lm-eval"
    assert one["ok"] is True
    assert one["entries"] == 3
    assert any("leaderboard_arc_challenge" in line for line in one["findings"])
    assert sorted(report["files"]) == [".eval_results/gpqa.yaml", ".eval_results/mmlu_pro.yaml"]
    assert report["files"][".eval_results/gpqa.yaml"][0]["dataset"]["task_id"] == "diamond"
    partial = dict(LEADERBOARD, results={"leaderboard_gpqa_diamond": {"acc_norm,none": "NaN"}})
    source.write_text(json.dumps(partial))
    assert main(args) == 1
    refused = json.loads(capsys.readouterr().out)
    assert refused["ok"] is False
    assert refused["files"] == {}
    assert refused["inputs"][0]["ok"] is False
