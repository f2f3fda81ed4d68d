"""YAML configuration read with line numbers, so a broken `integrations.yaml` stops the issuer
naming its file, line and field."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml


class ConfigError(ValueError):
    """A configuration file is missing or wrong; the message names the file, line and field."""


class LineDict(dict[str, Any]):
    """A mapping that remembers the 1-based line it started on."""

    line: int = 0


class _LineLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineDict:
    mapping = LineDict()
    mapping.line = node.start_mark.line + 1
    seen: set[Any] = set()
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise ConfigError(f"line {key_node.start_mark.line + 1}: duplicate key {key!r}")
        seen.add(key)
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

#: An integer as a person writes one. YAML 1.1 also reads `0123` as 83 (octal), `190:20` as
#: 11420 (base 60), `0x1F` and `1_000`: an id pinned that way would silently be another one.
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")


def _construct_int(loader: _LineLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    if not _DECIMAL.fullmatch(text):
        raise ConfigError(
            f"line {node.start_mark.line + 1}: {text!r} is read as an integer in another "
            "notation than decimal; write it in decimal, or quote it"
        )
    return int(text)


_LineLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def load_config(path: Path) -> Any:
    """The parsed file; `ConfigError` naming the file (and line) when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from error
    try:
        return yaml.load(text, Loader=_LineLoader)  # noqa: S506 - a SafeLoader subclass
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from error
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise ConfigError(f"{path}: {where}not valid YAML: {error}") from error


def line_of(value: Any) -> int:
    return value.line if isinstance(value, LineDict) else 0
