"""`evalbot validate --fix` and `--diff` through `bot.cli.main`, on copies of real files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from evalbot_dev.devstack.waiting import free_port
from tests.conftest import REPO_ROOT

BENCHMARKS = str(REPO_ROOT / "examples" / "benchmarks")
BROKEN = REPO_ROOT / "examples" / "model-broken"
GOOD = REPO_ROOT / "examples" / "model-good"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_fix_leaves_only_the_findings_that_need_a_person(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model"
    shutil.copytree(BROKEN, model)
    status = main(["validate", str(model), "--benchmarks", BENCHMARKS, "--fix", "--format", "json"])
    captured = capsys.readouterr()
    assert status == 1  # what is left are errors a person fixes
    report = json.loads(captured.out)
    left = [
        (Path(file["path"]).name, diagnostic["code"], diagnostic["fix"])
        for file in report["files"]
        for item in (file, *file["entries"])
        for diagnostic in item["diagnostics"]
    ]
    assert all(fix is None for _, _, fix in left), left
    assert sorted((name, code) for name, code, _ in left) == [
        ("aime_2026.yaml", "ENTRY-DUPLICATE"),
        ("aime_2026.yaml", "ENTRY-FIELD-UNKNOWN"),
        ("aime_2026.yaml", "ENTRY-FRAMEWORK-MISMATCH"),
        ("aime_2026.yaml", "ENTRY-REVISION"),
        ("aime_2026.yaml", "ENTRY-VALUE-RANGE"),
        ("aime_2026.yaml", "ENTRY-VALUE-TYPE"),
        ("gpqa.yaml", "ENTRY-SOURCE-URL-MISSING"),
        ("gpqa.yaml", "ENTRY-VALUE-SCALE"),
        ("hle.yaml", "YAML-DUPLICATE-KEY"),
        ("mmlu-pro.yaml", "ENTRY-BENCHMARK-UNKNOWN"),
    ]
    # what was changed is said, with where it was
    gpqa = model / ".eval_results" / "gpqa.yaml"
    assert (
        f"{gpqa}:4:5: ENTRY-TASK-UNKNOWN dataset.task_id fixed: gpqa_diamond -> diamond"
        in captured.err
    )
    assert f'{gpqa}:13:3: ENTRY-YAML11-AMBIGUOUS notes fixed: on -> "on"' in captured.err
    assert "Fixed 5 findings. Any finding still reported needs a person." in captured.err
    # comments kept, and the files nothing could fix untouched byte for byte
    text = gpqa.read_text()
    assert "    task_id: diamond             # GPQA's tasks are diamond, main" in text
    assert text.startswith("# Broken on purpose: `evalbot validate examples/model-broken")
    for name in ("hle.yaml", "mmlu-pro.yaml"):
        assert (model / ".eval_results" / name).read_bytes() == (
            BROKEN / ".eval_results" / name
        ).read_bytes()


def test_diff_shows_the_changes_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model"
    shutil.copytree(BROKEN, model)
    before = snapshot(model)
    status = main(["validate", str(model), "--benchmarks", BENCHMARKS, "--diff"])
    captured = capsys.readouterr()
    assert status == 1
    assert snapshot(model) == before
    assert f"--- a/{model}/.eval_results/gpqa.yaml\n" in captured.out
    assert "-    task_id: gpqa_diamond        # GPQA's tasks" in captured.out
    assert "+    task_id: diamond             # GPQA's tasks" in captured.out
    assert "would fix: gpqa_diamond -> diamond" in captured.err


def test_nothing_to_fix_changes_no_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "model"
    shutil.copytree(GOOD, model)
    before = snapshot(model)
    assert main(["validate", str(model), "--benchmarks", BENCHMARKS, "--fix"]) == 0
    assert snapshot(model) == before
    assert "Nothing to fix. Any finding still reported needs a person." in capsys.readouterr().err
    assert main(["validate", str(model), "--benchmarks", BENCHMARKS, "--diff"]) == 0
    assert capsys.readouterr().out == ""


GPQA = (
    b"- dataset:\n    id: idavidrein/GPQA   # spelt as I like\n    task_id: diamond\n"
    b"  value: 78.8\n"
)


def test_a_rename_follows_the_benchmark_ids_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The id's case is fixed first; the name the file should have follows from it."""
    results = tmp_path / "model" / ".eval_results"
    results.mkdir(parents=True)
    (results / "GPQA.yml").write_bytes(GPQA)
    named = str(results / "GPQA.yml")
    status = main(["validate", named, "--benchmarks", BENCHMARKS, "--fix"])
    captured = capsys.readouterr()
    assert status == 0, captured.out + captured.err
    assert sorted(path.name for path in results.iterdir()) == ["gpqa.yaml"]
    assert (results / "gpqa.yaml").read_bytes() == GPQA.replace(
        b"idavidrein/GPQA   #", b"Idavidrein/gpqa   #"
    )
    assert f"{named}: renamed to {results / 'gpqa.yaml'}" in captured.err
    # the report is of the file as renamed, and clean
    assert f"{results / 'gpqa.yaml'}: ok" in captured.out


def test_a_rename_onto_an_existing_file_is_not_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "model" / ".eval_results"
    results.mkdir(parents=True)
    (results / "gpqa.yml").write_bytes(GPQA)
    other = b"- dataset: {id: Idavidrein/gpqa, task_id: main}\n  value: 1.5\n"
    (results / "gpqa.yaml").write_bytes(other)
    main(["validate", str(tmp_path / "model"), "--benchmarks", BENCHMARKS, "--fix"])
    captured = capsys.readouterr()
    assert sorted(path.name for path in results.iterdir()) == ["gpqa.yaml", "gpqa.yml"]
    assert (results / "gpqa.yaml").read_bytes() == other
    assert "FILE-PATH not fixed: `.eval_results/gpqa.yaml` exists already" in captured.err


def test_a_hub_that_does_not_answer_stops_the_fix_and_writes_nothing(tmp_path: Path) -> None:
    """No --benchmarks: benchmarks come from HF_ENDPOINT, where nothing listens."""
    model = tmp_path / "model"
    shutil.copytree(BROKEN, model)
    before = snapshot(model)
    env = {
        **os.environ,
        "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}",
        "HF_HUB_OFFLINE": "0",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
    }
    completed = subprocess.run(
        [sys.executable, "-m", "bot", "validate", str(model), "--fix"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    assert "could not read benchmarks from the Hub" in completed.stderr
    assert "Traceback" not in completed.stderr
    assert snapshot(model) == before
