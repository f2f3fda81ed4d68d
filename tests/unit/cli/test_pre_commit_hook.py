"""The pre-commit hook declaration: the right id, command and file pattern."""

from __future__ import annotations

import re

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
