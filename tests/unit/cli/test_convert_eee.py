"""`evalbot convert --to eee --out DIR` writes a datastore that `evalbot validate` accepts.

The round trip on real framework outputs: an lm-eval run with its `--log_samples` file and
inspect-ai logs (`.eval` and `.json`), converted into a datastore folder, then checked as a
datastore folder and `--against` a datastore's main (the real records of the fixtures).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.eee.paths import path_problem
from tests.conftest import REPO_ROOT
from tests.unit.eee.helpers import DATASTORE

SAMPLES = REPO_ROOT / "tests" / "samples"
LM_EVAL = SAMPLES / "real-world" / "lm-eval"
LM_EVAL_RESULTS = "results_2026-01-21T03-44-18.458309.json"
LM_EVAL_SAMPLES = "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
LM_EVAL_MODEL = "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1"
LM_EVAL_ROWS = SAMPLES / "convert" / "mappings" / "lm-eval-math-to-hle-mini.yaml"
#: EEE's own converter's output for the same lm-eval samples (PROVENANCE.md there)
EEE_ROWS = next((DATASTORE / "pass" / "data" / "math_perturbed_full").rglob("*_samples.jsonl"))
INSPECT = SAMPLES / "convert" / "inspect-ai"
UUID4_NAME = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.json"
)

BENCHMARKS = {
    # the benchmark the test rows map the lm-eval MATH tasks to (a metric with bounds)
    "emulator-samples/hle-mini": (
        "name: HLE mini\ndescription: test benchmark\nmetrics:\n  - id: accuracy\n"
        "    display_name: Accuracy\n    higher_is_better: true\n    primary: true\n"
        "    min_score: 0\n    max_score: 100\ntasks:\n  - id: hle\n    config: default\n"
        "    split: test\n"
    ),
    # the datasets the inspect-ai logs record, with their config and split
    "cais/mmlu": (
        "name: MMLU\ndescription: test\ntasks:\n  - id: all\n    config: all\n    split: test\n"
    ),
    "bigbio/pubmed_qa": (
        "name: PubMedQA\ndescription: test\ntasks:\n  - id: labeled\n"
        "    config: pubmed_qa_labeled_fold0_source\n    split: test\n"
    ),
}
INSPECT_ROWS = (
    "mappings:\n"
    "  - {framework: inspect-ai, task: inspect_evals/mmlu_0_shot, metric: choice/accuracy,"
    " benchmark: cais/mmlu, task_id: all, scale: fraction}\n"
    "  - {framework: inspect-ai, task: inspect_evals/pubmedqa, metric: choice/accuracy,"
    " benchmark: bigbio/pubmed_qa, task_id: labeled, scale: fraction}\n"
)


@pytest.fixture
def benchmarks(tmp_path: Path) -> Path:
    folder = tmp_path / "benchmarks"
    for name, text in BENCHMARKS.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "eval.yaml").write_text(text)
    return folder


def lm_eval_run(tmp_path: Path, *, with_samples: bool = True) -> Path:
    """The real lm-eval output folder: the results file, and its samples file beside it."""
    run = tmp_path / "lm-eval-run"
    run.mkdir(exist_ok=True)
    shutil.copy(LM_EVAL / LM_EVAL_RESULTS, run / LM_EVAL_RESULTS)
    if with_samples:
        shutil.copy(LM_EVAL / LM_EVAL_SAMPLES, run / LM_EVAL_SAMPLES)
    else:
        (run / LM_EVAL_SAMPLES).unlink(missing_ok=True)
    return run / LM_EVAL_RESULTS


def convert_lm_eval(results: Path, benchmarks: Path, out: Path, *extra: str) -> int:
    args = ["convert", "--to", "eee", str(results), "--model-repo", LM_EVAL_MODEL]
    args += ["--mappings", str(LM_EVAL_ROWS), "--benchmarks", str(benchmarks), "--out", str(out)]
    return main([*args, *extra])


def datastore_files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


def validates(folder: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    status = main(["validate", str(folder), "--format", "json", *extra])
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert status == 0, json.dumps(out, indent=1)
    return out


def main_checkout(tmp_path: Path) -> Path:
    """A datastore's main: the real records of the fixtures' `pass/` folder."""
    checkout = tmp_path / "EEE_datastore"
    shutil.copytree(DATASTORE / "pass", checkout)
    return checkout


def test_the_lm_eval_round_trip_as_a_datastore_and_against_main(
    tmp_path: Path, benchmarks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "converted"
    assert convert_lm_eval(lm_eval_run(tmp_path), benchmarks, out) == 0
    record_path, samples_path = datastore_files(out)
    folder = f"data/emulator-samples_hle-mini/{LM_EVAL_MODEL.replace('/', '/', 1)}"
    assert record_path.startswith(folder + "/")
    assert path_problem(record_path) is None
    assert UUID4_NAME.fullmatch(record_path.rsplit("/", 1)[1])
    assert samples_path == record_path.removesuffix(".json") + "_samples.jsonl"
    record = json.loads((out / record_path).read_bytes())
    samples = (out / samples_path).read_bytes()
    assert record["detailed_evaluation_results"] == {
        "format": "jsonl",
        "file_path": samples_path,
        "hash_algorithm": "sha256",
        "checksum": hashlib.sha256(samples).hexdigest(),
        "total_rows": 10,
    }
    report = validates(out, capsys)
    assert [f["path"] for f in report["files"]] == [str(out / record_path), str(out / samples_path)]
    assert all(f["diagnostics"] == [] for f in report["files"])
    validates(out, capsys, "--against", str(main_checkout(tmp_path)))


def test_the_rows_are_those_eees_own_converter_writes(tmp_path: Path, benchmarks: Path) -> None:
    """Row for row, what EEE's lm-eval converter wrote for the same samples file, but for the
    ids that tie the rows to their record and the fields it leaves `null`."""
    out = tmp_path / "converted"
    assert convert_lm_eval(lm_eval_run(tmp_path), benchmarks, out) == 0
    (samples,) = out.rglob("*_samples.jsonl")
    record = json.loads(
        samples.with_name(samples.name.replace("_samples.jsonl", ".json")).read_text()
    )
    ours = [json.loads(line) for line in samples.read_text().splitlines()]
    theirs = [json.loads(line) for line in EEE_ROWS.read_text().splitlines()]
    assert len(ours) == len(theirs) == 10
    ids = {"schema_version", "evaluation_id", "model_id", "evaluation_name"}
    for row, eee in zip(ours, theirs, strict=True):
        assert row["evaluation_id"] == record["evaluation_id"]
        assert row["model_id"] == LM_EVAL_MODEL
        assert row["evaluation_name"] == "hle"  # the result of the record it belongs to
        assert row["metadata"].pop("framework_task") == "math_perturbed_full"
        assert {k: v for k, v in row.items() if k not in ids} == without_nulls(
            {k: v for k, v in eee.items() if k not in ids}
        )


def without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


@pytest.mark.parametrize(
    ("log", "model", "folder", "rows"),
    [
        ("mmlu-summary-choices.eval", "openai/gpt-4o", "data/cais_mmlu/openai/gpt-4o", 1),
        (
            "data_pubmedqa_gpt4o_mini.json",
            "openai/gpt-4o-mini",
            "data/bigbio_pubmed_qa/openai/gpt-4o-mini",
            2,
        ),
    ],
)
def test_the_inspect_ai_round_trip(
    tmp_path: Path,
    benchmarks: Path,
    capsys: pytest.CaptureFixture[str],
    log: str,
    model: str,
    folder: str,
    rows: int,
) -> None:
    mappings = tmp_path / "rows.yaml"
    mappings.write_text(INSPECT_ROWS)
    out = tmp_path / "converted"
    args = ["convert", "--to", "eee", str(INSPECT / log), "--model-repo", model, "--out", str(out)]
    args += ["--mappings", str(mappings), "--benchmarks", str(benchmarks)]
    assert main(args) == 0
    record_path, samples_path = datastore_files(out)
    assert record_path.startswith(folder + "/")
    samples = (out / samples_path).read_bytes()
    record = json.loads((out / record_path).read_bytes())
    assert record["detailed_evaluation_results"]["total_rows"] == rows == len(samples.splitlines())
    assert record["detailed_evaluation_results"]["checksum"] == hashlib.sha256(samples).hexdigest()
    validates(out, capsys)
    validates(out, capsys, "--against", str(main_checkout(tmp_path)))


def test_a_model_repo_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`.eval_results` have no samples: one record per framework and benchmark, no pair."""
    out = tmp_path / "converted"
    repo = REPO_ROOT / "examples" / "model-good"
    args = ["convert", "--to", "eee", str(repo), "--model-repo", "org/model", "--out", str(out)]
    assert main([*args, "--benchmarks", str(REPO_ROOT / "examples" / "benchmarks")]) == 0
    written = datastore_files(out)
    assert written
    assert all(path_problem(path) is None for path in written)
    assert all(path.endswith(".json") for path in written)
    assert "data/Idavidrein_gpqa/org/model" in {path.rsplit("/", 1)[0] for path in written}
    assert len(validates(out, capsys)["files"]) == len(written)
    validates(out, capsys, "--against", str(main_checkout(tmp_path)))


