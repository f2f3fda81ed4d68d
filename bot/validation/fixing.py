"""The fixes of a validated results file, made on its bytes (pure): what `evalbot validate --fix`
writes, never a change to a signed entry's values (docs/validate.md, "Fixing")."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.validation.diagnostics import Diagnostic, Fix
from bot.validation.model import FileReport
from bot.validation.positions import Path
from bot.validation.yamledit import Document, Edit, EditError, apply_edits, rename_key, set_value

SIGNED = (
    "the entry is signed (its token covers this value): ask its issuer for a token over the"
    " corrected entry"
)


@dataclass(frozen=True, slots=True)
class Change:
    """One fix made: the finding it resolves, and what became what (`old` -> `new` text)."""

    diagnostic: Diagnostic
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class NotMade:
    """A finding whose fix was not made, and why."""

    diagnostic: Diagnostic
    reason: str


@dataclass(slots=True)
class FileFixes:
    """What fixing one file gives: its new bytes (None: unchanged), its new repo-relative
    path (None: not renamed), the changes made and the fixes not made."""

    path: str
    content: bytes | None = None
    rename: str | None = None
    changes: list[Change] = field(default_factory=list)
    not_made: list[NotMade] = field(default_factory=list)


def fix_file(report: FileReport, content: bytes) -> FileFixes:
    """Make the fixes `report`'s findings carry on `content`, the file's bytes."""
    result = FileFixes(report.path)
    planned: list[tuple[Diagnostic, Path, Fix]] = []
    renames: list[tuple[Diagnostic, Fix]] = []
    for diagnostic in report.diagnostics:
        if diagnostic.fix is not None and diagnostic.fix.action == "rename-file":
            renames.append((diagnostic, diagnostic.fix))
    for entry in report.entries:
        # A misspelt token key fixed in this pass makes the entry signed: its other values
        # are then as untouchable as those of an entry whose token was spelt right.
        signed = entry.entry.token is not None or any(
            diagnostic.fix is not None and diagnostic.fix.reveals_token
            for diagnostic in entry.diagnostics
        )
        for diagnostic in entry.diagnostics:
            fix = diagnostic.fix
            if fix is None:
                continue
            if fix.action == "rename-file":
                renames.append((diagnostic, fix))
            elif signed and not fix.keeps_value and not fix.reveals_token:
                result.not_made.append(NotMade(diagnostic, SIGNED))
            else:
                planned.append((diagnostic, (entry.entry.index, *fix.path), fix))
    if planned:
        _edit(result, content, planned)
    _rename(result, renames)
    return result


def _edit(result: FileFixes, content: bytes, planned: list[tuple[Diagnostic, Path, Fix]]) -> None:
    try:
        document = Document.parse(content)
    except EditError as error:
        result.not_made.extend(NotMade(diagnostic, str(error)) for diagnostic, _, _ in planned)
        return
    edits: list[tuple[Diagnostic, Edit]] = []
    taken: set[tuple[int, int]] = set()
    for diagnostic, path, fix in planned:
        try:
            edit = (
                rename_key(document, path, str(fix.value))
                if fix.action == "rename-key"
                else set_value(document, path, fix.value, fix.text)
            )
        except EditError as error:
            result.not_made.append(NotMade(diagnostic, str(error)))
            continue
        if edit.span in taken:
            continue  # two findings with the same fix (a field both misspelt and ambiguous)
        taken.add(edit.span)
        edits.append((diagnostic, edit))
    if not edits:
        return
    try:
        result.content = apply_edits(content, [edit for _, edit in edits])
    except EditError:
        _edit_one_by_one(result, content, [diagnostic for diagnostic, _ in edits], planned)
        return
    for diagnostic, edit in edits:
        old = document.text[edit.span[0] : edit.span[1]]
        result.changes.append(Change(diagnostic, old, edit.text))


def _edit_one_by_one(
    result: FileFixes,
    content: bytes,
    diagnostics: list[Diagnostic],
    planned: list[tuple[Diagnostic, Path, Fix]],
) -> None:
    """The edits made one at a time, each planned on the text as the previous ones left it,
    so that the one the result's check refuses is told apart from the others."""
    by_diagnostic = {id(diagnostic): (path, fix) for diagnostic, path, fix in planned}
    current = content
    for diagnostic in diagnostics:
        path, fix = by_diagnostic[id(diagnostic)]
        try:
            document = Document.parse(current)
            edit = (
                rename_key(document, path, str(fix.value))
                if fix.action == "rename-key"
                else set_value(document, path, fix.value, fix.text)
            )
            current = apply_edits(current, [edit])
        except EditError as error:
            result.not_made.append(NotMade(diagnostic, str(error)))
            continue
        old = document.text[edit.span[0] : edit.span[1]]
        result.changes.append(Change(diagnostic, old, edit.text))
    if result.changes:
        result.content = current


def _rename(result: FileFixes, renames: list[tuple[Diagnostic, Fix]]) -> None:
    """One rename per file: the naming rule's (FILE-NAME) when both it and the path rule's
    (FILE-PATH) ask, since it also gives the `.yaml` the path rule wants."""
    if not renames:
        return
    chosen = next(
        ((d, f) for d, f in renames if d.code == "FILE-NAME"),
        renames[0],
    )
    targets = {str(fix.value) for diagnostic, fix in renames if diagnostic.code == chosen[0].code}
    if len(targets) > 1:
        result.not_made.extend(
            NotMade(diagnostic, "its entries ask for different names") for diagnostic, _ in renames
        )
        return
    result.rename = str(chosen[1].value)
    for diagnostic, _fix in renames:
        result.changes.append(Change(diagnostic, result.path, result.rename))
