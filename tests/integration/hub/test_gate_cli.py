"""`evalbot gate` end to end: a model repo on the emulator whose open PR flips a threshold.

Everything goes over HTTP through the real `huggingface_hub` client: the collection's benchmarks
(examples/benchmarks seeded as Hub datasets), the repo's results on main, its open PRs and the
files they change.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from evalbot_dev.emulator.seed import load_benchmarks
from evalbot_dev.emulator.server import EmulatorServer
from tests.conftest import REPO_ROOT
from tests.support.emulator import client, running_emulator, standard_state, use_emulator_endpoint

pytestmark = pytest.mark.integration

GEMMA = REPO_ROOT / "tests" / "samples" / "real-world" / "hf-model-repos"
REPO = "alice/gemma-like"
MMLU = """\
- dataset:
    id: TIGER-Lab/MMLU-Pro
    task_id: mmlu_pro
  value: {value}
  source:
    url: https://huggingface.co/alice/gemma-like
"""
#: A user collection that makes the flip decide the collection too: (78.8 + 55) / 2 = 66.9 on
#: main, (78.8 + 62) / 2 = 70.4 with the PR, against a bar of 68.
STRICT = """\
name: Strict leaderboard gate
category: deployment-gate
version: "1"
pass_criteria:
  threshold: 68
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    threshold: 40
    scale: percent
  - id: TIGER-Lab/MMLU-Pro
    task_id: mmlu_pro
    threshold: 60
    scale: percent
