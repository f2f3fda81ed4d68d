"""Golden files: the exact markdown of representative comments (UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.report.comment import CommentContext, render_comment
from bot.report.help_reply import render_help
from bot.validation.model import FileReport
from tests.unit.report import cases

GOLDEN = Path(__file__).parent / "golden"

SCENARIOS: dict[str, tuple[Callable[[], list[FileReport]], Callable[[], CommentContext]]] = {
    "live_valid": (lambda: [cases.live_valid()], cases.context),
    "target_verified": (lambda: [cases.target_verified()], cases.context),
    "errors_with_hints": (lambda: [cases.with_errors()], cases.context),
    "unverified_token": (lambda: [cases.unverified_token()], cases.context),
    "removed_file": (
        lambda: [cases.live_valid()],
        lambda: cases.context(
            removed_files=[".eval_results/old.yaml"], misplaced_files=[".eval_results/x.yml"]
        ),
    ),
    "merged_pr": (
        lambda: [cases.target_verified(), cases.live_valid()],
        lambda: cases.context(pr_state="merged"),
    ),
    "closed_pr_no_results": (lambda: [], lambda: cases.context(pr_state="closed")),
}


def check_golden(name: str, rendered: str) -> None:
    path = GOLDEN / f"{name}.md"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(rendered, encoding="utf-8")
    assert rendered == path.read_text(encoding="utf-8"), f"golden {path.name} differs"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_comment_matches_golden(name: str) -> None:
    reports, context = SCENARIOS[name]
    check_golden(name, render_comment(reports(), context()))


def test_help_matches_golden() -> None:
    check_golden("help", render_help("evalbot"))


def test_docs_example_is_current() -> None:
    """docs/comment.md shows a real rendering; regenerate it when the comment changes."""
    docs = (Path(__file__).parents[3] / "docs" / "comment.md").read_text(encoding="utf-8")
    example = render_comment(
        [cases.target_verified(), cases.with_errors(), cases.unverified_token()],
        cases.context(removed_files=[".eval_results/old.yaml"]),
    )
    assert f"````markdown\n{example}\n````" in docs
