"""Strict YAML loading: YAML 1.2 core types, a position for every value, bounded cost, no
recursion (why not `yaml.safe_load`: docs/security.md#yaml-loading)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from bot.validation import diagnostics
from bot.validation.diagnostics import Diagnostic
from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.positions import Path, Position, dotted
from bot.validation.yaml11 import is_ambiguous

_BOM = b"\xef\xbb\xbf"
_STANDARD_TAG_PREFIX = "tag:yaml.org,2002:"

# YAML 1.2.2 core schema, §10.3.2 (https://yaml.org/spec/1.2.2/#1032-tag-resolution).
_CONSTANTS: dict[str, Any] = {
    "": None,
    "~": None,
    "null": None,
    "Null": None,
    "NULL": None,
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
    ".inf": math.inf,
    ".Inf": math.inf,
    ".INF": math.inf,
    "+.inf": math.inf,
    "+.Inf": math.inf,
    "+.INF": math.inf,
    "-.inf": -math.inf,
    "-.Inf": -math.inf,
    "-.INF": -math.inf,
    ".nan": math.nan,
    ".NaN": math.nan,
    ".NAN": math.nan,
}
_NUMBER_START = frozenset("0123456789+-.")
_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")


class NumberTooLong(ValueError):
    """An integer with more digits than Python converts (sys.get_int_max_str_digits)."""


def resolve_plain(text: str) -> Any:
    """The YAML 1.2 core-schema value of an untagged plain scalar."""
    if text[:1] in _NUMBER_START:
        if _INT.match(text):
            try:
                return int(text)
            except ValueError as error:
                raise NumberTooLong(text) from error
        if _FLOAT.match(text):
            return float(text)
        if _OCT.match(text):
            return int(text[2:], 8)
        if _HEX.match(text):
            return int(text[2:], 16)
    return _CONSTANTS.get(text, text)


@dataclass(slots=True)
class LoadedYaml:
    """The outcome of loading one file; `data` is None whenever `diagnostics` has an error."""

    data: Any = None
    positions: dict[Path, Position] = field(default_factory=dict)
    ambiguous: dict[Path, str] = field(default_factory=dict)  # path -> the scalar's text
    #: numbers written in hexadecimal (`0x1F`): the same in YAML 1.1, but odd for a score
    hexadecimal: dict[Path, str] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(diagnostic.is_error for diagnostic in self.diagnostics)


class _Fatal(Exception):
    """Stops the walk: the rest of the file cannot be read meaningfully (or safely)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


_NO_KEY: Any = object()


class _Frame:
    """One open collection on the builder's stack."""

    __slots__ = ("anchor", "container", "height", "is_map", "key", "key_pos", "path", "size")

    def __init__(self, container: Any, path: Path, anchor: str | None) -> None:
        self.container = container
        self.path = path
        self.is_map = isinstance(container, dict)
        self.key: Any = _NO_KEY
        self.key_pos: Position = (0, 0)
        self.size = 1  # nodes in this collection once aliases are expanded, itself included
        self.height = 1  # container levels from here down
        self.anchor = anchor


def _position(mark: Any) -> Position:
    return (mark.line + 1, mark.column + 1)


def _line_column(content: bytes, offset: int) -> Position:
    line_start = content.rfind(b"\n", 0, offset) + 1
    return (content.count(b"\n", 0, offset) + 1, offset - line_start + 1)


def load_yaml(content: bytes, limits: Limits = DEFAULT_LIMITS) -> LoadedYaml:
    """Load one YAML document strictly; never raises for any input bytes."""
    if len(content) > limits.max_file_bytes:
        return _failed(
            diagnostics.make("YAML-TOO-LARGE", size=len(content), limit=limits.max_file_bytes)
        )
    if content.startswith(_BOM):
        content = content[len(_BOM) :]
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _line_column(content, error.start)
        return _failed(
            diagnostics.make("YAML-NOT-UTF8", line=line, column=column, offset=error.start)
        )
    nul = content.find(b"\x00")
    if nul >= 0:
        line, column = _line_column(content, nul)
        return _failed(diagnostics.make("YAML-NUL-BYTE", line=line, column=column))
    result = LoadedYaml()
    try:
        builder = _Builder(limits, result)
        result.data = builder.build(content)
        if builder.root_is_block_list:
            _point_items_at_their_dash(result.positions, text)
    except _Fatal as fatal:
        result.diagnostics.append(fatal.diagnostic)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "unreadable"
        if mark is not None and _is_parser_nesting_limit(error, limits):
            line, column = _position(mark)
            result.diagnostics.append(
                diagnostics.make("YAML-TOO-DEEP", line=line, column=column, limit=limits.max_depth)
            )
        elif mark is None:
            result.diagnostics.append(diagnostics.make("YAML-SYNTAX", problem=problem))
        else:
            line, column = _position(mark)
            result.diagnostics.append(
                diagnostics.make("YAML-SYNTAX", line=line, column=column, problem=problem)
            )
    except yaml.reader.ReaderError as error:  # a character YAML does not allow
        line, column = _line_column(content, error.position)
        character = error.character
        code_point = ord(character) if isinstance(character, str) else int(character)
        problem = f"character U+{code_point:04X} is not allowed in YAML"
        result.diagnostics.append(
            diagnostics.make("YAML-SYNTAX", line=line, column=column, problem=problem)
        )
    except yaml.YAMLError as error:
        result.diagnostics.append(diagnostics.make("YAML-SYNTAX", problem=str(error)))
    except (RecursionError, MemoryError) as error:  # defence in depth: the walk is iterative
        result.diagnostics.append(diagnostics.make("YAML-RESOURCES", problem=type(error).__name__))
    if not result.ok:
        result.data = None
    return result


