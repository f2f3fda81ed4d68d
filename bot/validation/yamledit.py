"""Edits to a YAML file's text that keep every byte they do not touch, each checked by reading
the result back (pure; docs/validate.md, "How fixes are written")."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.positions import Path
from bot.validation.yaml11 import is_ambiguous, same_value
from bot.validation.yamlload import load_yaml, resolve_plain

BOM = "\ufeff"
#: strings written plain: unmistakably strings for YAML 1.1 and 1.2, in any context
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*\Z")
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
        found = self.places.get(path)
        if found is None:
            raise EditError(f"`{_dotted(path)}` is not in the file as written")
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
            if isinstance(event, yaml.ScalarEvent):
                places[path] = Place(key_span, span, "scalar", event.style or "", last_line=line)
            elif isinstance(event, yaml.AliasEvent):
                places[path] = Place(key_span, span, "alias", last_line=line)
            else:
                is_map = isinstance(event, yaml.MappingStartEvent)
                kind = "mapping" if is_map else "sequence"
                start_line = event.start_mark.line
                places[path] = Place(
                    key_span, span, kind, flow=bool(event.flow_style), last_line=start_line
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


def _dotted(path: Path) -> str:
    return ".".join(str(part) for part in path) or "(the document)"


# --- rendering a scalar ----------------------------------------------------------------------


def scalar_text(value: str | int | float, style: str = "") -> str:
    """`value` as YAML text every reader reads back as it: a string plain when it is
    unmistakably one, else in the quotes it had (`style`), else double-quoted."""
    if not isinstance(value, str):
        text = repr(value) if isinstance(value, float) else str(value)
        if not same_value(resolve_plain(text), value):
            raise EditError(f"{value!r} has no plain YAML form")
        return text
    if style == "" and _PLAIN.match(value) and _plain_safe(value):
        return value
    if style == "'" and value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    return json.dumps(value, ensure_ascii=False)


def _plain_safe(value: str) -> bool:
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
        raise EditError(f"`{_dotted(path)}` is not a single value")
    written = text if text is not None else scalar_text(value, place.style)
    return Edit(place.span, written, lambda data: _set(data, path, value))


def rename_key(document: Document, path: Path, new_key: str) -> Edit:
    """The key of `path` becomes `new_key`, in its place among the mapping's keys."""
    place = document.place(path)
    if place.key is None:
        raise EditError(f"`{_dotted(path)}` has no key to rename")
    start = place.key[0]
    style = document.text[start] if document.text[start] in "'\"" else ""
    return Edit(place.key, scalar_text(new_key, style), lambda data: _rename(data, path, new_key))


def _set(data: Any, path: Path, value: Any) -> Any:
    parent = _at(data, path[:-1])
    parent[path[-1]] = value
    return data


def _rename(data: Any, path: Path, new_key: str) -> Any:
    parent = _at(data, path[:-1])
    if new_key in parent:
        raise EditError(f"`{new_key}` is there already")
    items = [(new_key if key == path[-1] else key, value) for key, value in parent.items()]
    parent.clear()
    parent.update(items)
    return data


def _at(data: Any, path: Path) -> Any:
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


# --- whole items of a block list: entries, mapping rows ---------------------------------------


@dataclass(frozen=True, slots=True)
class Layout:
    """How a file lays out its lists: the column of the top list's `-`, how far a nested
    list's `-` sits right of its key (0 or 2), the indentation of nested mappings, and whether
    the list's items are written in flow style (`- {a: 1}`)."""

    dash_column: int = 0
    nested_offset: int = 2
    mapping_indent: int = 2
    flow_items: bool = False


def layout_of(document: Document, list_path: Path) -> Layout:
    """The layout of the list at `list_path`, read from the file (defaults where it has no
    example: nested lists indented by 2, as the Hub's own files write them)."""
    lines = document.text.splitlines()
    items = sorted(
        (
            path
            for path in document.places
            if len(path) == len(list_path) + 1 and path[:-1] == list_path
        ),
        key=lambda path: path[-1],
    )
    if not items:
        return Layout()
    first = document.places[items[0]]
    line, column = _line_column(document.text, first.span[0])
    dash = lines[line].rfind("-", 0, column + 1) if line < len(lines) else -1
    nested, indent = 2, 2
    for path, place in document.places.items():
        if len(path) <= len(list_path) or path[: len(list_path)] != list_path:
            continue
        if place.kind == "sequence" and not place.flow and place.key is not None:
            key_column = _line_column(document.text, place.key[0])[1]
            nested = _line_column(document.text, place.span[0])[1] - key_column
            break
    for path, place in document.places.items():
        if (
            len(path) == len(list_path) + 2
            and path[: len(list_path)] == list_path
            and place.kind == "mapping"
            and not place.flow
            and place.key is not None
        ):
            parent = document.places[path[:-1]]
            inner = [
                document.places[child]
                for child in document.places
                if len(child) == len(path) + 1 and child[:-1] == path
            ]
            if inner and inner[0].key is not None and parent.key is None:
                key_column = _line_column(document.text, place.key[0])[1]
                indent = _line_column(document.text, inner[0].key[0])[1] - key_column
                break
    return Layout(
        dash_column=max(dash, 0),
        nested_offset=nested if nested in (0, 2) else 2,
        mapping_indent=indent if indent in (2, 4) else 2,
        flow_items=first.kind == "mapping" and first.flow,
    )


