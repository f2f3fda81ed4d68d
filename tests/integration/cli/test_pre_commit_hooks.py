"""Both hooks of `.pre-commit-hooks.yaml`, `evalbot-fix` then `evalbot-validate`, run by
pre-commit itself on a model repo whose results file `evalbot-fix` renames.

pre-commit hands every hook of a run the file names it found when the run began: the renamed
file's old name reaches `evalbot-validate`, which skips it (docs/validate.md#pre-commit-hook).
The hooks are declared `repo: local`, `language: system`, with the declared ids, entries, file
patterns and options, the entry run by this checkout's `evalbot`: pre-commit's own filename
passing without building an environment from an index.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.integration

BIN = Path(sys.executable).parent
EXAMPLES = REPO_ROOT / "examples"
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "hooks",
    "GIT_AUTHOR_EMAIL": "hooks@example.org",
    "GIT_COMMITTER_NAME": "hooks",
    "GIT_COMMITTER_EMAIL": "hooks@example.org",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}


def local_hooks(benchmarks: Path) -> dict[str, Any]:
    declared = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    by_id = {hook["id"]: hook for hook in declared}
    hooks = []
    for hook_id in ("evalbot-fix", "evalbot-validate"):
        hook = dict(by_id[hook_id], language="system")
        hook["entry"] = str(BIN / hook["entry"])
        hook["args"] = ["--benchmarks", str(benchmarks)]
        hooks.append(hook)
    return {"repos": [{"repo": "local", "hooks": hooks}]}


def git(repo: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, timeout=60)


def pre_commit(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`pre-commit run --all-files`, verbose: a passing hook's output is shown too."""
    return subprocess.run(
        [str(BIN / "pre-commit"), "run", "--all-files", "--verbose"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_fix_then_validate_in_one_run_when_fix_renames_a_file(tmp_path: Path) -> None:
    repo = tmp_path / "model"
    shutil.copytree(EXAMPLES / "model-good", repo)
    results = repo / ".eval_results"
    (results / "gpqa.yaml").rename(results / "gpqa.yml")  # --fix renames it back
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump(local_hooks(EXAMPLES / "benchmarks"), sort_keys=False)
    )
    env = {
        **os.environ,
        **GIT_IDENTITY,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "HF_HUB_OFFLINE": "1",
    }
    git(repo, env, "init", "--quiet")
    git(repo, env, "add", "-A")
    first = pre_commit(repo, env)
    shown = first.stdout + first.stderr
    assert first.returncode == 1, shown  # the fixer changed a file: the run fails
    assert (results / "gpqa.yaml").is_file()
    assert not (results / "gpqa.yml").exists()
    assert re.search(r"^evalbot validate --fix\.+Failed$", shown, re.MULTILINE), shown
    assert ".eval_results/gpqa.yml: renamed to .eval_results/gpqa.yaml" in shown
    assert re.search(r"^evalbot validate\.+Passed$", shown, re.MULTILINE), shown
    assert ".eval_results/gpqa.yml: not checked: gone since this pre-commit run began" in shown
    assert "no such file or folder" not in shown
    git(repo, env, "add", "-A")
    second = pre_commit(repo, env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert second.stdout.count("Passed") == 2