#: libyaml's own cap on nesting (0.2.5 as bundled since PyYAML 6.0.4: "exceeded maximum nesting
#: depth" past 1000 flow or block levels). Its scanner reads ahead of the events, so on a file
#: such as 5,000 `[` it fails before the walk has seen the 33 levels our own cap allows.
_PARSER_NESTING_LIMIT = 1000


def _is_parser_nesting_limit(error: yaml.MarkedYAMLError, limits: Limits) -> bool:
    """True when the parser stopped at its own nesting cap, which lies past ours: the file is
    then too deep by the bot's rule, whatever PyYAML release reached that cap first."""
    return limits.max_depth < _PARSER_NESTING_LIMIT and "nesting depth" in (error.problem or "")


def _point_items_at_their_dash(positions: dict[Path, Position], text: str) -> None:
    """Make each top-level item's position the line of its `-` (docs/decisions.md#yaml: an entry's
    line).

    libyaml reports where an item's content starts; in the usual `- dataset:` layout that is
    the dash's line, but an item may start on a later line (`-` alone, or a comment between).
    """
    lines: list[str] | None = None
    index = 0
    while (position := positions.get((index,))) is not None:
        line, column = position
        if lines is None:
            lines = text.split("\n")
        if "-" not in lines[line - 1][: column - 1]:
            for earlier in range(line - 2, -1, -1):
                content = lines[earlier].split("#", 1)[0].strip()
                if not content:
                    continue
                if content == "-":
                    positions[(index,)] = (earlier + 1, lines[earlier].index("-") + 1)
                break
        index += 1


def _failed(diagnostic: Diagnostic) -> LoadedYaml:
    return LoadedYaml(diagnostics=[diagnostic])


