"""A configuration file's YAML, read by the strict loader with the line of every field, and
problems naming the file, line and fix. No I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.validation.positions import dotted
from bot.validation.yamlload import load_yaml

#: Largest configuration file read (the shipped ones are a few KiB).
MAX_CONFIG_BYTES = 1024 * 1024

# A loader's message starts with the field it is about: `issuers[0].keys: ...`, or names it
# in backquotes: "`maintainers` must be a list ...".
_LEADING_FIELD = re.compile(r"(?P<field>[A-Za-z_][\w-]*(?:\[\d+\]|\.[\w-]+)*):\s")
_QUOTED_FIELD = re.compile(r"`(?P<field>[A-Za-z_][\w-]*(?:\[\d+\]|\.[\w./-]+)*)`")
_LAST_PART = re.compile(r"(\[\d+\]|\.[^.\[\]]+)$")


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """One problem of a configuration file: where it is, what it is, how to fix it."""

    path: Path
    line: int | None
    problem: str
    fix: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else str(self.path)
        return f"{where}: {self.problem} (fix: {self.fix})"


class ConfigError(ValueError):
    """A configuration file is missing, unreadable or wrong: every problem found, `str()` one
    line naming each (`; ` between them)."""

    def __init__(self, *problems: ConfigProblem) -> None:
        self.problems = problems
        super().__init__("; ".join(str(problem) for problem in problems))

    @classmethod
    def at(cls, path: Path, line: int | None, problem: str, fix: str) -> ConfigError:
        """One problem; the loader's text made one line, whatever it wrote."""
        return cls(ConfigProblem(path, line, " ".join(problem.split()), fix))

    @property
    def line(self) -> int | None:
        """The line of the first problem."""
        return self.problems[0].line

    @property
    def problem(self) -> str:
        """What the first problem is."""
        return self.problems[0].problem


@dataclass(frozen=True, slots=True)
class ConfigDocument:
    """One configuration file's data, with the line of every field (dotted path)."""

    path: Path
    data: Any
    lines: dict[str, int]
    fix: str

    def line_of(self, field: str | None) -> int | None:
        """The line of `field`, or of its nearest parent the file has (a missing key)."""
        while field:
            if field in self.lines:
                return self.lines[field]
            parent = _LAST_PART.sub("", field)
            if parent == field:
                return None
            field = parent
        return None

    def error(self, field: str | None, problem: str, fix: str | None = None) -> ConfigError:
        """A problem with `field` (a dotted path), at its line."""
        return ConfigError.at(self.path, self.line_of(field), problem, fix or self.fix)

    def error_from(self, error: Exception, fix: str | None = None) -> ConfigError:
        """A loader's error, placed at the line of the field its message names."""
        message = str(error).removeprefix(f"{self.path}: ")
        match = _LEADING_FIELD.match(message) or _QUOTED_FIELD.search(message)
        return self.error(match.group("field") if match else None, message, fix)


def parse_document(content: bytes, path: Path, *, fix: str) -> ConfigDocument:
    """Parse the bytes of the file at `path`; `fix` is the advice given with any problem.
    Raises `ConfigError` for a file that is too large or not valid YAML (at the line the
    parser stopped)."""
    if len(content) > MAX_CONFIG_BYTES:
        raise ConfigError.at(path, None, f"larger than {MAX_CONFIG_BYTES} bytes", fix)
    loaded = load_yaml(content)
    if not loaded.ok:
        first = next(diagnostic for diagnostic in loaded.diagnostics if diagnostic.is_error)
        raise ConfigError.at(path, first.line, first.message, fix)
    lines = {dotted(field): position[0] for field, position in loaded.positions.items()}
    return ConfigDocument(path, loaded.data, lines, fix)
