"""`.eval_results/<benchmark>.yaml` as main has it, plus the new entries (pure): main's entries
kept byte for byte, a clash an error unless `replace`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.submit.errors import SubmitError
from bot.validation.yamldump import dump_entries
from bot.validation.yamlload import load_yaml


def entry_key(entry: Any) -> tuple[str, str, str] | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("dataset"), dict):
        return None
    dataset = entry["dataset"]
    return (
        str(dataset.get("id", "")).lower(),
        str(dataset.get("task_id", "")),
        str(entry.get("notes", "")),
    )


def merge_results(
    main_text: str | None, new_entries: Sequence[dict[str, Any]], *, path: str, replace: bool
) -> str:
    """The file to propose: main's text with `new_entries` appended (see the module doc)."""
    added = dump_entries(new_entries)
    if main_text is None or not main_text.strip():
        return added
    loaded = load_yaml(main_text.encode("utf-8"))
    if not isinstance(loaded.data, list) or any(d.is_error for d in loaded.diagnostics):
        raise SubmitError(f"{path} on main is not a valid list of entries; fix it first")
    if not loaded.data:
        return added
    lines = main_text.splitlines(keepends=True)
    starts = [loaded.positions[(index,)][0] for index in range(len(loaded.data))]
    if any(lines[start - 1].lstrip(" ")[:1] != "-" for start in starts) or any(
        lines[start - 1][:1] != "-" for start in starts
    ):
        raise SubmitError(f"{path} on main is not a block list at column 0; edit it by hand")
    wanted = {entry_key(entry) for entry in new_entries}
    clashing = [i for i, entry in enumerate(loaded.data) if entry_key(entry) in wanted]
    if clashing and not replace:
        listed = ", ".join(f"entry {i} (line {starts[i]})" for i in clashing)
        raise SubmitError(
            f"{path} on main already has results for the same benchmark, task and notes: "
            f"{listed}; pass --replace to replace them, or set distinct `notes`"
        )
    drop: set[int] = set()
    bounds = [*starts, len(lines) + 1]
    for index in clashing:
        drop.update(range(bounds[index], bounds[index + 1]))
    head = "".join(line for number, line in enumerate(lines, 1) if number not in drop)
    if head and not head.endswith("\n"):
        head += "\n"
    return head + added
