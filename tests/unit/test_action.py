"""`action.yml`: a composite GitHub Action that installs evalbot and runs validate or submit.

Its steps run here as the runner runs them (`tests.support.composite`: bash, the steps in
order, `${{ ... }}` substituted, the GITHUB_* files read back), with setup-python's documented
behaviour standing in for it and the install step's output given (the checkout's `evalbot`):
tests/installed/test_action.py runs the install step too, from the built wheel's locks.
Inputs must never be pasted into a script (`${{ inputs.x }}` inside `run:` would run a
crafted input as shell code).
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.support.composite import Runner, github_environment, setup_python

ACTION_FILE = REPO_ROOT / "action.yml"
ACTION: dict[str, Any] = yaml.safe_load(ACTION_FILE.read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
BENCHMARKS = REPO_ROOT / "examples" / "benchmarks"
#: `uses: owner/name@<40 hex> # <the release tag>`: a commit cannot be moved, a tag can.
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*$")
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(.+?)\s*$")


def unpinned(text: str) -> list[str]:
    """Every `uses:` of `text` that is not a local action nor pinned by a full commit SHA
    with the tag it stands for in a comment."""
    found = []
    for line in text.splitlines():
        match = USES.match(line)
        if match and not match.group(1).startswith("./") and not PINNED.match(match.group(1)):
            found.append(match.group(1))
    return found


def test_a_composite_action_with_the_documented_inputs_and_outputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {
        "command",
        "files",
        "model-repo",
        "issuer-url",
        "benchmarks",
        "datastore",
        "args",
        "version",
        "python-version",
    }
    assert ACTION["inputs"]["command"]["default"] == "validate"
    assert set(ACTION["outputs"]) == {"ok", "report", "pr-url"}
    for output in ACTION["outputs"].values():
        assert output["value"].startswith("${{ steps.run.outputs.")


def test_every_third_party_action_is_pinned_by_commit() -> None:
    assert unpinned(ACTION_FILE.read_text(encoding="utf-8")) == []


def test_a_tag_pin_is_caught() -> None:
    assert unpinned("      - uses: actions/setup-python@v5\n") == ["actions/setup-python@v5"]
    sha = "ece7cb06caefa5fff74198d8649806c4678c61a1"
    assert unpinned(f"  - uses: actions/setup-python@{sha}\n") == [f"actions/setup-python@{sha}"]
    assert unpinned(f"  - uses: actions/setup-python@{sha} # v6.3.0\n") == []


def test_the_callers_python_and_path_are_left_alone() -> None:
    (python,) = [step for step in STEPS if "setup-python" in step.get("uses", "")]
    assert python["with"]["update-environment"] is False
    for step in STEPS:
        script = step.get("run", "")
        assert "GITHUB_PATH" not in script, step.get("name")
        assert "GITHUB_ENV" not in script, step.get("name")


def test_no_input_is_pasted_into_a_script() -> None:
    for step in STEPS:
        assert "${{" not in step.get("run", ""), step.get("name")


def test_the_supported_runners_are_stated() -> None:
    assert "Linux and macOS runners" in ACTION["description"]
    for doc in ("README.md", "docs/frameworks.md"):
        words = " ".join((REPO_ROOT / doc).read_text(encoding="utf-8").split())
        assert "Linux and macOS runners" in words, doc


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The caller's checkout: a model repo with results, and a second, broken one."""
    workspace = tmp_path / "workspace"
    shutil.copytree(REPO_ROOT / "examples" / "model-good", workspace)
    shutil.copytree(REPO_ROOT / "examples" / "model-broken", workspace / "broken")
    (workspace / "out").mkdir()
    return workspace


def runner(workspace: Path) -> Runner:
    """A job whose install step is taken as done: evalbot is the checkout's."""
    temp = workspace.parent / "runner-temp"
    temp.mkdir(exist_ok=True)
    env = github_environment(workspace, temp) | {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workspace.parent),
        "HF_HUB_OFFLINE": "1",
    }
    evalbot = Path(sys.executable).parent / "evalbot"
    return Runner(
        workspace,
        temp,
        env,
        actions={
            "evalbot": REPO_ROOT,
            "actions/setup-python@ece7cb06caefa5fff74198d8649806c4678c61a1": setup_python(
                Path(sys.executable)
            ),
        },
        given={"install": {"evalbot": str(evalbot)}},
    )


def use(job: Runner, **inputs: str) -> tuple[bool, dict[str, str], str]:
    """Run the action as one step of the job; its success, outputs and log."""
    ok = job.run_steps([{"id": "evalbot", "uses": "evalbot", "with": inputs}])
    log = "\n".join(r.stdout + r.stderr for r in job.results)
    return ok, job.results[-1].outputs, log


