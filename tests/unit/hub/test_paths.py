from __future__ import annotations

import pytest

from bot.hub.pulls import PathKind, classify_path


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (".eval_results/gpqa.yaml", PathKind.RESULTS),
        (".eval_results/GPQA.yaml", PathKind.RESULTS),  # the name's case is free
        (".eval_results/gpqa.yml", PathKind.MISPLACED),
        (".eval_results/gpqa.YAML", PathKind.MISPLACED),
        (".eval_results/sub/gpqa.yaml", PathKind.MISPLACED),
        (".EVAL_RESULTS/gpqa.yaml", PathKind.MISPLACED),
        ("models/.eval_results/gpqa.yaml", PathKind.MISPLACED),
        (".eval_results/../gpqa.yaml", PathKind.MISPLACED),
        (".eval_results/.yaml", PathKind.MISPLACED),
        (".eval_results//gpqa.yaml", PathKind.MISPLACED),
        ("README.md", PathKind.OTHER),
        ("eval_results/gpqa.yaml", PathKind.OTHER),
    ],
)
def test_classify_path(path: str, kind: PathKind) -> None:
    assert classify_path(path) is kind
