"""Verification for the command line: `--issuers` and `--model-repo` as docs/decisions.md#cli sets
them.

`evalbot validate` calls `verify_offline` after validation; the registry comes from
`bot.adapters.issuers_file.registry_for_cli`. Offline, keys are cached in memory
for the run, jti bindings only span the run (in the sorted file and entry order), and the
reference time is `--at` for every entry (default: now).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from bot.tokens import reasons
from bot.tokens.binding import MemoryJtiBinder
from bot.tokens.issuers import IssuerRegistry
from bot.tokens.verify import verify_reports
from bot.validation.model import FileReport, Verification, VerificationStatus


def verify_offline(
    reports: Sequence[FileReport],
    *,
    model_repo: str | None,
    registry: IssuerRegistry,
    at: datetime | None = None,
) -> None:
    """Set each entry's verification for a CLI run, in place.

    Without `--model-repo` no token can be matched to its repo: tokens are then unverified
    with `model-repo-unknown` (and entries without one stay `absent`).
    """
    if model_repo is None:
        for file_report in reports:
            for entry_report in file_report.entries:
                entry_report.verification = (
                    Verification.absent()
                    if entry_report.entry.token is None
                    else Verification(VerificationStatus.UNVERIFIED, reasons.MODEL_REPO_UNKNOWN)
                )
        return
    moment = at if at is not None else datetime.now(tz=UTC)
    verify_reports(
        reports,
        model_repo=model_repo,
        registry=registry,
        binder=MemoryJtiBinder(),
        reference_time=lambda _file, _entry: moment,
    )
