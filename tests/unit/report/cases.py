"""Hand-built reports for the comment tests: each one a situation the comment must explain."""

from __future__ import annotations

from typing import Any

from bot.report.comment import CommentContext
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
    Verification,
    VerificationStatus,
)

HEAD = "4f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c"

GPQA = Benchmark(
    repo_id="Idavidrein/gpqa",
    tasks=(TaskDef("diamond"),),
    metrics=(MetricDef("accuracy", "Accuracy", higher_is_better=True, primary=True),),
    revision="e" * 40,
)
HLE = Benchmark(
    repo_id="cais/hle",
    tasks=(TaskDef("hle"),),
    metrics=(
        MetricDef("accuracy", "Accuracy", higher_is_better=True, primary=True),
        MetricDef("calibration_error", "Calibration error", higher_is_better=False),
    ),
)


def entry(
    data: dict[str, Any],
    *,
    index: int = 0,
    line: int = 1,
    dialect: Dialect = Dialect.LIVE,
    **report: Any,
) -> EntryReport:
    dataset = data.get("dataset", {})
    token = data.get("verifyToken") or data.get("verify_token")
    loaded = ResultEntry(
        index=index,
        line=line,
        data=data,
        dialect=dialect,
        dataset_id=dataset.get("id"),
        task_id=dataset.get("task_id"),
        token=token,
    )
    return EntryReport(entry=loaded, **report)


def live_valid() -> FileReport:
    return FileReport(
        path=".eval_results/gpqa.yaml",
        kind="results",
        entries=[
            entry(
                {
                    "dataset": {"id": "Idavidrein/gpqa", "task_id": "diamond"},
                    "value": 0.412,
                    "source": {"url": "https://example.org/logs/run-1", "name": "run logs"},
                },
                benchmark=GPQA,
            )
        ],
    )


def target_verified() -> FileReport:
    return FileReport(
        path=".eval_results/hle.yaml",
        kind="results",
        entries=[
            entry(
                {
                    "dataset": {"id": "cais/hle", "task_id": "hle", "revision": "d" * 40},
                    "metrics": [
                        {"metric_id": "accuracy", "value": 0.129},
                        {"metric_id": "calibration_error", "value": 0.71},
                    ],
                    "framework": {"name": "inspect-ai", "version": "0.3.140"},
                    "verify_token": "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.e30.c2ln",
                },
                dialect=Dialect.TARGET,
                benchmark=HLE,
                verification=Verification(VerificationStatus.VERIFIED),
            )
        ],
    )


def with_errors() -> FileReport:
    return FileReport(
        path=".eval_results/mmlu_pro.yaml",
        kind="results",
        diagnostics=[
            Diagnostic(
                code="F-NAME",
                severity=Severity.WARNING,
                message="file name does not follow the benchmark name (expected mmlu_pro.yaml)",
                hint="rename the file to .eval_results/mmlu_pro.yaml",
            )
        ],
        entries=[
            entry(
                {"dataset": {"id": "TIGER-Lab/MMLU-Pro", "task_id": "MMLU-pro"}, "value": "85%"},
                line=1,
                diagnostics=[
                    Diagnostic(
                        code="E-TASK-CASE",
                        severity=Severity.ERROR,
                        message="task_id 'MMLU-pro' is not a task of TIGER-Lab/MMLU-Pro",
                        line=3,
                        column=14,
                        field="dataset.task_id",
                        hint="did you mean 'mmlu_pro'? task ids are exact",
                    ),
                    Diagnostic(
                        code="E-VALUE-TYPE",
                        severity=Severity.ERROR,
                        message="value must be a number, not the string '85%'",
                        line=4,
                        field="value",
                        hint="write value: 0.85 (or 85 if the benchmark reports percentages)",
                    ),
                ],
            ),
            entry(
                {"dataset": {"id": "TIGER-Lab/MMLU-Pro", "task_id": "mmlu_pro"}, "value": 0.7},
                index=1,
                line=5,
                diagnostics=[
                    Diagnostic(
                        code="W-UNKNOWN-KEY",
                        severity=Severity.WARNING,
                        message="unknown key 'score'",
                        line=8,
                        field="score",
                    )
                ],
            ),
        ],
    )


def unverified_token() -> FileReport:
    return FileReport(
        path=".eval_results/gpqa.yaml",
        kind="results",
        entries=[
            entry(
                {
                    "dataset": {"id": "Idavidrein/gpqa", "task_id": "diamond"},
                    "value": 0.5,
                    "verifyToken": "eyJhbGciOiJub25lIn0.e30.",
                },
                benchmark=GPQA,
                verification=Verification(VerificationStatus.UNVERIFIED, "token-expired"),
            )
        ],
    )


def context(**overrides: Any) -> CommentContext:
    values: dict[str, Any] = {
        "repo_id": "acme/model-7b",
        "pr_num": 3,
        "head_sha": HEAD,
        "bot_name": "evalbot",
    }
    values.update(overrides)
    return CommentContext(**values)
