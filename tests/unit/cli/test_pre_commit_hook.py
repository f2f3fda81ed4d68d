"""The pre-commit hook declaration: the right id, command and file pattern."""

from __future__ import annotations

import re
import textwrap

import pytest

from bot.spec.yamlload import load_yaml
from tests.conftest import REPO_ROOT

HOOKS = load_yaml((REPO_ROOT / ".pre-commit-hooks.yaml").read_bytes())


def test_hook_declaration() -> None:
    assert HOOKS.ok
    (hook,) = HOOKS.data
    assert hook["id"] == "evalbot-validate"
    assert hook["entry"] == "evalbot validate"
    assert hook["language"] == "python"


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
    (hook,) = HOOKS.data
    assert bool(re.search(hook["files"], path)) is matches


def test_the_readmes_hook_from_the_published_package_matches_the_declaration() -> None:
    """README shows a `repo: local` hook for users who install evalbot from PyPI; it must run
    the same command on the same files as the declared hook."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("  - repo: local\n", 1)[1].split("```", 1)[0]
    local = load_yaml(textwrap.dedent("  - repo: local\n" + block).encode())
    assert local.ok
    (declared,) = HOOKS.data
    (hook,) = local.data[0]["hooks"]
    for key in ("id", "entry", "language", "files", "require_serial"):
        assert hook[key] == declared[key], key
    assert hook["additional_dependencies"][0].startswith("evalbot==")
