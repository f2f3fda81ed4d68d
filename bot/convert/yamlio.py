"""Entries to YAML bytes and back, and the merge of new entries into an existing file that keeps
the lines of the entries it does not replace (`bot.validation.yamlwrite`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from bot.convert.scale import Scaled
from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.yamledit import EditError
from bot.validation.yamlload import NumberTooLong, load_yaml, resolve_plain
from bot.validation.yamlwrite import replace_and_append


class MergeError(Exception):
    """The existing results file cannot be merged into (it is not a valid list of entries)."""


_BASE: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BASE):  # type: ignore[valid-type,misc]
    """The safe dumper (libyaml's emitter when PyYAML has it: ~10x faster), quoting also the
    strings a YAML 1.2 reader would not read back as strings: PyYAML resolves by YAML 1.1, so
    it writes the text `1e3` plain, which YAML 1.2 (and evalbot's loader) reads as 1000.0."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    try:
        resolved = resolve_plain(value)  # once: every string of every entry passes here
    except NumberTooLong:
        plain_is_text = False
    else:
        plain_is_text = isinstance(resolved, str) and resolved == value
    if not plain_is_text:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="'")
    return dumper.represent_str(value)


def _represent_scaled(dumper: yaml.SafeDumper, value: Scaled) -> yaml.ScalarNode:
    """A rescaled value as its exact decimal text (bot.convert.scale), not the double's."""
    return dumper.represent_scalar("tag:yaml.org,2002:float", value.text)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(Scaled, _represent_scaled)


def dump_entries(entries: list[dict[str, Any]]) -> bytes:
    text = yaml.dump(entries, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return text.encode("utf-8")


def entry_key(entry: dict[str, Any]) -> tuple[str, Any, Any]:
    """What makes two entries one leaderboard cell (docs/decisions.md#entries): benchmark, task,
    notes."""
    raw = entry.get("dataset")
    dataset: dict[str, Any] = raw if isinstance(raw, dict) else {}
    dataset_id = dataset.get("id")
    return (
        dataset_id.lower() if isinstance(dataset_id, str) else "",
        dataset.get("task_id"),
        entry.get("notes"),
    )


@dataclass(slots=True)
class Merged:
    """An existing results file with new entries merged in: its bytes, and which entries were
    added and which replaced one of the file (by its 0-based index)."""

    content: bytes
    added: list[dict[str, Any]] = field(default_factory=list)
    replaced: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


def merge(
    existing: bytes | None, new: list[dict[str, Any]], limits: Limits = DEFAULT_LIMITS
) -> Merged:
    """The existing file with each new entry replacing its cell's entry, else appended after
    the last one. Lines of the entries kept stay as they are, comments included
    (`bot.validation.yamlwrite`); a new file is written whole."""
    if existing is None or not existing.strip():
        return Merged(dump_entries(new), added=list(new))
    loaded = load_yaml(existing, limits)
    if not loaded.ok:
        first = next(d for d in loaded.diagnostics if d.is_error)
        raise MergeError(f"line {first.line}: {first.message}")
    if not isinstance(loaded.data, list):
        raise MergeError("the file is not a YAML list of entries")
    positions = {
        entry_key(item): index for index, item in enumerate(loaded.data) if isinstance(item, dict)
    }
    merged = Merged(b"")
    replace: dict[int, dict[str, Any]] = {}
    for entry in new:
        index = positions.get(entry_key(entry))
        if index is None:
            merged.added.append(entry)
        else:
            replace[index] = entry
            merged.replaced.append((index, entry))
    try:
        merged.content = replace_and_append(existing, (), replace, merged.added, limits=limits)
    except EditError as error:
        raise MergeError(f"{error}; merge the entries by hand") from error
    return merged
