"""`evalbot gate` on a local folder, and `evalbot collections`, offline (--benchmarks)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot import packaged_defaults
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
    shutil.copy(
        REPO_ROOT / "bot" / "data" / "collections" / "leaderboard-v2.yaml", mine / "my-gate.yaml"
    )
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


GPQA = "- dataset: {{id: Idavidrein/gpqa, task_id: diamond}}\n  value: {value}\n  notes: {notes}\n"


def _user(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "gates"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.yaml").write_text(text)
    return folder


def test_a_folder_with_more_files_than_a_pr_may_carry_is_gated_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The files-per-PR cap (100) used to make 20 of these benchmarks "missing", unsaid."""
    count = 120
    members = "".join(
        f"  - {{id: Idavidrein/gpqa, task_id: diamond, notes: run{i}, scale: percent}}\n"
        for i in range(count)
    )
    gates = _user(
        tmp_path,
        "many",
        f"name: many\ncategory: x\npass_criteria: {{threshold: 50}}\nbenchmarks:\n{members}",
    )
    results = tmp_path / "model" / ".eval_results"
    results.mkdir(parents=True)
    for i in range(count):
        (results / f"gpqa_{i:03}.yaml").write_text(GPQA.format(value=60, notes=f"run{i}"))
    args = ["gate", "--collection", "many", "--collections", str(gates), str(results.parent)]
    assert main([*args, "--benchmarks", BENCHMARKS]) == 0
    assert "PASS  60.00 / 100 (pass at 50)" in capsys.readouterr().out


