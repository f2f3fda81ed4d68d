"""`evalbot validate --markdown FILE`: the PR comment's tables appended to a file (a CI job's
summary), beside whichever format goes to stdout."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
BENCHMARKS = ["--benchmarks", str(EXAMPLES / "benchmarks")]


def test_the_report_is_appended_as_the_comments_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    broken = str(EXAMPLES / "model-broken")
    status = main(
        ["validate", broken, *BENCHMARKS, "--format", "github", "--markdown", str(summary)]
    )
    assert status == 1
    assert "::error file=" in capsys.readouterr().out
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n### Evaluation results check\n")
    assert "| # | line | benchmark | task | metrics | badges | verdict |" in text
    assert "`ENTRY-TASK-UNKNOWN`" in text
    assert "evalbot:pr-report" not in text  # no PR markers, no footer


def test_nothing_to_check_says_so() -> None:
    from bot.report.comment import render_report

    assert render_report([]) == "### Evaluation results check\n\n**No results to check.**"


def test_an_unwritable_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "summary.md"
    good = str(EXAMPLES / "model-good")
    assert main(["validate", good, *BENCHMARKS, "--markdown", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"evalbot validate: --markdown {target}: No such file or directory" in err
