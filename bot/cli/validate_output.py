"""The three output formats of `evalbot validate`: text, json and GitHub annotations.

The JSON shape is a public interface (docs/validate.md#output-formats): change it only with a
migration note in the changelog.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from bot.cli import messages
from bot.report.badges import badges_for
from bot.spec.diagnostics import Diagnostic, Severity
from bot.spec.model import EntryReport, FileReport

_RED = "\033[31m"
_YELLOW = "\033[33m"
_GREEN = "\033[32m"
_DIM = "\033[2m"
_BOLD = "\033[1m"
_RESET = "\033[0m"


def counts(reports: Sequence[FileReport]) -> tuple[int, int]:
    """(errors, warnings) over every file and entry."""
    errors = warnings = 0
    for diagnostic in _all_diagnostics(reports):
        if diagnostic.is_error:
            errors += 1
        else:
            warnings += 1
    return errors, warnings


def _all_diagnostics(reports: Sequence[FileReport]) -> Iterator[Diagnostic]:
    for report in reports:
        yield from report.diagnostics
        for entry in report.entries:
            yield from entry.diagnostics


def render_json(reports: Sequence[FileReport], *, strict: bool) -> str:
    return json.dumps(to_json(reports, strict=strict), indent=2, ensure_ascii=False)


def to_json(reports: Sequence[FileReport], *, strict: bool) -> dict[str, Any]:
    errors, warnings = counts(reports)
    return {
        "ok": errors == 0 and not (strict and warnings),
        "files": [
            {
                "path": report.path,
                "kind": report.kind,
                "ok": report.ok,
                "diagnostics": [diagnostic.to_json() for diagnostic in report.diagnostics],
                "entries": [_entry_json(entry) for entry in report.entries],
            }
            for report in reports
        ],
    }


def _entry_json(report: EntryReport) -> dict[str, Any]:
    return {
        "index": report.entry.index,
        "line": report.entry.line,
        "dataset_id": report.entry.dataset_id,
        "task_id": report.entry.task_id,
        "ok": report.ok,
        "badges": [badge.value for badge in badges_for(report)],
        "verification": report.verification.to_json(),
        "diagnostics": [
            diagnostic.to_json(report.entry.index) for diagnostic in report.diagnostics
        ],
    }


def render_github(reports: Sequence[FileReport]) -> str:
    """GitHub Actions workflow commands, one per diagnostic (`::error file=…,line=…::…`)."""
    lines: list[str] = []
    for report in reports:
        for diagnostic, index in _diagnostics_of(report):
            level = "error" if diagnostic.is_error else "warning"
            properties = [f"file={_escape_property(report.path)}"]
            if diagnostic.line is not None:
                properties.append(f"line={diagnostic.line}")
            if diagnostic.column is not None:
                properties.append(f"col={diagnostic.column}")
            properties.append(f"title={_escape_property(diagnostic.code)}")
            text = diagnostic.message
            place = diagnostic.hub_path(index)
            if place is not None:
                text = f"{place}: {text}"
            if diagnostic.hint:
                text += f" ({messages.HINT}: {diagnostic.hint})"
            lines.append(f"::{level} {','.join(properties)}::{_escape_data(text)}")
    return "\n".join(lines)


def _diagnostics_of(report: FileReport) -> Iterator[tuple[Diagnostic, int | None]]:
    """Each finding with its entry's index (None: the file's)."""
    for diagnostic in report.diagnostics:
        yield diagnostic, None
    for entry in report.entries:
        for diagnostic in entry.diagnostics:
            yield diagnostic, entry.entry.index


def _escape_data(text: str) -> str:
    # https://github.com/actions/toolkit/blob/main/packages/core/src/command.ts (escapeData)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_text(reports: Sequence[FileReport], *, strict: bool, colour: bool) -> str:
    """Readable report grouped by file; ANSI colours only when `colour` (a terminal)."""

    def paint(text: str, style: str) -> str:
        return f"{style}{text}{_RESET}" if colour else text

    out: list[str] = []
    entry_total = 0
    for report in reports:
        file_errors, file_warnings = counts([report])
        entry_total += len(report.entries)
        if report.ok and not file_warnings:
            status = paint(messages.FILE_OK, _GREEN)
        else:
            status = _plural(file_errors, "error") + ", " + _plural(file_warnings, "warning")
            status = paint(status, _RED if file_errors else _YELLOW)
        out.append(f"{paint(report.path, _BOLD)}: {status}")
        out.extend(_diagnostic_lines(report.diagnostics, paint))
        for entry in report.entries:
            name = " / ".join(
                part for part in (entry.entry.dataset_id, entry.entry.task_id) if part
            )
            badges = ", ".join(badge.value for badge in badges_for(entry))
            verdict = paint("ok", _GREEN) if entry.ok else paint("invalid", _RED)
            tail = f" [{badges}]" if badges else ""
            # counted from 1, as in the PR comment; the Hub's paths count from 0 (`[0].value`)
            out.append(
                f"  entry {entry.entry.index + 1} (line {entry.entry.line}) {name}: {verdict}{tail}"
            )
            out.extend(
                _diagnostic_lines(
                    entry.diagnostics, paint, indent="    ", entry_index=entry.entry.index
                )
            )
    errors, warnings = counts(reports)
    summary = messages.SUMMARY.format(
        files=len(reports),
        file_word="file" if len(reports) == 1 else "files",
        entries=entry_total,
        entry_word="entry" if entry_total == 1 else "entries",
        errors=errors,
        error_word="error" if errors == 1 else "errors",
        warnings=warnings,
        warning_word="warning" if warnings == 1 else "warnings",
    )
    failed = errors or (strict and warnings)
    out.append(paint(summary, _RED if failed else _GREEN))
    return "\n".join(out)


def _diagnostic_lines(
    diagnostics: Sequence[Diagnostic],
    paint: Any,
    indent: str = "  ",
    *,
    entry_index: int | None = None,
) -> Iterator[str]:
    """One line per finding: place, severity, code, the field (in the Hub's notation, so it
    matches the Hub's own push-time errors) and the message; the hint below."""
    for diagnostic in diagnostics:
        where = ""
        if diagnostic.line is not None:
            where = (
                f"{diagnostic.line}:{diagnostic.column}"
                if diagnostic.column
                else str(diagnostic.line)
            )
        severity = diagnostic.severity.value
        style = _RED if diagnostic.severity is Severity.ERROR else _YELLOW
        place = diagnostic.hub_path(entry_index)
        field = f"{paint(place, _BOLD)}: " if place is not None else ""
        yield (
            f"{indent}{where:>7}  {paint(f'{severity:<7}', style)} "
            f"{paint(diagnostic.code, _DIM)}  {field}{diagnostic.message}"
        )
        if diagnostic.hint:
            yield f"{indent}{'':>7}  {paint(messages.HINT + ':', _DIM)} {diagnostic.hint}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
