"""`action.yml`: a composite GitHub Action that installs evalbot and runs validate or submit.

Its command step is run here as the runner would run it (bash, the inputs as environment
variables), with the checkout's `evalbot` on PATH; the install step's commands are the ones
`.ci/installed-smoke` runs against a fresh virtualenv. Inputs must never be pasted into a
script (`${{ inputs.x }}` inside `run:` would run a crafted input as shell code).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT

ACTION: dict[str, Any] = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
BENCHMARKS = REPO_ROOT / "examples" / "benchmarks"


def test_a_composite_action_with_the_documented_inputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {
        "command",
        "files",
        "model-repo",
        "issuer-url",
        "benchmarks",
        "args",
        "version",
        "python-version",
    }
    assert ACTION["inputs"]["command"]["default"] == "validate"


def test_no_input_is_pasted_into_a_script() -> None:
    for step in STEPS:
        assert "${{" not in step.get("run", ""), step.get("name")


def command_step(tmp_path: Path, **inputs: str) -> subprocess.CompletedProcess[str]:
    (step,) = [step for step in STEPS if step.get("name", "").startswith("evalbot ")]
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
    }
    given = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    given |= inputs
    env |= {
        f"EVALBOT_ACTION_{name.upper().replace('-', '_')}": value for name, value in given.items()
    }
    return subprocess.run(
        ["bash", "-c", step["run"]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def models(tmp_path: Path) -> Path:
    shutil.copytree(REPO_ROOT / "examples" / "model-good", tmp_path / "good")
    shutil.copytree(REPO_ROOT / "examples" / "model-broken", tmp_path / "broken")
    return tmp_path


def test_validate_annotates_the_files(models: Path) -> None:
    done = command_step(models, command="validate", files="broken", benchmarks=str(BENCHMARKS))
    assert done.returncode == 1, done.stderr
    assert "::error file=broken/.eval_results/" in done.stdout
    good = command_step(models, command="validate", files="g*", benchmarks=str(BENCHMARKS))
    assert good.returncode == 0, good.stdout + good.stderr


def test_a_glob_that_matches_nothing_is_an_error(models: Path) -> None:
    done = command_step(models, command="validate", files="out/*/results_*.json")
    assert done.returncode == 2
    assert "::error title=evalbot::no file matches `files: out/*/results_*.json`" in done.stdout


def test_submit_needs_a_model_repo(models: Path) -> None:
    done = command_step(models, command="submit", files="good/.eval_results/gpqa.yaml")
    assert done.returncode == 2
    assert "submit needs the `model-repo` input" in done.stdout


def test_submit_passes_every_file_and_the_issuer(models: Path) -> None:
    """Two files reach `evalbot submit` as two arguments, with the issuer. The step runs with
    HF_HUB_OFFLINE=1, where no PR can be opened: submit stops before asking the issuer."""
    done = command_step(
        models,
        command="submit",
        files="good/.eval_results/g*.yaml good/.eval_results/hle.yaml",
        **{"model-repo": "alice/model", "issuer-url": "http://127.0.0.1:9"},
    )
    assert done.returncode == 2
    assert "usage" not in done.stderr
    assert "EVALBOT_ISSUER_URL" not in done.stderr  # the issuer input reached it
    assert "HF_HUB_OFFLINE is set" in done.stderr


def test_an_unknown_command_is_refused(models: Path) -> None:
    done = command_step(models, command="publish")
    assert done.returncode == 2
    assert "use validate or submit" in done.stdout


def test_an_input_is_never_run_as_code(models: Path) -> None:
    done = command_step(models, command="validate", files="$(touch pwned) `touch pwned2`")
    assert done.returncode == 2
    assert not (models / "pwned").exists()
    assert not (models / "pwned2").exists()
