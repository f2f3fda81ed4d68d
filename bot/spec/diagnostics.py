"""Diagnostics: what every check in evalbot reports, in the one shape all outputs share.

The JSON form is a public interface (`evalbot validate --format json`,
docs/validate.md#output-formats), so the field names here are fixed; `code` values are stable and
documented in `docs/diagnostics.md`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    """An error fails validation; a warning never does, unless `--strict` is given."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about one place in one file.

    `line` and `column` are 1-based (None when the finding concerns the whole file, or a
    field that is missing and so has no position of its own). `field` is a dotted path inside
    the entry or document, e.g. `dataset.task_id` or `metrics[1].value`.
    """

    code: str
    severity: Severity
    message: str
    line: int | None = None
    column: int | None = None
    field: str | None = None
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def hub_path(self, entry_index: int | None = None) -> str | None:
        """Where the finding is, in the notation of the Hub's own push-time errors.

        The Hub validates a results file as one array and names a place by the entry's 0-based
        index and the field within it, `[18].source.url`; printing the same lets a user match
        the bot's finding with the Hub's. `entry_index` is the entry's index for an entry's
        finding, None for a file's (then the field alone, as in a benchmark's `tasks[0].id`).
        """
        if entry_index is None:
            return self.field
        if self.field is None:
            return f"[{entry_index}]"
        separator = "" if self.field.startswith("[") else "."
        return f"[{entry_index}]{separator}{self.field}"

    def to_json(self, entry_index: int | None = None) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "field": self.field,
            "hub_path": self.hub_path(entry_index),
            "hint": self.hint,
        }
