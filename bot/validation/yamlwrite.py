"""New entries and rows written with ruamel.yaml in the layout of the file they join, the lines
of the items they do not replace kept byte for byte (pure; docs/validate.md, "How fixes are
written")."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.positions import Path
from bot.validation.yamledit import (
    PLAIN_STRING,
    Document,
    EditError,
    dotted_path,
    plain_safe,
    same_data,
    value_at,
)
from bot.validation.yamlload import load_yaml


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
    line, column = line_column(document.text, first.span[0])
    dash = lines[line].rfind("-", 0, column + 1) if line < len(lines) else -1
    nested, indent = 2, 2
    for path, place in document.places.items():
        if len(path) <= len(list_path) or path[: len(list_path)] != list_path:
            continue
        if place.kind == "sequence" and not place.flow and place.key is not None:
            key_column = line_column(document.text, place.key[0])[1]
            nested = line_column(document.text, place.span[0])[1] - key_column
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
                key_column = line_column(document.text, place.key[0])[1]
                indent = line_column(document.text, inner[0].key[0])[1] - key_column
                break
    return Layout(
        dash_column=max(dash, 0),
        nested_offset=nested if nested in (0, 2) else 2,
        mapping_indent=indent if indent in (2, 4) else 2,
        flow_items=first.kind == "mapping" and first.flow,
    )


def line_column(text: str, index: int) -> tuple[int, int]:
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
    if isinstance(value, str) and not (PLAIN_STRING.match(value) and plain_safe(value)):
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
    target = value_at(before.data, list_path)
    if not isinstance(target, list):
        raise EditError(f"`{dotted_path(list_path)}` is not a list")
    place = document.place(list_path)
    if place.kind != "sequence" or place.flow:
        raise EditError(f"`{dotted_path(list_path)}` is not a block list; edit it by hand")
    layout = layout_of(document, list_path)
    lines = document.text.splitlines(keepends=True)
    newline = document.newline

    def item_lines(index: int) -> tuple[int, int]:
        item = document.place((*list_path, index))
        first = line_column(document.text, item.span[0])[0]
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
    if not after.ok or not same_data(value_at(after.data, list_path), _plain(expected)):
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
