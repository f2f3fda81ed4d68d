"""An instance-level (`_samples.jsonl`) file, read as a stream of chunks in memory bounded by one
row and one chunk, every row checked like a record up to the limits (docs/eee.md, "Limits")."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from bot.eee import datastore_diagnostics
from bot.strictjson import JsonError
from bot.validation.eee import EEE_JSON, INSTANCE, MAX_ERRORS, VERSIONS, check_document
from bot.validation.model import FileReport

MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_FILE_BYTES = 4 * 1024 * 1024 * 1024
#: Distinct `evaluation_id` / `model_id` values remembered; a file is meant to have one each.
MAX_IDS = 16
#: Rows checked against the schema in full; later rows are checked as strict JSON objects for
#: their ids and counted (a 1 GB file in minutes, not hours: jsonschema checks ~1,200 rows/s).
MAX_SCHEMA_ROWS = 20_000
#: The `hash_algorithm` values EEE's schemas allow.
ALGORITHMS = ("sha256", "md5")


@dataclass(slots=True)
class InstanceSummary:
    """What the pairing checks need of a samples file."""

    rows: int = 0
    size: int = 0
    algorithm: str = "sha256"
    digest: str = ""  # hex, of the file's exact bytes, by `algorithm`
    evaluation_ids: set[str] = field(default_factory=set)
    model_ids: set[str] = field(default_factory=set)
    content_ok: bool = True
    complete: bool = True  # False: a limit stopped the read


class InstanceScan:
    """Feed chunks, then `finish`; diagnostics go to `report` (its path is the file's)."""

    def __init__(
        self,
        report: FileReport,
        versions: tuple[str, ...] = VERSIONS,
        algorithm: str = "sha256",
        schema_rows: int | None = MAX_SCHEMA_ROWS,
    ) -> None:
        self._report = report
        self._schema_rows = schema_rows
        self._versions = versions
        if algorithm not in ALGORITHMS:
            algorithm = "sha256"
        # md5 is one of EEE's checksum algorithms: a content check here, not a security one.
        self._digest = hashlib.new(algorithm, usedforsecurity=False)
        self._pending = bytearray()
        self._line = 0
        self._stopped = False
        self.summary = InstanceSummary(algorithm=algorithm)

    def feed(self, chunk: bytes) -> None:
        if self._stopped:
            return
        self.summary.size += len(chunk)
        if self.summary.size > MAX_FILE_BYTES:
            self._stop(f"the samples file is over the {MAX_FILE_BYTES}-byte cap")
            return
        self._digest.update(chunk)
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            if self._pending:
                self._pending += chunk[start:end]
                line = bytes(self._pending)
                self._pending.clear()
            else:
                line = chunk[start:end]
            self._row(line)
            start = end + 1
            if self.stopped:
                return
        self._pending += chunk[start:]
        if len(self._pending) > MAX_LINE_BYTES:
            self._line += 1
            self._stop(f"line {self._line} is over the {MAX_LINE_BYTES}-byte cap for one row")

    @property
    def stopped(self) -> bool:
        """Whether a limit ended the read (the rest of the file is not looked at)."""
        return self._stopped

    def finish(self) -> InstanceSummary:
        if not self._stopped and self._pending:
            self._row(bytes(self._pending))
            self._pending.clear()
        self.summary.digest = self._digest.hexdigest()
        return self.summary

    def abandon(self) -> InstanceSummary:
        """The reader gave up mid-file: what was read stays counted, nothing is concluded
        from the rest (no checksum, no row count is compared)."""
        self._stopped = True
        self._pending.clear()
        self.summary.complete = False
        self.summary.content_ok = False
        return self.summary

    def _row(self, line: bytes) -> None:
        self._line += 1
        if not line.strip():
            return
        self.summary.rows += 1
        limit = self._schema_rows
        if limit is not None and self.summary.rows == limit + 1:
            self._report.diagnostics.append(
                datastore_diagnostics.make("EEE-SAMPLES-PARTIAL", line=self._line, rows=limit)
            )
        data: object
        if limit is not None and self.summary.rows > limit:
            data = _strict(line)
            if data is None and self._errors() < MAX_ERRORS:
                self._report.diagnostics.append(
                    datastore_diagnostics.make("EEE-SAMPLES-ROW", line=self._line)
                )
                self.summary.content_ok = False
        elif self._errors() < MAX_ERRORS:
            before = self._errors()
            data = check_document(
                self._report, line, INSTANCE, line_offset=self._line - 1, versions=self._versions
            )
            if self._errors() > before:
                self.summary.content_ok = False
        else:
            data = _loads(line)
            self.summary.content_ok = False
        if isinstance(data, dict):
            _remember(self.summary.evaluation_ids, data.get("evaluation_id"))
            _remember(self.summary.model_ids, data.get("model_id"))

    def _errors(self) -> int:
        return len(self._report.diagnostics)

    def _stop(self, problem: str) -> None:
        self._stopped = True
        self.summary.complete = False
        self.summary.content_ok = False
        self._pending.clear()
        self._report.diagnostics.append(
            datastore_diagnostics.make("EEE-SAMPLES-LIMIT", problem=problem)
        )


def scan_bytes(
    report: FileReport,
    content: bytes,
    versions: tuple[str, ...] = VERSIONS,
    algorithm: str = "sha256",
) -> InstanceSummary:
    """`InstanceScan` over bytes already in memory."""
    scan = InstanceScan(report, versions, algorithm)
    scan.feed(content)
    return scan.finish()


def _strict(line: bytes) -> dict[str, object] | None:
    """The row as a strict JSON object (`bot.validation.eee`'s reading), or None when it is not."""
    try:
        data = EEE_JSON.read(line)
    except JsonError:
        return None
    return data if isinstance(data, dict) else None


def _loads(line: bytes) -> object:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _remember(seen: set[str], value: object) -> None:
    if len(seen) < MAX_IDS:
        seen.add(value if isinstance(value, str) else json.dumps(value))
