"""`evalbot validate` on an Every Eval Ever datastore folder, and `--against` its main."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import REPO_ROOT
from tests.unit.eee.helpers import DATASTORE

PASS = DATASTORE / "pass"
RECORD = "data/demo-source/demo-org/demo-model/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"


def test_a_datastore_folder_is_checked_as_a_submission(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(PASS), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True
    assert len(out["files"]) == 5
    assert all(f["kind"] == "eee" for f in out["files"])


def test_invalid_folder_fails_with_github_annotations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(DATASTORE / "invalid"), "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any(
        line.startswith("::error file=") and "title=EEE-PATH" in line and "my_model" in line
        for line in lines
    )


def test_against_main_finds_a_duplicate_of_a_record_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A converter's output folder checked against a checkout of the datastore's main: the
    same evaluation under a fresh uuid and timestamp is a duplicate of main's record."""
    record = json.loads((PASS / RECORD).read_bytes())
    del record["detailed_evaluation_results"]
    main_dir, new_dir = tmp_path / "main", tmp_path / "new"
    (main_dir / RECORD).parent.mkdir(parents=True)
    (main_dir / RECORD).write_text(json.dumps(record))
    record["evaluation_id"], record["retrieved_timestamp"] = "again", "1900000000"
    fresh = RECORD.replace("f3a1c0de-4b2e-4c1a", "0a1b2c3d-4e5f-4a1b")
    (new_dir / fresh).parent.mkdir(parents=True)
    (new_dir / fresh).write_text(json.dumps(record))
    assert main(["validate", str(new_dir), "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["validate", str(new_dir), "--against", str(main_dir), "--format", "json"]) == 1
    (found,) = json.loads(capsys.readouterr().out)["files"]
    (diagnostic,) = found["diagnostics"]
    assert diagnostic["code"] == "EEE-DUPLICATE"
    assert f"`{RECORD}` on main" in diagnostic["message"]


def test_against_a_folder_that_is_no_datastore_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(PASS, tmp_path / "copy")
    assert main(["validate", str(tmp_path / "copy"), "--against", str(tmp_path / "nope")]) == 2
    assert "not a datastore folder" in capsys.readouterr().err


def test_changed_files_against_main(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Single files of a datastore checkout with `--against`: each is checked as a PR changing
    it; its samples file is found beside it, a duplicate of main's record is named."""
    checkout = tmp_path / "checkout"
    shutil.copytree(PASS, checkout)
    main_dir = tmp_path / "main"
    record = json.loads((PASS / RECORD).read_bytes())
    (main_dir / "data/x/y/z").mkdir(parents=True)
    record["evaluation_id"] = "elsewhere"
    (main_dir / "data/x/y/z/0a1b2c3d-4e5f-4a1b-8c2d-3e4f5a6b7c8d.json").write_text(
        json.dumps(record)
    )
    changed = str(checkout / RECORD)
    assert main(["validate", changed, "--against", str(main_dir), "--format", "json"]) == 1
    found, samples = json.loads(capsys.readouterr().out)["files"]
    assert found["path"] == changed
    assert [d["code"] for d in found["diagnostics"]] == ["EEE-DUPLICATE"]
    assert samples["path"].endswith("_samples.jsonl")  # read, as the record's pair
    assert samples["diagnostics"] == []
    assert main(["validate", changed, "--format", "json"]) == 0  # without: the schema alone


def test_the_summary_counts_eee_records(capsys: pytest.CaptureFixture[str]) -> None:
    """EEE files hold records, not entries: "5 files, 3 EEE records", never "0 entries"."""
    assert main(["validate", str(PASS)]) == 0
    summary = capsys.readouterr().out.splitlines()[-1]
    assert summary == "5 files, 3 EEE records: 0 errors, 0 warnings"
    assert (
        main(
            [
                "validate",
                str(PASS / RECORD),
                str(REPO_ROOT / "examples" / "model-good"),
                "--benchmarks",
                str(REPO_ROOT / "examples" / "benchmarks"),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines()[-1] == (
        "5 files, 5 entries, 1 EEE record: 0 errors, 0 warnings"
    )


def test_a_folder_without_data_says_what_a_datastore_folder_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not the model-repo message alone: records laid flat (as `convert --to eee` wrote them
    before) are told where a datastore keeps them."""
    flat = tmp_path / "converted"
    flat.mkdir()
    shutil.copy(PASS / RECORD, flat / "0a1b2c3d-4e5f-5a1b-8c2d-3e4f5a6b7c8d.json")
    assert main(["validate", str(flat)]) == 2
    err = capsys.readouterr().err
    assert "an Every Eval Ever datastore folder holds data/<collection>/<developer>/<model>/" in err
    assert "its 1 .json/.jsonl file get a datastore's checks only under data/" in err
    (tmp_path / "empty").mkdir()
    assert main(["validate", str(tmp_path / "empty")]) == 2
    assert "datastore folder holds data/" in capsys.readouterr().err


def test_a_folder_warning_fails_the_run_as_it_blocks_the_merge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json.loads((PASS / RECORD).read_bytes())
    del record["detailed_evaluation_results"]
    record["model_info"]["id"] = "ibm/granite-40-small"
    where = tmp_path / "store" / RECORD.replace("demo-org/demo-model", "IBM/Granite-4.0-Small")
    where.parent.mkdir(parents=True)
    where.write_text(json.dumps(record))
    assert main(["validate", str(tmp_path / "store"), "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False
    (diagnostic,) = out["files"][0]["diagnostics"]
    assert (diagnostic["code"], diagnostic["severity"]) == ("EEE-FOLDER", "warning")
    assert main(["validate", str(tmp_path / "store")]) == 1
    text = capsys.readouterr().out
    assert "1 warning above (EEE-FOLDER) blocks a datastore merge" in text


def test_the_markdown_report_of_a_datastore_speaks_of_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--markdown` (a CI job's summary) on EEE files: the datastore's verdict and its files by
    folder, not "no results" and "no entries could be read" for every record."""
    summary = tmp_path / "summary.md"
    assert main(["validate", str(PASS), "--markdown", str(summary)]) == 0
    text = summary.read_text()
    assert text.startswith("### Every Eval Ever submission check\n\n**✅ Ready to merge:** 5 files")
    assert "No entries could be read" not in text
    assert "No results to check" not in text
    assert "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl" in text
