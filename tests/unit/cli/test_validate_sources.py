"""`evalbot validate --datastore DIR`: results that link Every Eval Ever records checked against a
local datastore checkout; without it, against the Hub, where a failed read is "not checked"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.conftest import REAL_WORLD

SAMPLES = REAL_WORLD / "every_eval_ever" / "community_evals"
CONVERTER_OUTPUT = (SAMPLES / "converter_output.yaml").read_bytes()
MMLU_PRO = REAL_WORLD / "hf-benchmark-eval-yaml" / "TIGER-Lab__MMLU-Pro.eval.yaml"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A model repo whose one results file is what EEE's converter wrote, and the benchmark."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".eval_results").mkdir()
    (tmp_path / ".eval_results" / "mmlu_pro.yaml").write_bytes(CONVERTER_OUTPUT)
    (tmp_path / "bm" / "TIGER-Lab" / "MMLU-Pro").mkdir(parents=True)
    (tmp_path / "bm" / "TIGER-Lab" / "MMLU-Pro" / "eval.yaml").write_bytes(MMLU_PRO.read_bytes())
    shutil.copytree(SAMPLES / "datastore", tmp_path / "checkout")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["validate", ".", "--benchmarks", "bm", "--format", "json", *args])
    return status, json.loads(capsys.readouterr().out)


def entry_of(report: dict[str, Any]) -> dict[str, Any]:
    (entry,) = report["files"][0]["entries"]
    assert isinstance(entry, dict)
    return entry


def test_a_checked_source_in_the_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run(capsys, "--datastore", "checkout", "--model-repo", "01-ai/Yi-1.5-34B-Chat")
    assert status == 0
    entry = entry_of(report)
    assert entry["badges"] == ["community", "leaderboard", "source"]
    assert entry["source"] == {
        "status": "checked",
        "url": "https://huggingface.co/datasets/evaleval/EEE_datastore/blob/main/flat/objects/67/6f/676f4465-ce78-411a-9f5a-c97b3d2eac4f.json",
        "datastore": "evaleval/EEE_datastore",
        "revision": "main",
        "path": "flat/objects/67/6f/676f4465-ce78-411a-9f5a-c97b3d2eac4f.json",
        "record_id": "mmlu-pro/01-ai_yi-1.5-34b-chat/tiger-lab/1777613486.918081",
        "reason": None,
    }  # fmt: skip


def test_a_tampered_value_fails_naming_the_field(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = repo / ".eval_results" / "mmlu_pro.yaml"
    results.write_bytes(CONVERTER_OUTPUT.replace(b"52.29", b"96.8"))
    status, report = run(capsys, "--datastore", "checkout")
    assert status == 1
    entry = entry_of(report)
    assert entry["source"]["status"] == "mismatch"
    (finding,) = entry["diagnostics"]
    assert finding["code"] == "ENTRY-SOURCE-MISMATCH"
    assert finding["hub_path"] == "[0].value"
    assert "52.29" in finding["message"]


def test_the_text_report_says_what_was_checked(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["validate", ".", "--benchmarks", "bm", "--datastore", "checkout"])
    assert status == 0
    assert (
        "source checked against record mmlu-pro/01-ai_yi-1.5-34b-chat/tiger-lab/1777613486.918081"
        " at main" in capsys.readouterr().out
    )


def test_an_unreachable_hub_leaves_the_source_not_checked(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Online (no --datastore), a Hub that refuses connections: not checked, not a finding."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", "http://127.0.0.1:9")
    results = repo / ".eval_results" / "mmlu_pro.yaml"
    results.write_bytes(CONVERTER_OUTPUT.replace(b"https://huggingface.co", b"http://127.0.0.1:9"))
    monkeypatch.setenv("EVALBOT_HUB_TIMEOUT", "2")
    status, report = run(capsys)
    assert status == 0
    entry = entry_of(report)
    assert entry["diagnostics"] == []
    source = entry["source"]
    assert source["status"] == "unreadable"
    assert source["reason"]


def test_a_folder_that_is_no_checkout_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", ".", "--benchmarks", "bm", "--datastore", "bm"]) == 2
    assert "not a datastore checkout" in capsys.readouterr().err


def test_no_trusted_datastore_leaves_every_link_plain(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "config").mkdir()
    (repo / "config" / "bot.yaml").write_text("source_datastores: []\n")
    status, report = run(capsys, "--datastore", "checkout")
    assert status == 0
    assert entry_of(report)["source"]["status"] == "linked"