def _line_column(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return line, index - start


class _Representer(RoundTripRepresenter):
    """ruamel's round-trip representer, with a float that carries its exact decimal text
    (`bot.convert.scale.Scaled`) written as that text."""


def _represent_float(representer: RoundTripRepresenter, value: float) -> Any:
    text = getattr(value, "text", None)
    if type(value) is not float and isinstance(text, str):
        return representer.represent_scalar("tag:yaml.org,2002:float", text)
    return representer.represent_float(value)


_Representer.add_multi_representer(float, _represent_float)


def _prepared(value: Any, flow: bool) -> Any:
    """Plain data as ruamel nodes: strings that need quotes double-quoted (so YAML 1.1 and
    1.2 readers read the same), mappings in flow style when asked."""
    if isinstance(value, dict):
        mapping = CommentedMap((key, _prepared(item, False)) for key, item in value.items())
        if flow:
            mapping.fa.set_flow_style()
        return mapping
    if isinstance(value, list):
        return CommentedSeq(_prepared(item, False) for item in value)
    if isinstance(value, str) and not (_PLAIN.match(value) and _plain_safe(value)):
        return DoubleQuotedScalarString(value)
    return value


def dump_items(items: Sequence[Any], layout: Layout, comments: Sequence[str | None] = ()) -> str:
    """`items` as the lines of a block list laid out as `layout` says (ending in a newline),
    each item preceded by its comment line when `comments` gives one."""
    writer = YAML()
    writer.Representer = _Representer
    writer.width = 1_000_000
    writer.indent(
        mapping=layout.mapping_indent,
        sequence=layout.nested_offset + 2,
        offset=layout.nested_offset,
    )
    sequence = CommentedSeq(_prepared(item, layout.flow_items) for item in items)
    for index, comment in enumerate(comments):
        if comment:
            sequence.yaml_set_comment_before_after_key(
                index, before=comment, indent=layout.nested_offset
            )
    out = io.StringIO()
    writer.dump(sequence, out)
    # ruamel offsets every list's `-` alike, the top one too: take that offset back off it
    cut = layout.nested_offset
    pad = " " * layout.dash_column
    return "".join(
        pad + line[cut:] if line.strip() else line for line in out.getvalue().splitlines(True)
    )


def replace_and_append(
    content: bytes,
    list_path: Path,
    replace: dict[int, Any],
    append: Sequence[Any],
    *,
    comments: Sequence[str | None] = (),
    limits: Limits = DEFAULT_LIMITS,
) -> bytes:
    """The block list at `list_path` with the items of `replace` (index -> new item) written
    anew in place of theirs, and `append` added after its last item (`comments`: a comment
    line above each appended item). Lines outside the replaced items are kept as they are."""
    document = Document.parse(content)
    before = load_yaml(content, limits)
    if not before.ok:
        raise EditError("the file does not load")
    target = _at(before.data, list_path)
    if not isinstance(target, list):
        raise EditError(f"`{_dotted(list_path)}` is not a list")
    place = document.place(list_path)
    if place.kind != "sequence" or place.flow:
        raise EditError(f"`{_dotted(list_path)}` is not a block list; edit it by hand")
    layout = layout_of(document, list_path)
    lines = document.text.splitlines(keepends=True)
    newline = document.newline

    def item_lines(index: int) -> tuple[int, int]:
        item = document.place((*list_path, index))
        first = _line_column(document.text, item.span[0])[0]
        return first, item.last_line

    pieces: list[tuple[int, int, str]] = []  # (first line, last line, new text)
    for index, item in sorted(replace.items()):
        first, last = item_lines(index)
        pieces.append((first, last, dump_items([item], layout)))
    if append:
        last = item_lines(len(target) - 1)[1] if target else place.last_line
        pieces.append((last + 1, last, dump_items(append, layout, comments)))
    for first, last, dumped in sorted(pieces, reverse=True):
        if first > last and last < len(lines) and not lines[last].endswith(("\n", "\r")):
            lines[last] += newline
        lines[first : last + 1] = [dumped.replace("\n", newline)]
    expected = list(target)
    for index, item in replace.items():
        expected[index] = item
    expected.extend(append)
    result = document.encode("".join(lines))
    after = load_yaml(result, limits)
    if not after.ok or not same_data(_at(after.data, list_path), _plain(expected)):
        raise EditError("the edited file would not read back as intended; nothing is written")
    return result


def _plain(value: Any) -> Any:
    """Data as the strict loader reads it back (exact-text floats as floats)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, float):
        return float(value)
    return value
