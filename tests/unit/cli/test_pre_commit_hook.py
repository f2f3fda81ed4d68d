"""The pre-commit hook declaration: the right id, command and file pattern."""

from __future__ import annotations

import re
import textwrap
import tomllib

import pytest

from bot.validation.yamlload import load_yaml
from tests.conftest import REPO_ROOT

HOOKS = load_yaml((REPO_ROOT / ".pre-commit-hooks.yaml").read_bytes())


def hook_named(name: str) -> dict[str, object]:
    assert HOOKS.ok
    (hook,) = [hook for hook in HOOKS.data if hook["id"] == name]
    assert isinstance(hook, dict)
    return hook


def test_hook_declaration() -> None:
    assert [hook["id"] for hook in HOOKS.data] == ["evalbot-validate", "evalbot-fix"]
    hook = hook_named("evalbot-validate")
    assert hook["entry"] == "evalbot validate"
    assert hook["language"] == "python"


def test_the_fixing_hook_runs_validate_fix_on_results_files_only() -> None:
    hook = hook_named("evalbot-fix")
    assert hook["entry"] == "evalbot validate --fix"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is True
    assert re.search(str(hook["files"]), ".eval_results/gpqa.yml")
    assert not re.search(str(hook["files"]), "eval.yaml")  # nothing to fix in a benchmark


@pytest.mark.parametrize(
    ("path", "matches"),
    [
        (".eval_results/gpqa.yaml", True),
        (".eval_results/gpqa.yml", True),
        ("eval.yaml", True),
        ("README.md", False),
        ("docs/eval.yaml", False),
        ("eval_results/gpqa.yaml", False),
    ],
)
def test_hook_file_pattern(path: str, matches: bool) -> None:
    hook = hook_named("evalbot-validate")
    assert bool(re.search(str(hook["files"]), path)) is matches


def test_the_readmes_local_hook_matches_the_declaration() -> None:
    """README shows a `repo: local` hook that pip installs evalbot into; it must run the same
    command on the same files as the declared hook, and install what exists today: this
    repository at its tag (the PyPI name only once released)."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("  - repo: local\n", 1)[1].split("```", 1)[0]
    local = load_yaml(textwrap.dedent("  - repo: local\n" + block).encode())
    assert local.ok
    declared = hook_named("evalbot-validate")
    (hook,) = local.data[0]["hooks"]
    for key in ("id", "entry", "language", "files", "require_serial"):
        assert hook[key] == declared[key], key
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    tag = f"{project['urls']['Repository']}@v{project['version']}"
    assert hook["additional_dependencies"] == [f"evalbot @ git+{tag}"]
