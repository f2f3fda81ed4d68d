"""Edits to a YAML file's text that keep every byte they do not touch, each checked by reading
the result back (pure; docs/validate.md, "How fixes are written")."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.positions import Path
from bot.validation.yaml11 import is_ambiguous, same_value
from bot.validation.yamlload import load_yaml, resolve_plain

BOM = "\ufeff"
#: The key YAML 1.1 reads as "merge that mapping's keys into this one" when written plain.
MERGE_KEY = "<<"
#: strings written plain: unmistakably strings for YAML 1.1 and 1.2, in any context
PLAIN_STRING = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*\Z")
_COMMENT_AFTER = re.compile(r"( +)#")


class EditError(Exception):
    """The edit cannot be made as asked: the file does not parse, a path is not in it, or the
    result would not read back as the old data with exactly the edit made."""


@dataclass(slots=True)
class Place:
    """Where one node of the document is: its key's span (in a mapping), its own span, and for
    a scalar its style (`''` plain, `'`, `"`, `|`, `>`)."""

    key: tuple[int, int] | None
    span: tuple[int, int]
    kind: str  # "scalar", "mapping", "sequence" or "alias"
    style: str = ""
    flow: bool = False
    last_line: int = 0  # 0-based line of the node's last content
    anchor: str | None = None  # its `&name`, or for an alias the `*name` it stands for
    merges: bool = False  # a mapping with a `<<` key (a YAML 1.1 merge)


@dataclass(slots=True)
class Document:
    """A file's text (without its byte-order mark) and where each of its nodes is."""

    text: str
    bom: bool
    newline: str
    places: dict[Path, Place] = field(default_factory=dict)

    @classmethod
    def parse(cls, content: bytes) -> Document:
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as error:
            raise EditError("the file is not UTF-8") from error
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        newline = "\r\n" if "\r\n" in text.split("\n", 1)[0] + "\n" else "\n"
        document = cls(text=text, bom=bom, newline=newline)
        document.places = _places(text)
        return document

    def encode(self, text: str) -> bytes:
        return ((BOM if self.bom else "") + text).encode("utf-8")

    def place(self, path: Path) -> Place:
        """The node at `path`, refused (EditError) when an edit there could change another
        node too: it is, or is inside, an anchored node (its aliases share it), an alias, or a
        mapping that merges another (`<<:`)."""
        for depth in range(len(path) + 1):
            shared = self.places.get(path[:depth])
            if shared is not None:
                _refuse_shared(path[:depth], shared)
        found = self.places.get(path)
        if found is None:
            raise EditError(f"`{dotted_path(path)}` is not in the file as written")
        return found


def _places(text: str) -> dict[Path, Place]:
    """Every node's place, from libyaml's events (the same parser the strict loader uses)."""
    loader = yaml.CSafeLoader(text) if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader(text)
    places: dict[Path, Place] = {}
    stack: list[_Open] = []
    try:
        while True:
            event: Any = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                break
            if isinstance(event, yaml.StreamStartEvent | yaml.DocumentStartEvent):
                continue
            if isinstance(event, yaml.DocumentEndEvent):
                continue
            if isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                closed = stack.pop()
                places[closed.path].last_line = closed.last_line
                if stack:
                    stack[-1].last_line = max(stack[-1].last_line, closed.last_line)
                continue
            span = (event.start_mark.index, event.end_mark.index)
            key_span: tuple[int, int] | None = None
            if not stack:
                path: Path = ()
            elif stack[-1].is_map and stack[-1].key is None:
                top = stack[-1]
                key = event.value if isinstance(event, yaml.ScalarEvent) else ""
                top.key = (key, span)
                if key == MERGE_KEY and not getattr(event, "style", None):
                    places[top.path].merges = True
                continue
            elif stack[-1].is_map:
                top = stack[-1]
                assert top.key is not None
                (key, key_span), top.key = top.key, None
                path = (*top.path, key)
            else:
                top = stack[-1]
                path = (*top.path, top.count)
                top.count += 1
            line = event.end_mark.line
            if stack:
                stack[-1].last_line = max(stack[-1].last_line, line)
            anchor = event.anchor
            if isinstance(event, yaml.ScalarEvent):
                places[path] = Place(
                    key_span, span, "scalar", event.style or "", last_line=line, anchor=anchor
                )
            elif isinstance(event, yaml.AliasEvent):
                places[path] = Place(key_span, span, "alias", last_line=line, anchor=anchor)
            else:
                is_map = isinstance(event, yaml.MappingStartEvent)
                kind = "mapping" if is_map else "sequence"
                start_line = event.start_mark.line
                places[path] = Place(
                    key_span,
                    span,
                    kind,
                    flow=bool(event.flow_style),
                    last_line=start_line,
                    anchor=anchor,
                )
                stack.append(_Open(path, is_map, last_line=start_line))
    except yaml.YAMLError as error:
        raise EditError(f"the file does not parse: {error}") from error
    finally:
        loader.dispose()
    return places


@dataclass(slots=True)
class _Open:
    """A collection being read: its path, the key waiting for its value (a mapping's), the
    items so far (a list's), and the last line of what it holds so far."""

    path: Path
    is_map: bool
    key: tuple[Any, tuple[int, int]] | None = None
    count: int = 0
    last_line: int = 0


def dotted_path(path: Path) -> str:
    """`path` as `a.0.b`, or `(the document)` for the root."""
    return ".".join(str(part) for part in path) or "(the document)"