"""


@pytest.fixture
def gate_hub(hub_env: Path) -> Iterator[tuple[EmulatorServer, int]]:
    state = standard_state()
    load_benchmarks(state, REPO_ROOT / "examples" / "benchmarks")
    state.seed_repo(
        "model",
        REPO,
        {
            "README.md": b"# a model\n",
            ".eval_results/gpqa.yaml": (GEMMA / "gemma-4-12B-it__gpqa.yaml").read_bytes(),
            ".eval_results/mmlu_pro.yaml": MMLU.format(value=55.0).encode(),
        },
        author="alice",
    )
    with running_emulator(state) as hub:
        from huggingface_hub import CommitOperationAdd

        info = client(hub, "bob").create_commit(
            REPO,
            [CommitOperationAdd(".eval_results/mmlu_pro.yaml", MMLU.format(value=62.0).encode())],
            commit_message="MMLU-Pro re-run",
            create_pr=True,
        )
        assert info.pr_num is not None
        yield hub, int(info.pr_num)


def gate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["gate", *args, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def test_an_open_pr_flips_a_benchmark_threshold(
    gate_hub: tuple[EmulatorServer, int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    hub, pr = gate_hub
    use_emulator_endpoint(monkeypatch, hub)
    monkeypatch.chdir(REPO_ROOT)

    status, on_main = gate(capsys, "--collection", "leaderboard-v2", REPO)
    assert status == 0  # 66.9 >= 38: the collection passes while MMLU-Pro fails its own bar
    assert on_main["collection_score"] == pytest.approx(66.9)
    assert [(b["id"], b["score"], b["passed"]) for b in on_main["benchmark_results"]] == [
        ("Idavidrein/gpqa", 78.8, True),
        ("TIGER-Lab/MMLU-Pro", 55.0, False),
    ]
    assert on_main["benchmark_results"][1]["source"] == {
        "path": ".eval_results/mmlu_pro.yaml",
        "line": 1,
        "pr": None,
    }

    status, with_prs = gate(capsys, "--collection", "leaderboard-v2", REPO, "--include-open-prs")
    assert status == 0
    mmlu = with_prs["benchmark_results"][1]
    assert (mmlu["score"], mmlu["passed"], mmlu["source"]["pr"]) == (62.0, True, pr)
    assert with_prs["collection_score"] == pytest.approx(70.4)


def test_the_pr_decides_a_user_collection_and_the_exit_status(
    gate_hub: tuple[EmulatorServer, int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    hub, pr = gate_hub
    use_emulator_endpoint(monkeypatch, hub)
    monkeypatch.chdir(REPO_ROOT)
    mine = tmp_path / "collections"
    mine.mkdir()
    (mine / "strict-gate.yaml").write_text(STRICT)

    status, on_main = gate(capsys, "--collection", "strict-gate", "--collections", str(mine), REPO)
    assert (status, on_main["pass_criteria"]["passed"]) == (1, False)
    assert on_main["scope"] == "user"

    mine_args = ("--collection", "strict-gate", "--collections", str(mine))
    status, with_prs = gate(capsys, *mine_args, REPO, "--include-open-prs")
    assert (status, with_prs["pass_criteria"]["passed"]) == (0, True)
    assert with_prs["benchmark_results"][1]["source"]["pr"] == pr


def test_the_installed_command_gates_with_annotations_and_exit_statuses(
    gate_hub: tuple[EmulatorServer, int], tmp_path: Path
) -> None:
    hub, _pr = gate_hub
    mine = tmp_path / "collections"
    mine.mkdir()
    (mine / "strict-gate.yaml").write_text(STRICT)
    env = {
        **os.environ,
        "HF_ENDPOINT": hub.url,
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
    }
    env.pop("HF_TOKEN", None)
    evalbot = Path(sys.executable).with_name("evalbot")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(  # noqa: PLW1510 - the status is asserted
            [str(evalbot), "gate", "--collections", str(mine), *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    failing = run("--collection", "strict-gate", REPO, "--format", "github")
    assert failing.returncode == 1, failing.stderr
    lines = failing.stdout.splitlines()
    assert lines[0].startswith("::error title=collection strict-gate::alice/gemma-like: FAIL")
    assert lines[1].startswith("::warning title=TIGER-Lab/MMLU-Pro::✗ TIGER-Lab/MMLU-Pro")
    passing = run("--collection", "strict-gate", REPO, "--include-open-prs")
    assert passing.returncode == 0, passing.stderr
    assert "PASS  70.40 / 100 (pass at 68)" in passing.stdout
    unknown = run("--collection", "nope", REPO)
    assert unknown.returncode == 2
    assert "no collection `nope`" in unknown.stderr
    not_there = run("--collection", "strict-gate", "alice/no-such-model")
    assert not_there.returncode == 2
    assert "could not read from the Hub" in not_there.stderr


def test_an_invalid_user_collection_is_a_usage_error_with_its_diagnostics(
    gate_hub: tuple[EmulatorServer, int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    hub, _pr = gate_hub
    use_emulator_endpoint(monkeypatch, hub)
    mine = tmp_path / "collections"
    mine.mkdir()
    (mine / "bad.yaml").write_text(STRICT.replace("task_id: mmlu_pro", "task_id: mmlu-pro"))
    assert main(["gate", "--collection", "bad", "--collections", str(mine), REPO]) == 2
    assert "has 1 error(s)" in capsys.readouterr().err
    status = main(["collections", "validate", "--collections", str(mine), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 1
    bad = next(c for c in report["collections"] if c["id"] == "bad")
    assert [(d["code"], d["line"]) for d in bad["diagnostics"]] == [("COLL-TASK-UNKNOWN", 12)]
    assert "did you mean `mmlu_pro`" in bad["diagnostics"][0]["hint"]


def test_an_open_pr_deleting_a_results_file_is_merged_into_the_view(
    gate_hub: tuple[EmulatorServer, int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--include-open-prs` reads the repo as it would be once merged: a file a PR deletes is
    gone (its deletion used to be ignored), as in the PR comment's "after"."""
    from huggingface_hub import CommitOperationDelete

    hub, _pr = gate_hub
    use_emulator_endpoint(monkeypatch, hub)
    monkeypatch.chdir(REPO_ROOT)
    deleted = client(hub, "bob").create_commit(
        REPO,
        [CommitOperationDelete(".eval_results/gpqa.yaml")],
        commit_message="Drop GPQA",
        create_pr=True,
    )
    assert deleted.pr_num is not None
    status, with_prs = gate(capsys, "--collection", "leaderboard-v2", REPO, "--include-open-prs")
    assert status == 1
    gpqa = with_prs["benchmark_results"][0]
    assert gpqa["status"] == "missing"
    assert with_prs["reasons"][0]["code"] == "missing"
    assert with_prs["reasons"][0]["benchmark"]["id"] == "Idavidrein/gpqa"
