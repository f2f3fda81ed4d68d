"""Small helpers shared by the validation tests."""

from __future__ import annotations

from bot.validation.diagnostics import Diagnostic
from bot.validation.model import BenchmarkSource, FileReport
from bot.validation.validate import validate_results_files

GPQA_ENTRY = b"- dataset:\n    id: Idavidrein/gpqa\n    task_id: diamond\n  value: 78.8\n"
AIME_ENTRY = (
    b"- dataset: {id: MathArena/aime_2026, task_id: aime_2026}\n"
    b"  metrics:\n    - {metric_id: accuracy, value: 61.7}\n"
)


def all_diagnostics(report: FileReport) -> list[Diagnostic]:
    return [*report.diagnostics, *(d for entry in report.entries for d in entry.diagnostics)]


def check(
    content: bytes, store: BenchmarkSource, path: str = ".eval_results/gpqa.yaml"
) -> FileReport:
    (report,) = validate_results_files({path: content}, store)
    return report


def codes(
    content: bytes, store: BenchmarkSource, path: str = ".eval_results/gpqa.yaml"
) -> list[str]:
    return [d.code for d in all_diagnostics(check(content, store, path))]