def test_a_yaml_error_in_the_collection_is_shown_with_line_and_column(
    model: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    gates = _user(tmp_path, "broken", "name: broken\ncategory: x\npass_criteria: {threshold: 5\n")
    args = ["gate", "--collection", "broken", "--collections", str(gates), str(model)]
    assert main([*args, "--benchmarks", BENCHMARKS]) == 2
    err = capsys.readouterr().err
    assert "collection `broken`" in err
    assert f"{gates / 'broken.yaml'}:4:1: YAML-" in err
    assert "error not valid YAML" in err


def test_require_all_names_the_benchmark_and_annotates_it_as_an_error(
    model: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """It used to print `FAIL 78.00 / 100 (pass at 38)` with no reason, and a warning."""
    text = (packaged_defaults.collections_dir() / "leaderboard-v2.yaml").read_text()
    text = text.replace("threshold: 38.0", "threshold: 38.0\n  require_all: true")
    text = text.replace("threshold: 60.0", "threshold: 80.0")
    gates = _user(tmp_path, "strict", text)
    args = ["gate", "--collection", "strict", "--collections", str(gates), str(model)]
    args += ["--benchmarks", BENCHMARKS]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert (
        "FAIL  78.00 / 100 (pass at 38): TIGER-Lab/MMLU-Pro / mmlu_pro scores 77.2, short of "
        "its threshold ≥ 80 by 2.80"
    ) in out
    assert main([*args, "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    blocker = next(line for line in lines if "title=TIGER-Lab/MMLU-Pro" in line)
    assert blocker.startswith("::error file=")
    assert "require_all is set" in blocker


def test_the_json_result_names_the_collection_hash_and_carries_the_tags(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import hashlib

    args = ["gate", "--collection", "leaderboard-v2", str(model), "--benchmarks", BENCHMARKS]
    tags = ["--tag", "run=nightly", "--tag", "commit=abc=1"]
    assert main([*args, *tags, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    content = (packaged_defaults.collections_dir() / "leaderboard-v2.yaml").read_bytes()
    assert report["collection_hash"] == "sha256:" + hashlib.sha256(content).hexdigest()
    assert report["tags"] == {"run": "nightly", "commit": "abc=1"}
    assert report["reasons"] == []
    show = ["collections", "show", "leaderboard-v2", "--benchmarks", BENCHMARKS, "--format", "json"]
    assert main(show) == 0
    assert json.loads(capsys.readouterr().out)["content_hash"] == report["collection_hash"]
    assert main([*args, "--tag", "novalue"]) == 2
    assert "--tag novalue: write KEY=VALUE" in capsys.readouterr().err
    assert main([*args, "--tag", "a=1", "--tag", "a=2"]) == 2
    assert "given twice" in capsys.readouterr().err


def test_a_fraction_threshold_on_a_percent_scale_is_a_warning_the_gate_and_validate_print(
    model: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (packaged_defaults.collections_dir() / "leaderboard-v2.yaml").read_text()
    gates = _user(tmp_path, "frac", text.replace("threshold: 38.0", "threshold: 0.758"))
    args = ["gate", "--collection", "frac", "--collections", str(gates), str(model)]
    assert main([*args, "--benchmarks", BENCHMARKS]) == 0
    err = capsys.readouterr().err
    assert "COLL-THRESHOLD-FRACTION warning pass_criteria.threshold: threshold 0.758" in err
    assert "write 75.8" in err
    assert (
        main(["collections", "validate", str(gates / "frac.yaml"), "--benchmarks", BENCHMARKS]) == 0
    )
    assert "COLL-THRESHOLD-FRACTION" in capsys.readouterr().out


def test_collections_import_writes_a_collection_the_gate_runs(
    model: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = REPO_ROOT / "tests/samples/real-world/eval-hub/collection.leaderboard-v2.yaml"
    gates = tmp_path / "gates"
    gates.mkdir()
    out = gates / "lb.yaml"
    args = ["collections", "import", str(source), "-o", str(out)]
    maps = ["--map", "leaderboard_gpqa=Idavidrein/gpqa:diamond"]
    maps += ["--map", "leaderboard_mmlu_pro=TIGER-Lab/MMLU-Pro:mmlu_pro"]
    assert main([*args, *maps]) == 1
    err = capsys.readouterr().err
    assert f"{source}:10:" in err
    assert "IMPORT-UNMAPPED" in err
    assert not out.exists()
    assert main([*args, *maps, "--drop-unmapped"]) == 0
    err = capsys.readouterr().err
    assert "Scale: percent (inferred from the thresholds" in err
    assert "evalbot collections validate" in err
    assert main(["collections", "validate", str(out), "--benchmarks", BENCHMARKS]) == 0
    capsys.readouterr()
    gate = ["gate", "--collection", "lb", "--collections", str(gates), str(model)]
    assert main([*gate, "--benchmarks", BENCHMARKS]) == 0
    assert "PASS  78.00 / 100 (pass at 38)" in capsys.readouterr().out
    assert main([*args, *maps, "--drop-unmapped"]) == 2  # never overwrites
    assert main([*args, "--map", "leaderboard_gpqa=gpqa"]) == 2
    assert "write ID=OWNER/NAME:TASK" in capsys.readouterr().err


EVALHUB_LEADERBOARD = REPO_ROOT / "tests/samples/real-world/eval-hub/collection.leaderboard-v2.yaml"


def test_import_proposes_the_maps_the_table_knows_and_map_known_applies_them(
    model: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's line on EvalHub's real file, from a folder with no `gates/` yet."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EVALHUB_LEADERBOARD, "evalhub.yaml")
    readme = ["collections", "import", "evalhub.yaml"]
    readme += ["--map", "leaderboard_gpqa=Idavidrein/gpqa:diamond", "-o", "gates/lb.yaml"]
    assert main(readme) == 1
    err = capsys.readouterr().err
    assert err.count("IMPORT-UNMAPPED") == 5
    assert "  --map leaderboard_bbh=SaylorTwift/bbh:bbh \\\n" in err
    assert "  --map leaderboard_math_hard=DigitalLearningGmbH/MATH-lighteval:math_hard\n" in err
    assert "add `--map leaderboard_musr=TAUR-Lab/MuSR:musr`, or `--map-known`" in err
    assert main([*readme, "--map-known"]) == 0
    written = Path("gates/lb.yaml").read_text()
    assert "leaderboard_bbh -> SaylorTwift/bbh task bbh (EvalHub metric acc_norm), from the " in (
        written
    )
    assert "evalbot's mappings.yaml:" in written
    assert "/site-packages/" not in written
    assert str(REPO_ROOT) not in written
    capsys.readouterr()
    assert main(["collections", "validate", "gates/lb.yaml", "--benchmarks", BENCHMARKS]) == 0
    assert "lb (user, gates/lb.yaml): ok" in capsys.readouterr().out


def test_map_known_leaves_a_group_for_a_person_to_choose(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["collections", "import", str(EVALHUB_LEADERBOARD), "--map-known"]
    assert main([*args, "-o", str(tmp_path / "lb.yaml")]) == 1
    err = capsys.readouterr().err
    assert err.count("IMPORT-UNMAPPED") == 1
    assert "leaderboard_gpqa: `leaderboard_gpqa` is not in the table" in err
    assert "  --map leaderboard_gpqa=Idavidrein/gpqa:diamond\n" in err
    explicit = ["--map", "leaderboard_bbh=SaylorTwift/bbh:boolean_expressions"]
    assert main([*args, *explicit, "--drop-unmapped", "-o", str(tmp_path / "lb.yaml")]) == 0
    written = (tmp_path / "lb.yaml").read_text()
    assert "task_id: boolean_expressions" in written  # a --map given wins over the table
    assert "Not mapped to a Hub benchmark, dropped: leaderboard_gpqa." in written


def test_gate_takes_a_collection_files_path(
    model: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (packaged_defaults.collections_dir() / "leaderboard-v2.yaml").read_text()
    gates = _user(tmp_path, "my-gate", text)
    path = str(gates / "my-gate.yaml")
    assert main(["gate", "--collection", path, str(model), "--benchmarks", BENCHMARKS]) == 0
    captured = capsys.readouterr()
    assert "PASS  78.00 / 100 (pass at 38)" in captured.out
    assert f"collection `my-gate`: {path}" in captured.err
    missing = str(tmp_path / "nowhere.yaml")
    assert main(["gate", "--collection", missing, str(model), "--benchmarks", BENCHMARKS]) == 2
    assert f"--collection {missing}: no such file" in capsys.readouterr().err
    assert main(["gate", "--collection", "my-gate", str(model), "--benchmarks", BENCHMARKS]) == 2
    err = capsys.readouterr().err
    assert "no collection `my-gate`" in err
    assert "`--collections DIR` names its folder, or give the file's path" in err


def test_the_readmes_import_block_holds_evalhubs_real_file_and_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import re
    import shlex

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    heredoc = r"cat > evalhub\.yaml <<'EOF'\n(.*?)^EOF\n(evalbot [^\n]*)\n"
    block = re.search(heredoc, readme, re.S | re.M)
    assert block is not None
    assert block.group(1) == EVALHUB_LEADERBOARD.read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    Path("evalhub.yaml").write_text(block.group(1), encoding="utf-8")
    command = shlex.split(block.group(2))
    assert main(command[1:]) == 0, capsys.readouterr().err
    assert Path("gates/lb.yaml").is_file()
