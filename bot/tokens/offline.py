"""Verification for the command line: `--issuers` and `--model-repo` as docs/decisions.md#cli sets
them.

`evalbot validate` calls `verify_offline` after validation. Offline, keys are cached in memory
for the run, jti bindings only span the run (in the sorted file and entry order), and the
reference time is `--at` for every entry (default: now).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from bot.spec.model import FileReport, Verification, VerificationStatus
from bot.tokens import reasons
from bot.tokens.binding import MemoryJtiBinder
from bot.tokens.issuers import IssuerRegistry
from bot.tokens.jwks import JwksFetcher
from bot.tokens.verify import verify_reports

#: Where `evalbot validate` looks for trusted issuers when `--issuers` is not given.
WORKING_DIRECTORY_ISSUERS = Path("config") / "issuers.yaml"


def _packaged_issuers() -> Path | None:
    candidate = resources.files("bot").joinpath("data", "issuers.yaml")
    return Path(str(candidate)) if candidate.is_file() else None


def registry_for_cli(
    issuers_path: str | Path | None, *, fetcher: JwksFetcher | None = None
) -> IssuerRegistry:
    """The registry for one CLI run: `--issuers FILE`, else `config/issuers.yaml` in the working
    directory, else the packaged default; no file at all means no trusted issuers (not an
    error). Raises `IssuerConfigError` (a ValueError) for an invalid file, OSError if
    `--issuers` names a file that cannot be read.
    """
    if issuers_path is not None:
        return IssuerRegistry.from_file(issuers_path, fetcher=fetcher)
    if WORKING_DIRECTORY_ISSUERS.is_file():
        return IssuerRegistry.from_file(WORKING_DIRECTORY_ISSUERS, fetcher=fetcher)
    packaged = _packaged_issuers()
    if packaged is not None:
        return IssuerRegistry.from_file(packaged, fetcher=fetcher)
    return IssuerRegistry([], fetcher=fetcher)


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