def test_a_rerun_reuses_the_records_it_wrote(
    tmp_path: Path, benchmarks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """uuid4 names are random: a second run finds the same evaluation (EEE's normalised hash,
    the samples pointer aside) and rewrites it under its name instead of adding a duplicate;
    the run that brings the samples file replaces the record that had none."""
    out = tmp_path / "converted"
    assert convert_lm_eval(lm_eval_run(tmp_path, with_samples=False), benchmarks, out) == 0
    (first,) = datastore_files(out)
    before = json.loads((out / first).read_bytes())
    capsys.readouterr()
    assert convert_lm_eval(lm_eval_run(tmp_path), benchmarks, out) == 0
    assert f"replaced {out / first}" in capsys.readouterr().err
    record_path, samples_path = datastore_files(out)
    assert record_path == first
    after = json.loads((out / record_path).read_bytes())
    assert after["evaluation_id"] == before["evaluation_id"]
    assert after["retrieved_timestamp"] == before["retrieved_timestamp"]
    assert after["detailed_evaluation_results"]["file_path"] == samples_path
    content = {path: (out / path).read_bytes() for path in (record_path, samples_path)}
    assert convert_lm_eval(lm_eval_run(tmp_path), benchmarks, out) == 0
    assert "0 new, 0 replaced, 1 unchanged" in capsys.readouterr().err
    assert {path: (out / path).read_bytes() for path in datastore_files(out)} == content
    validates(out, capsys)


def test_the_collection_option(
    tmp_path: Path, benchmarks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "converted"
    results = lm_eval_run(tmp_path)
    assert convert_lm_eval(results, benchmarks, out, "--collection", "math-variants") == 0
    record_path, _samples = datastore_files(out)
    assert record_path.startswith(f"data/math-variants/{LM_EVAL_MODEL}/")
    validates(out, capsys)
    capsys.readouterr()
    assert convert_lm_eval(results, benchmarks, tmp_path / "x", "--collection", "a/b") == 1
    assert "the collection `a/b` is not a single folder name" in capsys.readouterr().err
    assert convert_lm_eval(results, benchmarks, tmp_path / "x", "--collection", "CON") == 1
    assert "is a Windows device name" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    assert (
        main(["convert", "--to", "eee", str(results), "--model-repo", "a/b", "--collection", "c"])
        == 2
    )
    assert "--collection names a folder of --out DIR" in capsys.readouterr().err


def test_nothing_is_written_when_the_datastore_would_refuse_it(
    tmp_path: Path, benchmarks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The output is checked as `evalbot validate` would check it before the first byte is
    written: the same evaluation filed under another collection is a duplicate (without
    samples: a samples file's checksum covers the `evaluation_id` of its rows)."""
    out = tmp_path / "converted"
    results = lm_eval_run(tmp_path, with_samples=False)
    assert convert_lm_eval(results, benchmarks, out) == 0
    before = datastore_files(out)
    capsys.readouterr()
    assert convert_lm_eval(results, benchmarks, out, "--collection", "elsewhere") == 1
    err = capsys.readouterr().err
    assert "EEE-DUPLICATE" in err
    assert "evalbot convert: nothing written" in err
    assert datastore_files(out) == before


def test_records_without_out_are_printed_one_per_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = REPO_ROOT / "examples" / "model-good"
    args = ["convert", "--to", "eee", str(repo), "--model-repo", "org/model"]
    assert main([*args, "--benchmarks", str(REPO_ROOT / "examples" / "benchmarks")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) >= 4
    assert all(json.loads(line)["model_info"]["id"] == "org/model" for line in lines)


EXAMPLES = REPO_ROOT / "examples"
AIME_FOLDER = "data/MathArena_aime_2026/org/model"


def convert_examples(out: Path, benchmarks: Path | None, *extra: str) -> int:
    args = ["convert", "--to", "eee", str(EXAMPLES / "model-good"), "--model-repo", "org/model"]
    args += ["--out", str(out), *extra]
    return main([*args, "--benchmarks", str(benchmarks)] if benchmarks else args)


def configs(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        result["metric_config"]["metric_id"]: result["metric_config"]
        for result in record["evaluation_results"]
    }


def test_each_metric_takes_its_direction_and_bounds_from_its_benchmark(tmp_path: Path) -> None:
    out = tmp_path / "converted"
    assert convert_examples(out, EXAMPLES / "benchmarks") == 0
    (aime,) = (out / AIME_FOLDER).glob("*.json")
    found = configs(json.loads(aime.read_bytes()))
    assert found["accuracy"]["lower_is_better"] is False
    assert (found["accuracy"]["min_score"], found["accuracy"]["max_score"]) == (0, 100)
    assert found["cost_usd"]["lower_is_better"] is True
    assert found["attempts"]["lower_is_better"] is True


def test_a_benchmark_that_cannot_be_read_stops_the_run_and_says_how_to_go_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No `--benchmarks`: the benchmarks are read as every command reads them; offline, one the
    cache does not hold stops the run (exit 2): the direction is never guessed."""
    model = tmp_path / "model" / ".eval_results"
    model.mkdir(parents=True)
    (model / "scores.yaml").write_text(
        "- dataset: {id: evalbot-tests/never-cached, task_id: all}\n  value: 5\n"
    )
    out = tmp_path / "converted"
    args = ["convert", "--to", "eee", str(model.parent), "--model-repo", "org/model"]
    assert main([*args, "--out", str(out), "--offline"]) == 2
    err = capsys.readouterr().err
    assert "offline: evalbot-tests/never-cached is not in the Hugging Face cache" in err
    assert "run once with the Hub reachable to cache it, or give --benchmarks DIR" in err
    assert not out.exists()


def test_a_metric_or_benchmark_the_source_does_not_have_refuses_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model" / ".eval_results"
    model.mkdir(parents=True)
    out = tmp_path / "converted"
    args = ["convert", "--to", "eee", str(model.parent), "--model-repo", "org/model"]
    args += ["--out", str(out), "--benchmarks", str(EXAMPLES / "benchmarks")]
    (model / "aime.yaml").write_text(
        "- dataset: {id: MathArena/aime_2026, task_id: aime_2026}\n"
        "  metrics: [{metric_id: cost, value: 5}]\n"
    )
    assert main(args) == 1
    assert "MathArena/aime_2026 declares no metric `cost` (its metrics: `accuracy`," in (
        capsys.readouterr().err
    )
    (model / "aime.yaml").write_text("- dataset: {id: nobody/nothing, task_id: all}\n  value: 5\n")
    assert main(args) == 1
    assert "evalbot convert: nobody/nothing: " in capsys.readouterr().err
    assert not out.exists()


def test_a_rerun_with_the_benchmarks_direction_replaces_the_record_written_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same evaluation is the same results: a record an earlier run wrote with another
    direction or bounds for its metrics (an eval.yaml since corrected) is replaced, not
    doubled."""
    before = tmp_path / "before"
    shutil.copytree(EXAMPLES / "benchmarks", before)
    eval_yaml = before / "MathArena" / "aime_2026" / "eval.yaml"
    text = eval_yaml.read_text()
    eval_yaml.write_text(text.replace("higher_is_better: false", "higher_is_better: true"))
    out = tmp_path / "converted"
    assert convert_examples(out, before) == 0
    (first,) = (out / AIME_FOLDER).glob("*.json")
    assert configs(json.loads(first.read_bytes()))["cost_usd"]["lower_is_better"] is False
    capsys.readouterr()
    assert convert_examples(out, EXAMPLES / "benchmarks") == 0
    err = capsys.readouterr().err
    assert f"replaced {first} (the same evaluation, written again)" in err
    assert "0 new, 1 replaced, 3 unchanged" in err
    (again,) = (out / AIME_FOLDER).glob("*.json")
    assert again == first
    assert configs(json.loads(again.read_bytes()))["cost_usd"]["lower_is_better"] is True
    validates(out, capsys)


def test_two_records_of_one_evaluation_in_a_folder_are_duplicates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """EEE's rule: records equal but for their ids and timestamps are one evaluation."""
    out = tmp_path / "converted"
    assert convert_examples(out, EXAMPLES / "benchmarks") == 0
    (record,) = (out / AIME_FOLDER).glob("*.json")
    copy = json.loads(record.read_bytes())
    copy["evaluation_id"] = "org/model/1/9"
    copy["retrieved_timestamp"] = "1"
    twin = record.with_name("11111111-1111-4111-8111-111111111111.json")
    twin.write_text(json.dumps(copy, indent=2) + "\n")
    capsys.readouterr()
    assert main(["validate", str(out)]) == 1
    assert "EEE-DUPLICATE" in capsys.readouterr().out
