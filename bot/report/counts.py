"""A PR's figures: results verified, community and invalid, errors and warnings; the comment's
summary line, the PR history and the web pages show the same ones."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.validation.diagnostics import Diagnostic
from bot.validation.model import FileReport, VerificationStatus


@dataclass(frozen=True, slots=True)
class Counts:
    results: int = 0
    verified: int = 0
    community: int = 0
    invalid: int = 0
    errors: int = 0
    warnings: int = 0


def count_reports(reports: Sequence[FileReport]) -> Counts:
    """The summary line's figures (the PR history and the web pages show the same ones)."""
    results = verified = community = invalid = errors = warnings = 0
    for report in reports:
        diagnostics: list[Diagnostic] = list(report.diagnostics)
        for entry in report.entries:
            results += 1
            diagnostics.extend(entry.diagnostics)
            if not entry.ok:
                invalid += 1
            elif entry.verification.status is VerificationStatus.VERIFIED:
                verified += 1
            else:
                community += 1
        errors += sum(1 for d in diagnostics if d.is_error)
        warnings += sum(1 for d in diagnostics if not d.is_error)
    return Counts(results, verified, community, invalid, errors, warnings)
