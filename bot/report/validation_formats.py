"""A validation's findings as people and machines read them: text, JSON (public:
docs/validate.md#output-formats) and GitHub annotations. Pure; printing stays in `bot.cli`."""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from bot.report import comment_texts
from bot.report.badges import badges_for
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.eee import records_in
from bot.validation.model import EntryReport, FileReport, SourceStatus


class Style(enum.Enum):
    """What a span of the text report is, for a caller that colours it."""

    BOLD = "bold"
    DIM = "dim"
    OK = "ok"
    WARNING = "warning"
    ERROR = "error"


#: Marks a span of the text report with its `Style`; `plain` leaves it as it is.
Paint = Callable[[str, Style], str]


def plain(text: str, style: Style) -> str:
    """No colours: what `render_text` writes unless asked otherwise."""
    return text


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
        "source": None if report.source is None else report.source.to_json(),
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
            properties = [f"file={workflow_property(report.path)}"]
            if diagnostic.line is not None:
                properties.append(f"line={diagnostic.line}")
            if diagnostic.column is not None:
                properties.append(f"col={diagnostic.column}")
            properties.append(f"title={workflow_property(diagnostic.code)}")
            text = diagnostic.message
            place = diagnostic.hub_path(index)
            if place is not None:
                text = f"{place}: {text}"
            if diagnostic.hint:
                text += f" ({comment_texts.VALIDATE_HINT}: {diagnostic.hint})"
            lines.append(f"::{level} {','.join(properties)}::{workflow_data(text)}")
    return "\n".join(lines)


def _diagnostics_of(report: FileReport) -> Iterator[tuple[Diagnostic, int | None]]:
    """Each finding with its entry's index (None: the file's)."""
    for diagnostic in report.diagnostics:
        yield diagnostic, None
    for entry in report.entries:
        for diagnostic in entry.diagnostics:
            yield diagnostic, entry.entry.index


def workflow_data(text: str) -> str:
    """`text` as the message of a GitHub workflow command (after its `::`)."""
    # https://github.com/actions/toolkit/blob/main/packages/core/src/command.ts (escapeData)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """`text` as a property value of a GitHub workflow command (`file=`, `title=`)."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def render_text(reports: Sequence[FileReport], *, strict: bool, paint: Paint = plain) -> str:
    """Readable report grouped by file, each span passed through `paint` (colours, if any)."""
    out: list[str] = []
    for report in reports:
        file_errors, file_warnings = counts([report])
        if report.ok and not file_warnings:
            status = paint(comment_texts.VALIDATE_FILE_OK, Style.OK)
        else:
            status = comment_texts.VALIDATE_FILE_COUNTS.format(
                errors=file_errors,
                error_word=comment_texts.plural(file_errors, "error"),
                warnings=file_warnings,
                warning_word=comment_texts.plural(file_warnings, "warning"),
            )
            status = paint(status, Style.ERROR if file_errors else Style.WARNING)
        out.append(f"{paint(report.path, Style.BOLD)}: {status}")
        out.extend(diagnostic_lines(report.diagnostics, paint, path=report.path))
        for entry in report.entries:
            name = " / ".join(
                part for part in (entry.entry.dataset_id, entry.entry.task_id) if part
            )
            badges = ", ".join(badge.value for badge in badges_for(entry))
            verdict = paint("ok", Style.OK) if entry.ok else paint("invalid", Style.ERROR)
            tail = f" [{badges}]" if badges else ""
            tail += source_text(entry)
            # counted from 1, as in the PR comment; the Hub's paths count from 0 (`[0].value`)
            out.append(
                f"  entry {entry.entry.index + 1} (line {entry.entry.line}) {name}: {verdict}{tail}"
            )
            out.extend(
                diagnostic_lines(
                    entry.diagnostics, paint, path=report.path, entry_index=entry.entry.index
                )
            )
    errors, warnings = counts(reports)
    summary = comment_texts.VALIDATE_SUMMARY.format(
        files=len(reports),
        file_word=comment_texts.plural(len(reports), "file"),
        checked=checked_counts(reports),
        errors=errors,
        error_word=comment_texts.plural(errors, "error"),
        warnings=warnings,
        warning_word=comment_texts.plural(warnings, "warning"),
    )
    failed = errors or (strict and warnings)
    out.append(paint(summary, Style.ERROR if failed else Style.OK))
    return "\n".join(out)


def checked_counts(reports: Sequence[FileReport]) -> str:
    """What the run checked, by kind: entries of results files, benchmarks, records of EEE
    files; kinds with nothing checked are left out (results files with no entry still say
    `0 entries`)."""
    results = [report for report in reports if report.kind == "results"]
    parts = []
    if results or not reports:
        entries = sum(len(report.entries) for report in results)
        parts.append(
            comment_texts.VALIDATE_ENTRIES.format(
                entries=entries, entry_word=comment_texts.plural(entries, "entry", "entries")
            )
        )
    benchmarks = sum(1 for report in reports if report.kind == "benchmark")
    if benchmarks:
        parts.append(
            comment_texts.VALIDATE_BENCHMARKS.format(
                benchmarks=benchmarks, benchmark_word=comment_texts.plural(benchmarks, "benchmark")
            )
        )
    eee = [report for report in reports if report.kind == "eee"]
    if eee:
        records = records_in(eee)
        parts.append(
            comment_texts.VALIDATE_RECORDS.format(
                records=records, record_word=comment_texts.plural(records, "record")
            )
        )
    return ", ".join(parts)


def diagnostic_lines(
    diagnostics: Sequence[Diagnostic],
    paint: Paint = plain,
    *,
    path: str,
    entry_index: int | None = None,
) -> Iterator[str]:
    """One line per finding, `path:line:col: CODE severity field: message` as compilers and
    ruff print them (terminals and editors open the file at that place), the field in the Hub's
    notation (so it matches the Hub's own push-time errors); the hint on the line below."""
    for diagnostic in diagnostics:
        where = path
        if diagnostic.line is not None:
            where += f":{diagnostic.line}" + (f":{diagnostic.column}" if diagnostic.column else "")
        severity = diagnostic.severity.value
        style = Style.ERROR if diagnostic.severity is Severity.ERROR else Style.WARNING
        place = diagnostic.hub_path(entry_index)
        field = f"{paint(place, Style.BOLD)}: " if place is not None else ""
        yield (
            f"{paint(where, Style.BOLD)}: {paint(diagnostic.code, Style.DIM)} "
            f"{paint(severity, style)} {field}{diagnostic.message}"
        )
        if diagnostic.hint:
            hint = paint(comment_texts.VALIDATE_HINT + ":", Style.DIM)
            yield f"  {hint} {diagnostic.hint}"


def source_text(entry: EntryReport) -> str:
    """What became of the entry's source record, for the text report ("" for a plain link)."""
    source = entry.source
    if source is None or source.status is SourceStatus.LINKED:
        return ""
    if source.status is SourceStatus.CHECKED:
        record = source.record_id or source.path
        return f"; source checked against record {record} at {source.revision}"
    if source.status is SourceStatus.UNREADABLE:
        return f"; source record not checked: {source.reason}"
    return "; source disagrees with its record"
