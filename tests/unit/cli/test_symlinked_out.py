"""Commands that write into a folder never follow a symlink out of it (`bot.cli.folder_writes`):
`convert --out`, `convert --to eee --out` and `validate --fix`, on a checkout whose results
folder, data folder or results file is a link to a file or folder elsewhere."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import REPO_ROOT

BENCHMARKS = str(REPO_ROOT / "examples" / "benchmarks")
#: a real EvalScope report of `gpqa_diamond` (tests/samples/convert/README.md)
EVALSCOPE_GPQA = REPO_ROOT / "tests/samples/convert/evalscope/qwen3-max/gpqa_diamond.json"
BROKEN = REPO_ROOT / "examples" / "model-broken"
#: what the file elsewhere holds: a file of the user's the command must never change
ELSEWHERE = b"# my shell settings\nexport PATH=$HOME/bin:$PATH\n"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder outside the one the command is given, with a file in it."""
    folder = tmp_path / "home"
    folder.mkdir()
    (folder / "gpqa.yaml").write_bytes(ELSEWHERE)
    return folder


def test_convert_out_does_not_write_through_a_linked_results_folder(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / ".eval_results").symlink_to(elsewhere, target_is_directory=True)
    status = main(["convert", str(EVALSCOPE_GPQA), "--benchmarks", BENCHMARKS, "--out", str(model)])
    err = capsys.readouterr().err
    assert status == 2
    assert f"a symlink leads out of {model}" in err
    assert "nothing written" in err
    assert snapshot(elsewhere) == {"gpqa.yaml": ELSEWHERE}


def test_convert_out_does_not_write_through_a_linked_results_file(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "model" / ".eval_results"
    results.mkdir(parents=True)
    (results / "gpqa.yaml").symlink_to(elsewhere / "gpqa.yaml")
    status = main(
        [
            "convert",
            str(EVALSCOPE_GPQA),
            "--benchmarks",
            BENCHMARKS,
            "--out",
            str(tmp_path / "model"),
        ]
    )
    assert status == 2
    assert "a symlink leads out of" in capsys.readouterr().err
    assert snapshot(elsewhere) == {"gpqa.yaml": ELSEWHERE}


def test_a_link_that_stays_inside_the_folder_is_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model"
    (model / "results").mkdir(parents=True)
    (model / ".eval_results").symlink_to(model / "results", target_is_directory=True)
    status = main(["convert", str(EVALSCOPE_GPQA), "--benchmarks", BENCHMARKS, "--out", str(model)])
    assert status == 0, capsys.readouterr().err
    assert (model / "results" / "gpqa.yaml").is_file()


def test_convert_to_eee_out_does_not_write_through_a_linked_data_folder(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "datastore"
    out.mkdir()
    (out / "data").symlink_to(elsewhere, target_is_directory=True)
    repo = REPO_ROOT / "examples" / "model-good"
    args = ["convert", "--to", "eee", str(repo), "--model-repo", "org/model", "--out", str(out)]
    status = main([*args, "--benchmarks", BENCHMARKS])
    assert status == 2
    assert f"a symlink leads out of {out}" in capsys.readouterr().err
    assert snapshot(elsewhere) == {"gpqa.yaml": ELSEWHERE}


def test_validate_fix_does_not_write_through_a_linked_results_file(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model"
    shutil.copytree(BROKEN, model)
    gpqa = model / ".eval_results" / "gpqa.yaml"
    # the file elsewhere is a results file with a fix to make, reached through the link
    (elsewhere / "gpqa.yaml").write_bytes(gpqa.read_bytes())
    before = snapshot(elsewhere)
    gpqa.unlink()
    gpqa.symlink_to(elsewhere / "gpqa.yaml")
    status = main(["validate", str(model), "--benchmarks", BENCHMARKS, "--fix"])
    assert status == 2
    assert f"a symlink leads out of {model}" in capsys.readouterr().err
    assert snapshot(elsewhere) == before


def test_validate_fix_writes_nothing_when_one_of_its_files_leads_out(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every path to write is checked before the first is written: no half-fixed repo."""
    model = tmp_path / "model"
    shutil.copytree(BROKEN, model)
    before = snapshot(model)
    aime = model / ".eval_results" / "aime_2026.yaml"
    (elsewhere / "aime_2026.yaml").write_bytes(aime.read_bytes())
    aime.unlink()
    aime.symlink_to(elsewhere / "aime_2026.yaml")
    del before[".eval_results/aime_2026.yaml"]
    status = main(["validate", str(model), "--benchmarks", BENCHMARKS, "--fix"])
    assert status == 2
    assert "a symlink leads out of" in capsys.readouterr().err
    assert snapshot(model) == before  # the other files are not fixed either
