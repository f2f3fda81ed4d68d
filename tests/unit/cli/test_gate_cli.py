"""`evalbot gate` on a local folder, and `evalbot collections`, offline (--benchmarks)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import REPO_ROOT

GEMMA = REPO_ROOT / "tests" / "samples" / "real-world" / "hf-model-repos"
BENCHMARKS = str(REPO_ROOT / "examples" / "benchmarks")


@pytest.fixture
def model(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    (folder / ".eval_results").mkdir(parents=True)
    for name in ("gpqa", "mmlu_pro"):
        shutil.copy(
            GEMMA / f"gemma-4-12B-it__{name}.yaml", folder / ".eval_results" / f"{name}.yaml"
        )
    return folder


def test_a_folder_that_clears_the_collection_exits_0(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["gate", "--collection", "leaderboard-v2", str(model), "--benchmarks", BENCHMARKS]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert "PASS  78.00 / 100 (pass at 38)" in out
    assert "✓ TIGER-Lab/MMLU-Pro / mmlu_pro: 77.2 ≥ 60 passed, weight 1" in out


def test_a_missing_result_fails_and_annotates_the_gap(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (model / ".eval_results" / "mmlu_pro.yaml").unlink()
    args = ["gate", "--collection", "leaderboard-v2", str(model), "--benchmarks", BENCHMARKS]
    assert main([*args, "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("::error title=collection leaderboard-v2::")
    assert lines[1] == (
        "::error title=TIGER-Lab/MMLU-Pro::TIGER-Lab/MMLU-Pro / mmlu_pro has no result "
        "(add one, or set `pass_criteria.allow_missing: true`)"
    )
    assert main([*args, "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "incomplete"
    assert report["missing"] == [
        {"id": "TIGER-Lab/MMLU-Pro", "task_id": "mmlu_pro", "metric": "value", "notes": None}
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--include-open-prs"], "--include-open-prs needs a Hub repo id"),
        (["--collection", "nope"], "no collection `nope`"),
    ],
)
def test_usage_errors_exit_2(
    model: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    args = ["gate", "--collection", "leaderboard-v2", str(model), "--benchmarks", BENCHMARKS]
    assert main([*args, *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_target_that_is_neither_folder_nor_repo_id_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["gate", "--collection", "leaderboard-v2", str(tmp_path / "a" / "b" / "c")]
    assert main([*args, "--benchmarks", BENCHMARKS]) == 2
    assert "neither a folder nor a Hub repo id" in capsys.readouterr().err


def test_a_user_collection_may_not_take_a_system_id(
    model: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "leaderboard-v2.yaml").write_text("name: mine\n")
    assert main(["collections", "list", "--collections", str(mine)]) == 2
    assert "system collections are read-only" in capsys.readouterr().err


def test_collections_list_shows_both_scopes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(REPO_ROOT / "config" / "collections" / "leaderboard-v2.yaml", mine / "my-gate.yaml")
    assert main(["collections", "list", "--collections", str(mine), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(row["id"], row["scope"]) for row in rows] == [
        ("frontier-reasoning-v1", "system"),
        ("leaderboard-v2", "system"),
        ("my-gate", "user"),
    ]
    assert (
        main(
            [
                "collections",
                "show",
                "my-gate",
                "--collections",
                str(mine),
                "--benchmarks",
                BENCHMARKS,
            ]
        )
        == 0
    )
    assert (
        "Idavidrein/gpqa / diamond / value ≥ 40, weight 1, range [0, 100]"
        in capsys.readouterr().out
    )
