"""Where a field is: its path, its 1-based (line, column), its dotted name as diagnostics show
it, and `Locator`, which turns the positions the loader recorded into a diagnostic's line."""

from __future__ import annotations

from collections.abc import Mapping

from bot.validation import diagnostics
from bot.validation.diagnostics import Diagnostic

Path = tuple[str | int, ...]
Position = tuple[int, int]


def dotted(path: Path) -> str:
    """`("metrics", 1, "value")` -> `metrics[1].value`; the form diagnostics use for fields."""
    parts: list[str] = []
    for part in path:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif parts:
            parts.append(f".{part}")
        else:
            parts.append(part)
    return "".join(parts)


class Locator:
    """Finds the line and column of a path; a missing field falls back to its parent's line.

    Entry checks get the positions of their own entry (`bot.validation.entry.split_by_item`), so
    they speak in paths relative to the entry (`dataset.id`), as diagnostics show them.
    """

    def __init__(self, positions: Mapping[Path, Position]) -> None:
        self.positions = positions

    def at(self, path: Path) -> tuple[int | None, int | None]:
        """(line, column) of `path`; for a missing field, the line of the nearest parent."""
        full = path
        position = self.positions.get(full)
        if position is not None:
            return position
        while full:
            full = full[:-1]
            position = self.positions.get(full)
            if position is not None:
                return position[0], None
        return None, None

    def diagnostic(
        self, code: str, path: Path, *, fix: diagnostics.Fix | None = None, **params: object
    ) -> Diagnostic:
        line, column = self.at(path)
        return diagnostics.make(
            code, line=line, column=column, field=dotted(path) or None, fix=fix, **params
        )