class _Builder:
    """Turns libyaml's event stream into plain data, enforcing every rule on the way."""

    def __init__(self, limits: Limits, result: LoadedYaml) -> None:
        self.limits = limits
        self.result = result
        self.positions = result.positions
        self.ambiguous = result.ambiguous
        # anchor -> (value, expanded size, height)
        self.anchors: dict[str, tuple[Any, int, int]] = {}
        self.alias_nodes = 0
        self.root_is_block_list = False

    def build(self, content: bytes) -> Any:
        parser = yaml.CSafeLoader(content)
        try:
            return self._walk(parser)
        finally:
            parser.dispose()

    def _walk(self, parser: Any) -> Any:
        get_event = parser.get_event
        get_event()  # StreamStartEvent
        event = get_event()
        if isinstance(event, yaml.StreamEndEvent):
            raise _Fatal(diagnostics.make("YAML-EMPTY"))
        if event.version is not None or event.tags:
            # `%YAML 1.1` asks for the other semantics; `%TAG` only serves tags, refused anyway
            line, column = _position(event.start_mark)
            raise _Fatal(diagnostics.make("YAML-DIRECTIVE", line=line, column=column))
        root = self._document(get_event)
        get_event()  # DocumentEndEvent
        event = get_event()
        if isinstance(event, yaml.DocumentStartEvent):
            line, column = _position(event.start_mark)
            raise _Fatal(diagnostics.make("YAML-MULTIPLE-DOCUMENTS", line=line, column=column))
        return root

    def _document(self, get_event: Any) -> Any:
        max_depth = self.limits.max_depth
        positions = self.positions
        result = self.result
        stack: list[_Frame] = []
        scalar_event = yaml.ScalarEvent
        mapping_start = yaml.MappingStartEvent
        sequence_start = yaml.SequenceStartEvent
        alias_event = yaml.AliasEvent
        while True:
            event = get_event()
            kind = event.__class__
            size = 1
            height = 0
            if kind is scalar_event:
                tag = event.tag
                text = event.value
                if tag is not None:
                    self._tag(event)
                if event.implicit[0]:
                    try:
                        value = resolve_plain(text)
                    except NumberTooLong:
                        line, column = _position(event.start_mark)
                        result.diagnostics.append(
                            diagnostics.make(
                                "YAML-NUMBER-TOO-LONG", line=line, column=column, digits=len(text)
                            )
                        )
                        value = text
                    plain = True
                else:
                    value = text
                    plain = False
                if event.anchor is not None:
                    self.anchors[event.anchor] = (value, 1, 0)
            elif kind is mapping_start or kind is sequence_start:
                if event.tag is not None:
                    self._tag(event)
                if len(stack) >= max_depth:
                    line, column = _position(event.start_mark)
                    raise _Fatal(
                        diagnostics.make("YAML-TOO-DEEP", line=line, column=column, limit=max_depth)
                    )
                path, position = self._place_path(stack, event)
                if not stack and kind is sequence_start:
                    self.root_is_block_list = not event.flow_style
                frame = _Frame({} if kind is mapping_start else [], path, event.anchor)
                positions[path] = position
                stack.append(frame)
                continue
            elif kind is alias_event:
                value, size, height = self._alias(event, len(stack))
                plain = False
            else:  # MappingEndEvent / SequenceEndEvent
                frame = stack.pop()
                value = frame.container
                size = frame.size
                height = frame.height
                if frame.anchor is not None:
                    self.anchors[frame.anchor] = (value, size, height)
                if not stack:
                    return value
                self._attach(stack[-1], value, size, height, None)
                continue
            # a scalar or an alias: a leaf of the tree
            if not stack:
                self.positions[()] = _position(event.start_mark)
                return value
            top = stack[-1]
            if top.is_map and top.key is _NO_KEY:
                self._key(top, value, event, plain)
                continue
            path = self._attach(top, value, size, height, event)
            if plain:
                if is_ambiguous(text, value):
                    self.ambiguous[path] = text
                elif text[:2] == "0x":
                    result.hexadecimal[path] = text

    def _place_path(self, stack: list[_Frame], event: Any) -> tuple[Path, Position]:
        """Path and position of a collection that starts now (the key's position in a map)."""
        if not stack:
            return (), _position(event.start_mark)
        top = stack[-1]
        if top.is_map:
            if top.key is _NO_KEY:
                line, column = _position(event.start_mark)
                raise _Fatal(
                    diagnostics.make(
                        "YAML-KEY-NOT-STRING", line=line, column=column, key="(a collection)"
                    )
                )
            return (*top.path, top.key), top.key_pos
        return (*top.path, len(top.container)), _position(event.start_mark)

    def _attach(self, top: _Frame, value: Any, size: int, height: int, event: Any | None) -> Path:
        """Add a finished value to the open collection `top`; returns the value's path."""
        top.size += size
        top.height = max(top.height, height + 1)
        if top.is_map:
            key = top.key
            top.key = _NO_KEY
            path = (*top.path, key)
            if event is not None:
                self.positions[path] = top.key_pos
            if key is not _NO_KEY and key is not None:
                top.container[key] = value
            return path
        path = (*top.path, len(top.container))
        if event is not None:
            self.positions[path] = _position(event.start_mark)
        top.container.append(value)
        return path

    def _key(self, top: _Frame, key: Any, event: Any, plain: bool) -> None:
        position = _position(event.start_mark)
        if not isinstance(key, str):
            self.result.diagnostics.append(
                diagnostics.make(
                    "YAML-KEY-NOT-STRING",
                    line=position[0],
                    column=position[1],
                    key=diagnostics.shown(key),
                )
            )
            top.key = None  # keeps the walk aligned; the value is dropped (the file fails)
            top.key_pos = position
            return
        if key in top.container:
            first = self.positions.get((*top.path, key), (0, 0))
            self.result.diagnostics.append(
                diagnostics.make(
                    "YAML-DUPLICATE-KEY",
                    line=position[0],
                    column=position[1],
                    field=dotted((*top.path, key)),
                    key=diagnostics.shown(key),
                    first_line=first[0],
                )
            )
            top.key = None
            top.key_pos = position
            return
        if plain and is_ambiguous(event.value, key):
            self.ambiguous[(*top.path, key)] = event.value
        top.key = key
        top.key_pos = position

    def _alias(self, event: Any, depth: int) -> tuple[Any, int, int]:
        anchored = self.anchors.get(event.anchor)
        line, column = _position(event.start_mark)
        if anchored is None:
            raise _Fatal(
                diagnostics.make(
                    "YAML-ALIAS-UNDEFINED", line=line, column=column, anchor=event.anchor
                )
            )
        value, size, height = anchored
        self.alias_nodes += size
        if self.alias_nodes > self.limits.max_alias_nodes:
            raise _Fatal(
                diagnostics.make(
                    "YAML-ALIAS-BUDGET", line=line, column=column, limit=self.limits.max_alias_nodes
                )
            )
        if depth + height > self.limits.max_depth:
            raise _Fatal(
                diagnostics.make(
                    "YAML-TOO-DEEP", line=line, column=column, limit=self.limits.max_depth
                )
            )
        return value, size, height

    def _tag(self, event: Any) -> None:
        line, column = _position(event.start_mark)
        self.result.diagnostics.append(
            diagnostics.make("YAML-TAG", line=line, column=column, tag=_short_tag(event.tag))
        )


def _short_tag(tag: str) -> str:
    """`tag:yaml.org,2002:binary` -> `!!binary`, as the user wrote it; long tags are cut."""
    if tag.startswith(_STANDARD_TAG_PREFIX):
        tag = "!!" + tag[len(_STANDARD_TAG_PREFIX) :]
    return tag if len(tag) <= 60 else tag[:59] + "…"
