"""Reading the operator's YAML files (`bot.yaml` with its `issuers:` and `policy:` sections,
`integrations.yaml`) so that any problem comes out as ONE line naming the file, the line, the
problem and the fix.

Why one module: the sections are read by different loaders (`bot.tokens.issuers`,
`bot.validation.validate`, `workers.botconfig`), each with its own messages naming the field; this
adds what they cannot know (the path, the line of the field) and is the one place that turns a
problem into the line `evalbot serve|worker|beat` print before they exit (docs/operating.md,
"Start-up checks"). The YAML is read with the project's strict loader (`bot.validation.yamlload`:
YAML 1.2 types, duplicate keys refused, a line for every value).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.validation.yamlload import dotted, load_yaml

#: Largest configuration file read (the shipped ones are a few KiB).
MAX_CONFIG_BYTES = 1024 * 1024

# A loader's message starts with the field it is about: `issuers[0].keys: ...`, or names it
# in backquotes: "`maintainers` must be a list ...".
_LEADING_FIELD = re.compile(r"(?P<field>[A-Za-z_][\w-]*(?:\[\d+\]|\.[\w-]+)*):\s")
_QUOTED_FIELD = re.compile(r"`(?P<field>[A-Za-z_][\w-]*(?:\[\d+\]|\.[\w./-]+)*)`")
_LAST_PART = re.compile(r"(\[\d+\]|\.[^.\[\]]+)$")


class ConfigError(ValueError):
    """A configuration file is missing, unreadable or wrong; `str()` is one line."""

    def __init__(self, path: Path, line: int | None, problem: str, fix: str) -> None:
        self.path = path
        self.line = line
        self.problem = " ".join(problem.split())  # one line, whatever the loader wrote
        self.fix = fix
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {self.problem} (fix: {fix})")


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
        return ConfigError(self.path, self.line_of(field), problem, fix or self.fix)

    def error_from(self, error: Exception, fix: str | None = None) -> ConfigError:
        """A loader's error, placed at the line of the field its message names."""
        message = str(error)
        prefix = f"{self.path}: "
        message = message.removeprefix(prefix)
        match = _LEADING_FIELD.match(message) or _QUOTED_FIELD.search(message)
        return self.error(match.group("field") if match else None, message, fix)


def read_config(path: Path, *, fix: str) -> ConfigDocument:
    """Read and parse `path`; `fix` is the advice given with any problem (how to repair it).

    Raises `ConfigError` for a file that does not exist, cannot be read, is too large, or is
    not valid YAML (at the line the parser stopped).
    """
    try:
        with path.open("rb") as handle:
            content = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(path, None, "the file does not exist", fix) from None
    except OSError as error:
        raise ConfigError(path, None, f"cannot read the file: {error.strerror}", fix) from error
    if len(content) > MAX_CONFIG_BYTES:
        raise ConfigError(path, None, f"larger than {MAX_CONFIG_BYTES} bytes", fix)
    loaded = load_yaml(content)
    if not loaded.ok:
        first = next(diagnostic for diagnostic in loaded.diagnostics if diagnostic.is_error)
        raise ConfigError(path, first.line, first.message, fix)
    lines = {dotted(field): position[0] for field, position in loaded.positions.items()}
    return ConfigDocument(path, loaded.data, lines, fix)


#: Files whose content now goes into a section of `bot.yaml`, by name: the section.
MOVED_INTO_BOT_CONFIG = {"policy.yaml": "policy", "issuers.yaml": "issuers"}


def refuse_moved_files(config_dir: Path) -> None:
    """Raise `ConfigError` when `config_dir` still holds a file whose content now goes into
    `bot.yaml`: no longer read, it would be ignored in silence, and an ignored policy or
    issuer list changes verdicts."""
    for name, section in MOVED_INTO_BOT_CONFIG.items():
        path = config_dir / name
        if path.exists():
            raise ConfigError(
                path,
                None,
                f"{name} is no longer read: its content now goes under `{section}:` in "
                f"bot.yaml beside it",
                f"move its content, indented, under `{section}:` in {config_dir / 'bot.yaml'}, "
                'then delete the file (docs/operating.md, "Configuration files")',
            )


#: Seconds between two reconciliation runs when `bot.yaml` says nothing (docs/operating.md,
#: "Reconciliation"): a missed webhook's PR is caught within five minutes, at a few Hub
#: calls per run.
DEFAULT_RECONCILE_INTERVAL_S = 300
RECONCILE_FIX = 'see docs/operating.md, "Reconciliation"'


def reconcile_interval_s(bot_config: Path) -> int:
    """`reconcile.interval_s` of the bot config at `bot_config`: seconds between two
    reconciliation runs, 0 for none. Read apart from the rest of the file because the Space
    supervisor and Celery's beat schedule need it before (and without) a worker's runtime; the
    rest of `reconcile:` is checked by `workers.botconfig`. Raises `ConfigError`."""
    if not bot_config.is_file():
        return DEFAULT_RECONCILE_INTERVAL_S
    try:
        document = read_config(bot_config, fix=RECONCILE_FIX)
    except ConfigError:
        return DEFAULT_RECONCILE_INTERVAL_S  # the file's own check reports it, at its line
    data = document.data if isinstance(document.data, dict) else {}
    reconcile = data.get("reconcile")
    if not isinstance(reconcile, dict) or "interval_s" not in reconcile:
        return DEFAULT_RECONCILE_INTERVAL_S
    value = reconcile["interval_s"]
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise document.error(
            "reconcile.interval_s",
            "`reconcile.interval_s` must be a whole number of seconds, 0 or more "
            "(0: no reconciliation)",
        )
    return value
