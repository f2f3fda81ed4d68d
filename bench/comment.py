"""How long the PR comment takes to render: a typical PR and a huge one that must be trimmed.

Run: `.venv/bin/python bench/comment.py`. Prints medians; asserts nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import median_seconds, report
from bot.report.comment import CommentContext, render_comment
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import (
    Benchmark,
    Dialect,
    EntryReport,
    FileReport,
    MetricDef,
    ResultEntry,
    TaskDef,
)

BENCH = Benchmark(
    repo_id="Idavidrein/gpqa",
    tasks=(TaskDef("diamond"),),
    metrics=(MetricDef("accuracy", "Accuracy", higher_is_better=True),),
)
CONTEXT = CommentContext("acme/model-7b", 3, "4f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c", "evalbot")


def file_report(entries: int, name: str) -> FileReport:
    reports = []
    for i in range(entries):
        data = {"dataset": {"id": "Idavidrein/gpqa", "task_id": "diamond"}, "value": i / 7}
        entry = ResultEntry(i, 1 + 4 * i, data, Dialect.LIVE, "Idavidrein/gpqa", "diamond")
        warning = Diagnostic("W-UNKNOWN-KEY", Severity.WARNING, "unknown key 'x'", line=2 + 4 * i)
        reports.append(EntryReport(entry, [warning] if i % 3 == 0 else [], BENCH))
    return FileReport(f".eval_results/{name}.yaml", "results", entries=reports)


def main() -> None:
    typical = [file_report(3, "gpqa")]
    huge = [file_report(10_000, "huge")]
    report(
        "render: 1 file, 3 entries",
        median_seconds(lambda: render_comment(typical, CONTEXT), repeat=50) * 1e3,
        "ms",
    )
    report(
        "render: 1 file, 10,000 entries (trimmed to 60,000 chars)",
        median_seconds(lambda: render_comment(huge, CONTEXT), repeat=5) * 1e3,
        "ms",
    )
    many = [file_report(10_000, f"f{i}") for i in range(100)]
    report(
        "render: 100 files x 10,000 entries (the per-PR caps)",
        median_seconds(lambda: render_comment(many, CONTEXT), repeat=3) * 1e3,
        "ms",
    )
    report(
        "rendered length of the 10,000-entry comment", len(render_comment(huge, CONTEXT)), "chars"
    )


if __name__ == "__main__":
    main()
