"""What one bot run may read of a datastore PR (bytes, records' bytes, samples rows, time), pure;
past a bound the run stops with `RunLimit`, whose `EEE-RUN-LIMIT` is the PR's verdict and is
never retried (docs/eee.md, "Limits")."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.eee import datastore_diagnostics
from bot.validation.diagnostics import Diagnostic

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class RunLimits:
    """The bounds of one run (`config/bot.yaml`, a datastore's `run_limits:`)."""

    #: Bytes one run may read of the PR's files and their pairs on main (distinct contents).
    max_bytes: int = 2 * 1024 * MIB
    #: Of those, bytes of records (each read whole and kept while the run lasts).
    max_record_bytes: int = 256 * MIB
    #: Rows of samples files one run may read.
    max_rows: int = 1_000_000
    #: Seconds one run may spend reading the PR's files (the task's soft time limit is 240 s).
    max_seconds: float = 120.0


class RunLimit(Exception):
    """The run reached one of its bounds; `diagnostic` says which, for the PR's verdict."""

    def __init__(self, diagnostic: Diagnostic, path: str | None = None) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.path = path


def _mib(size: int) -> str:
    return f"{size / MIB:,.1f}"


@dataclass(slots=True)
class RunBudget:
    """One run's spending against `limits`; each method raises `RunLimit` past a bound."""

    limits: RunLimits = field(default_factory=RunLimits)
    clock: Callable[[], float] = time.monotonic
    started: float = 0.0
    spent_bytes: int = 0
    spent_record_bytes: int = 0
    spent_rows: int = 0

    def __post_init__(self) -> None:
        self.started = self.clock()

    def too_large(self, what: str) -> Diagnostic:
        """The `EEE-RUN-LIMIT` finding for a run stopped by `what` (a `RUN_*` text)."""
        return datastore_diagnostics.make(
            "EEE-RUN-LIMIT",
            what=what,
            mib=self.limits.max_bytes // MIB,
            record_mib=self.limits.max_record_bytes // MIB,
            rows=f"{self.limits.max_rows:,}",
            seconds=int(self.limits.max_seconds),
        )

    def take_bytes(self, count: int, *, record: bool, path: str | None = None) -> None:
        """Count `count` bytes read (of a record when `record`)."""
        self.spent_bytes += count
        if record:
            self.spent_record_bytes += count
        self._bytes_fit(self.spent_bytes, self.spent_record_bytes, path)
        self.check_time(path)

    def take_rows(self, count: int, path: str | None = None) -> None:
        """Count `count` samples rows read."""
        self.spent_rows += count
        if self.spent_rows > self.limits.max_rows:
            what = datastore_diagnostics.RUN_ROWS.format(rows=f"{self.limits.max_rows:,}")
            raise RunLimit(self.too_large(what), path)

    def check_time(self, path: str | None = None) -> None:
        """Refuse once the run has spent its time."""
        if self.clock() - self.started > self.limits.max_seconds:
            what = datastore_diagnostics.RUN_TIME.format(seconds=int(self.limits.max_seconds))
            raise RunLimit(self.too_large(what), path)

    def _bytes_fit(self, total: int, records: int, path: str | None) -> None:
        if total > self.limits.max_bytes:
            what = datastore_diagnostics.RUN_BYTES.format(
                size=_mib(total), limit=_mib(self.limits.max_bytes)
            )
            raise RunLimit(self.too_large(what), path)
        if records > self.limits.max_record_bytes:
            what = datastore_diagnostics.RUN_RECORD_BYTES.format(
                size=_mib(records), limit=_mib(self.limits.max_record_bytes)
            )
            raise RunLimit(self.too_large(what), path)
