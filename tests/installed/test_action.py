"""action.yml run whole, as a runner runs it (`tests.support.composite`): setup-python's
documented behaviour, the real install step (the action's files as a runner downloads them,
pip installing the locks from the wheelhouse `.ci/installed-smoke` made), then validate and
submit in one job, against the Hub emulator and a real issuer; a last step of the caller's
checks that its PATH, Python and pip are its own.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.docs.world import (
    INSTALLING_TIMEOUT_S,
    WHEELHOUSE_VARIABLE,
    pip_offline,
    required,
    tracked_copy,
)
from tests.installed.test_installed import results_yaml
from tests.integration.issuer.conftest import IssuerEnv, issuer_env
from tests.support.composite import Runner, github_environment, setup_python
from tests.support.emulator import MODEL, TOKENS

pytestmark = [pytest.mark.installed, pytest.mark.integration]

SETUP_PYTHON = "actions/setup-python@ece7cb06caefa5fff74198d8649806c4678c61a1"
CALLER_CHECK = "command -v python3; command -v pip || echo 'no pip'; echo \"PATH=$PATH\""


@pytest.fixture(scope="module")
def issuer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerEnv]:
    with issuer_env(tmp_path_factory.mktemp("issuer")) as started:
        yield started


@pytest.mark.timeout(INSTALLING_TIMEOUT_S)  # the action builds its virtualenv
def test_validate_then_submit_in_one_job(tmp_path: Path, issuer: IssuerEnv) -> None:
    workspace, temp = tmp_path / "workspace", tmp_path / "temp"
    shutil.copytree(REPO_ROOT / "examples" / "model-good", workspace)
    temp.mkdir()
    (workspace / "results.yaml").write_text(results_yaml(issuer), encoding="utf-8")
    machine = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HF_ENDPOINT": issuer.hub.url,
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_TOKEN": TOKENS["bob"],
        "EVALBOT_ISSUER_URL": issuer.issuer.url,
    }
    env = (
        github_environment(workspace, temp)
        | issuer.oidc.actions_environment()
        | machine
        | pip_offline(required(WHEELHOUSE_VARIABLE))
    )
    python = Path(shutil.which("python3") or sys.executable)  # the one the wheelhouse is for
    job = Runner(
        workspace,
        temp,
        env,
        actions={
            "evalbot/evalbot@v0.1.0": tracked_copy(tmp_path / "action"),
            SETUP_PYTHON: setup_python(python),
        },
    )
    before = job.run_steps([{"id": "before", "run": CALLER_CHECK}])
    assert before
    ok = job.run_steps(
        [
            {
                "id": "check",
                "uses": "evalbot/evalbot@v0.1.0",
                "with": {"benchmarks": str(REPO_ROOT / "examples" / "benchmarks")},
            },
            {
                "id": "submit",
                "uses": "evalbot/evalbot@v0.1.0",
                "with": {"command": "submit", "files": "results.yaml", "model-repo": MODEL},
            },
            {"id": "after", "run": CALLER_CHECK},
        ]
    )
    log = "\n".join(f"{r.name}: {r.returncode}\n{r.stdout}{r.stderr}" for r in job.results)
    assert ok, log
    check, submit = (r for r in job.results if r.name.startswith("evalbot/evalbot"))

    assert check.outputs["ok"] == "true"
    report = Path(check.outputs["report"])
    assert report.is_file()
    assert report.read_text(encoding="utf-8") in job.summary
    assert "**5 results in 4 files:** 0 verified, 5 community, 0 with errors" in job.summary

    discussions = issuer.hub.state.find_repo("model", MODEL).discussions
    pr_url = submit.outputs["pr-url"]
    assert pr_url == f"{issuer.hub.url}/{MODEL}/discussions/{max(discussions)}", log
    assert submit.outputs["ok"] == "true"
    assert f"Pull request opened: {pr_url}" in job.summary

    assert job.results[-1].stdout == job.results[0].stdout, "the caller's PATH or Python moved"
    assert job.job_env() == job.env


def test_a_version_pypi_does_not_have_says_how_to_go_on(tmp_path: Path) -> None:
    """`version:` installs from an index, which has no evalbot before the release (here the
    wheelhouse less evalbot's wheel): the step fails saying to leave `version` out."""
    wheelhouse = required(WHEELHOUSE_VARIABLE)
    index = tmp_path / "index"
    index.mkdir()
    for wheel in wheelhouse.iterdir():
        if not wheel.name.lower().startswith("evalbot-"):
            (index / wheel.name).symlink_to(wheel)
    workspace, temp = tmp_path / "workspace", tmp_path / "temp"
    workspace.mkdir()
    temp.mkdir()
    machine = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path)}
    env = github_environment(workspace, temp) | machine | pip_offline(index)
    python = Path(shutil.which("python3") or sys.executable)
    job = Runner(
        workspace,
        temp,
        env,
        actions={
            "evalbot/evalbot@v0.1.0": tracked_copy(tmp_path / "action"),
            SETUP_PYTHON: setup_python(python),
        },
    )
    ok = job.run_steps([{"uses": "evalbot/evalbot@v0.1.0", "with": {"version": "0.1.0"}}])
    log = "\n".join(f"{r.name}: {r.returncode}\n{r.stdout}{r.stderr}" for r in job.results)
    assert not ok
    assert "pip could not install evalbot==0.1.0 (not on PyPI yet?): leave `version` out" in log
