from __future__ import annotations

from typing import Any

from bot.report.badges import badges_for
from bot.report.comment_texts import Badge
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import (
    Benchmark,
    Dialect,
    EntryReport,
    ResultEntry,
    TaskDef,
    Verification,
    VerificationStatus,
)

GPQA = Benchmark(repo_id="Idavidrein/gpqa", tasks=(TaskDef("diamond"),))


def report_for(data: dict[str, Any], **kwargs: Any) -> EntryReport:
    entry = ResultEntry(index=0, line=1, data=data, dialect=Dialect.LIVE)
    return EntryReport(entry=entry, **kwargs)


def test_verified_result_with_source_and_benchmark() -> None:
    report = report_for(
        {"value": 1, "source": {"url": "https://example.org/logs"}},
        benchmark=GPQA,
        verification=Verification(VerificationStatus.VERIFIED),
    )
    assert badges_for(report) == [Badge.VERIFIED, Badge.LEADERBOARD, Badge.SOURCE]


def test_unverified_result_is_a_community_claim() -> None:
    report = report_for(
        {"value": 1},
        benchmark=GPQA,
        verification=Verification(VerificationStatus.UNVERIFIED, "bad-signature"),
    )
    assert badges_for(report) == [Badge.COMMUNITY, Badge.LEADERBOARD]


def test_non_http_source_earns_no_source_badge() -> None:
    report = report_for({"value": 1, "source": {"url": "javascript:alert(1)"}})
    assert badges_for(report) == [Badge.COMMUNITY]


def test_entry_with_errors_earns_nothing() -> None:
    error = Diagnostic(code="E-TEST", severity=Severity.ERROR, message="broken")
    report = report_for(
        {"value": 1},
        benchmark=GPQA,
        diagnostics=[error],
        verification=Verification(VerificationStatus.VERIFIED),
    )
    assert badges_for(report) == []