def _refuse_shared(path: Path, place: Place) -> None:
    """EditError when the node at `path` is shared with other nodes of the file, so that an
    edit in it would change them too (the strict reader shares an anchored node with its
    aliases; a YAML 1.1 reader copies a merged mapping's keys)."""
    where = f"`{dotted_path(path)}`"
    if place.kind == "alias":
        raise EditError(
            f"{where} is an alias (`*{place.anchor}`) of another part of the file; not edited"
            f" through it: fix the anchored original, or write the values out in place of"
            f" the alias"
        )
    if place.anchor is not None:
        raise EditError(
            f"{where} is anchored (`&{place.anchor}`), so every alias of it would change too;"
            " not edited: write the values out where each alias is, then fix"
        )
    if place.merges:
        raise EditError(
            f"{where} merges another mapping (`<<:`), which YAML readers do not read alike;"
            " not edited: write the merged keys out in place of `<<:`, then fix"
        )


# --- rendering a scalar ----------------------------------------------------------------------


def scalar_text(value: str | int | float, style: str = "") -> str:
    """`value` as YAML text every reader reads back as it: a string plain when it is
    unmistakably one, else in the quotes it had (`style`), else double-quoted."""
    if not isinstance(value, str):
        text = repr(value) if isinstance(value, float) else str(value)
        if not same_value(resolve_plain(text), value):
            raise EditError(f"{value!r} has no plain YAML form")
        return text
    if style == "" and PLAIN_STRING.match(value) and plain_safe(value):
        return value
    if style == "'" and value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    return json.dumps(value, ensure_ascii=False)


def plain_safe(value: str) -> bool:
    try:
        return resolve_plain(value) == value and not is_ambiguous(value, value)
    except ValueError:
        return False


# --- edits to the text -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text in `span` with `text`; `apply` is the same change made on the data."""

    span: tuple[int, int]
    text: str
    apply: Callable[[Any], Any]


def set_value(document: Document, path: Path, value: Any, text: str | None = None) -> Edit:
    """The scalar at `path` becomes `value`, written as `text` (else as `scalar_text` writes
    it in the scalar's own quotes)."""
    place = document.place(path)
    if place.kind != "scalar":
        raise EditError(f"`{dotted_path(path)}` is not a single value")
    written = text if text is not None else scalar_text(value, place.style)
    return Edit(place.span, written, lambda data: _set(data, path, value))


def rename_key(document: Document, path: Path, new_key: str) -> Edit:
    """The key of `path` becomes `new_key`, in its place among the mapping's keys."""
    place = document.place(path)
    if place.key is None:
        raise EditError(f"`{dotted_path(path)}` has no key to rename")
    start = place.key[0]
    style = document.text[start] if document.text[start] in "'\"" else ""
    return Edit(place.key, scalar_text(new_key, style), lambda data: _rename(data, path, new_key))


def _set(data: Any, path: Path, value: Any) -> Any:
    parent = value_at(data, path[:-1])
    parent[path[-1]] = value
    return data


def _rename(data: Any, path: Path, new_key: str) -> Any:
    parent = value_at(data, path[:-1])
    if new_key in parent:
        raise EditError(f"`{new_key}` is there already")
    items = [(new_key if key == path[-1] else key, value) for key, value in parent.items()]
    parent.clear()
    parent.update(items)
    return data


def value_at(data: Any, path: Path) -> Any:
    """The value at `path` in `data`."""
    for part in path:
        data = data[part]
    return data


def apply_edits(content: bytes, edits: Sequence[Edit], limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The file with `edits` made (their spans must not overlap): each span's text replaced,
    a comment after it on its line kept at its column where the spaces allow. Raises EditError
    unless the result reads back as the old data with exactly the edits made."""
    document = Document.parse(content)
    before = load_yaml(content, limits)
    if not before.ok:
        raise EditError("the file does not load")
    expected = before.data
    for edit in edits:
        expected = edit.apply(expected)
    text = document.text
    for edit in sorted(edits, key=lambda item: item.span[0], reverse=True):
        start, end = edit.span
        text = text[:start] + edit.text + _keep_comment_column(text[end:], end - start, edit.text)
    result = document.encode(text)
    _check(result, expected, limits)
    return result


def _keep_comment_column(rest: str, old_length: int, new: str) -> str:
    """The rest of the line after an edit, with the spaces before a comment adjusted so the
    comment stays in its column (one space at least)."""
    match = _COMMENT_AFTER.match(rest)
    if match is None:
        return rest
    spaces = len(match.group(1)) - (len(new) - old_length)
    return " " * max(1, spaces) + rest[len(match.group(1)) :]


def _check(result: bytes, expected: Any, limits: Limits) -> None:
    after = load_yaml(result, limits)
    if not after.ok or not same_data(after.data, expected):
        raise EditError("the edited file would not read back as intended; nothing is written")


def same_data(left: Any, right: Any) -> bool:
    """Equal as YAML data, types and key order included (`1`, `1.0` and `true` differ)."""
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and list(left) == list(right)
            and all(same_data(left[key], right[key]) for key in left)
        )
    if isinstance(left, list):
        return (
            isinstance(right, list)
            and len(left) == len(right)
            and all(same_data(a, b) for a, b in zip(left, right, strict=True))
        )
    return same_value(left, right)
