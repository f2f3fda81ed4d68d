"""Positions of fields inside a loaded document, for diagnostics that point at a line."""

from __future__ import annotations

from collections.abc import Mapping

from bot.spec import messages
from bot.spec.diagnostics import Diagnostic
from bot.spec.yamlload import Path, Position, dotted


class Locator:
    """Finds the line and column of a path; a missing field falls back to its parent's line.

    Entry checks get the positions of their own entry (`bot.spec.entries.split_by_item`), so
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

    def diagnostic(self, code: str, path: Path, **params: object) -> Diagnostic:
        line, column = self.at(path)
        return messages.make(code, line=line, column=column, field=dotted(path) or None, **params)
