"""The rows suggested for unmapped scores, added to a mappings file (pure): what
`evalbot convert --write-mappings FILE` writes (docs/convert.md, "Writing the rows")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.convert.mapping import Fields, row_values
from bot.validation.yamledit import EditError
from bot.validation.yamlload import load_yaml
from bot.validation.yamlwrite import Layout, dump_items, replace_and_append

HEADER = (
    "# Mapping rows for `evalbot convert --mappings` (docs/convert.md#the-mapping-table), first\n"
    "# written by `evalbot convert --write-mappings`. Complete each row marked TODO(evalbot):\n"
    "# a row with a <placeholder> is refused until it is.\n"
    "mappings:\n"
)
#: new files lay rows out as the printed suggestions are: one flow mapping a line
NEW_FILE_LAYOUT = Layout(dash_column=2, flow_items=True)


class RowsFileError(Exception):
    """The mappings file cannot take rows: it does not load, or has no `mappings:` list."""


@dataclass(slots=True)
class AddedRows:
    """The file's new bytes (None: nothing to add), and the rows added, to complete, skipped."""

    content: bytes | None = None
    added: int = 0
    todo: int = 0
    already: int = 0
    keys: set[tuple[str, str, str]] = field(default_factory=set)

    def summary(self) -> str:
        if not self.added:
            return f"no row added ({self.already} already there)"
        todo = f", {self.todo} to complete where marked TODO(evalbot)" if self.todo else ""
        already = f"; {self.already} already there" if self.already else ""
        return f"added {self.added} row(s){todo}{already}"


def add_rows(name: str, existing: bytes | None, suggested: Sequence[Fields]) -> AddedRows:
    """`existing` (None: no file yet) with the `suggested` rows it does not have yet."""
    result = AddedRows()
    present = _present(name, existing)
    rows: list[dict[str, Any]] = []
    comments: list[str | None] = []
    for fields in suggested:
        values = row_values(fields)
        key = (values["framework"], values["task"], values["metric"])
        if key in present or key in result.keys:
            result.already += key in present
            continue
        result.keys.add(key)
        unknown = [key for key, value in fields if value is None]
        rows.append(values)
        comments.append(
            f"TODO(evalbot): set the {', '.join(unknown)} (see its eval.yaml)" if unknown else None
        )
        result.todo += bool(unknown)
    result.added = len(rows)
    if not rows:
        return result
    if existing is None or not existing.strip():
        result.content = (HEADER + dump_items(rows, NEW_FILE_LAYOUT, comments)).encode("utf-8")
        _check(name, result.content, len(rows))
        return result
    try:
        result.content = replace_and_append(existing, ("mappings",), {}, rows, comments=comments)
    except EditError as error:
        raise RowsFileError(f"{name}: {error}; add the rows by hand") from error
    return result


def _present(name: str, existing: bytes | None) -> set[tuple[Any, Any, Any]]:
    """The (framework, task, metric) of the rows the file has."""
    if existing is None or not existing.strip():
        return set()
    loaded = load_yaml(existing)
    if not loaded.ok:
        first = next(d for d in loaded.diagnostics if d.is_error)
        raise RowsFileError(f"{name}:{first.line}: {first.message}")
    rows = loaded.data.get("mappings") if isinstance(loaded.data, dict) else None
    if not isinstance(rows, list):
        raise RowsFileError(f"{name}: expected `mappings:` with a list of rows")
    return {
        (row.get("framework"), row.get("task"), row.get("metric"))
        for row in rows
        if isinstance(row, dict)
    }


def _check(name: str, content: bytes, count: int) -> None:
    loaded = load_yaml(content)
    rows = loaded.data.get("mappings") if loaded.ok and isinstance(loaded.data, dict) else None
    if not isinstance(rows, list) or len(rows) != count:
        raise RowsFileError(f"{name}: the rows written would not read back; nothing is written")