def test_validate_defaults_to_the_checkout_and_fills_the_summary(checkout: Path) -> None:
    shutil.rmtree(checkout / "broken")
    job = runner(checkout)
    ok, outputs, log = use(job, benchmarks=str(BENCHMARKS))
    assert ok, log
    assert outputs["ok"] == "true"
    report = Path(outputs["report"])
    assert report.read_text(encoding="utf-8") in job.summary
    assert "### Evaluation results check" in job.summary
    assert "**5 results in 4 files:** 0 verified, 5 community, 0 with errors" in job.summary
    assert outputs["pr-url"] == ""
    assert job.job_env() == job.env, "the action changed the caller's environment or PATH"


def test_validate_annotates_the_files_and_says_not_ok(checkout: Path) -> None:
    job = runner(checkout)
    ok, outputs, log = use(job, files="broken", benchmarks=str(BENCHMARKS))
    assert not ok
    assert job.results[-2].returncode == 1
    assert "::error file=broken/.eval_results/" in log
    assert outputs["ok"] == "false"
    assert "#### ❌ broken/&#46;eval\\_results/gpqa&#46;yaml" in job.summary


def test_validate_passes_the_datastore_through(checkout: Path) -> None:
    """`datastore:` checks linked Every Eval Ever records against a checkout, offline."""
    samples = REPO_ROOT / "tests" / "samples" / "real-world" / "every_eval_ever"
    repo = checkout / "linked"
    (repo / ".eval_results").mkdir(parents=True)
    converted = (samples / "community_evals" / "converter_output.yaml").read_bytes()
    (repo / ".eval_results" / "mmlu_pro.yaml").write_bytes(converted.replace(b"52.29", b"96.8"))
    store = checkout / "bm" / "TIGER-Lab" / "MMLU-Pro"
    store.mkdir(parents=True)
    eval_yaml = REPO_ROOT / "tests/samples/real-world/hf-benchmark-eval-yaml"
    (store / "eval.yaml").write_bytes((eval_yaml / "TIGER-Lab__MMLU-Pro.eval.yaml").read_bytes())
    shutil.copytree(samples / "community_evals" / "datastore", checkout / "eee")
    ok, outputs, log = use(
        runner(checkout), files="linked", benchmarks=str(checkout / "bm"), datastore="eee"
    )
    assert not ok
    assert "title=ENTRY-SOURCE-MISMATCH::[0].value: value disagrees" in log
    assert outputs["ok"] == "false"


def test_submit_needs_files(checkout: Path) -> None:
    job = runner(checkout)
    ok, outputs, log = use(job, command="submit", **{"model-repo": "alice/model"})
    assert not ok
    assert job.results[-2].returncode == 2
    assert "::error title=evalbot::submit needs the `files` input" in log
    assert outputs["ok"] == "false"


def test_submit_refuses_a_folder(checkout: Path) -> None:
    ok, _outputs, log = use(
        runner(checkout), command="submit", files="out", **{"model-repo": "alice/model"}
    )
    assert not ok
    assert "::error title=evalbot::`files`: out is a folder; name the files to submit" in log


def test_a_glob_that_matches_nothing_is_an_error(checkout: Path) -> None:
    ok, _outputs, log = use(runner(checkout), files="out/*/results_*.json")
    assert not ok
    assert "::error title=evalbot::no file matches `files: out/*/results_*.json`" in log


def test_submit_needs_a_model_repo(checkout: Path) -> None:
    ok, _outputs, log = use(runner(checkout), command="submit", files=".eval_results/gpqa.yaml")
    assert not ok
    assert "submit needs the `model-repo` input" in log


def test_submit_passes_every_file_and_the_issuer(checkout: Path) -> None:
    """Two files reach `evalbot submit` as two arguments, with the issuer. The job runs with
    HF_HUB_OFFLINE=1, where no PR can be opened: submit stops before asking the issuer, and
    the summary says nothing was submitted."""
    job = runner(checkout)
    ok, outputs, log = use(
        job,
        command="submit",
        files=".eval_results/g*.yaml .eval_results/hle.yaml",
        **{"model-repo": "alice/model", "issuer-url": "http://127.0.0.1:9"},
    )
    assert not ok
    assert "usage" not in log
    assert "EVALBOT_ISSUER_URL" not in log  # the issuer input reached it
    assert "HF_HUB_OFFLINE is set" in log
    assert outputs == {"ok": "false", "report": outputs["report"], "pr-url": ""}
    assert "Nothing was submitted" in job.summary


def test_an_unknown_command_is_refused(checkout: Path) -> None:
    ok, _outputs, log = use(runner(checkout), command="publish")
    assert not ok
    assert "use validate or submit" in log


def test_an_input_is_never_run_as_code(checkout: Path) -> None:
    ok, _outputs, _log = use(runner(checkout), files="$(touch pwned) `touch pwned2`")
    assert not ok
    assert not (checkout / "pwned").exists()
    assert not (checkout / "pwned2").exists()


def test_windows_is_refused_with_a_reason(checkout: Path) -> None:
    job = runner(checkout)
    job.given = {}
    job.env["RUNNER_OS"] = "Windows"
    ok, _outputs, log = use(job)
    assert not ok
    assert "runs on Linux and macOS runners, not on Windows" in log
