"""Strict JSON: the one reader of the JSON evalbot takes from outside (webhook bodies, token
segments, issuer requests, framework outputs, EEE records), each caller's rules explicit in its
`JsonReader`. A key written twice in one object is always refused; every refusal is a
`JsonError` (a ValueError) saying where when that is known. Why, and the proof of the fast
path: docs/security.md#strict-json.
"""

from __future__ import annotations

import contextlib
import json
import json.decoder
import json.scanner
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import orjson

#: The largest integer a double holds exactly (I-JSON, RFC 7493 §2.2).
MAX_SAFE_INTEGER = 2**53 - 1

#: Up to this size the fast path is tried; larger texts are read strictly (on long strings the
#: fast path's count costs more than the hook it saves: docs/security.md#strict-json).
FAST_MAX_BYTES = 1024 * 1024

_BOM = b"\xef\xbb\xbf"


class JsonError(ValueError):
    """JSON a reader refuses: what is wrong (`msg`) and, when known, where (1-based)."""

    def __init__(self, msg: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(msg if line is None else f"{msg}: line {line} column {column}")
        self.msg = msg
        self.line = line
        self.column = column


class JsonSyntaxError(JsonError):
    """Not JSON. `line`/`column`: where the reader stopped; `cut_at`: where the text ends,
    when it ends before its value is complete (a truncated file), else None."""

    def __init__(
        self, msg: str, *, line: int, column: int, cut_at: tuple[int, int] | None = None
    ) -> None:
        super().__init__(msg, line=line, column=column)
        self.cut_at = cut_at


class NotUtf8(JsonSyntaxError):
    """Bytes that are not UTF-8; `byte` is the offset of the first bad one."""

    def __init__(self, byte: int, *, line: int, column: int) -> None:
        super().__init__(f"not UTF-8 (byte {byte})", line=line, column=column)
        self.byte = byte


class DuplicateKey(JsonError):
    """An object holds `key` twice; `line`/`column` are the object's when the reader locates
    duplicates (`JsonReader.locate_duplicates`)."""

    def __init__(self, key: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(
            f"duplicate JSON object key {json.dumps(key)[:60]}", line=line, column=column
        )
        self.key = key


class NumberRefused(JsonError):
    """A number the reader's rules refuse."""


class NanOrInfinity(NumberRefused):
    """A `NaN`, `Infinity` or `-Infinity` literal (not JSON, though Python writes them)."""


class NumberOutOfRange(NumberRefused):
    """A number past a double's range (`1e400`), or an integer past the reader's
    `max_integer` or Python's digit limit."""


class TooDeep(JsonError):
    """Containers nested deeper than the reader's `max_depth`, or than Python reads."""


class TooLarge(JsonError):
    """A text over the reader's `max_bytes`."""


@dataclass(frozen=True)
class JsonReader:
    """A strict reader with one caller's rules; build it once, `read` many times.

    non_finite: `NaN`/`Infinity` literals and numbers past a double's range are read (as
        floats, the way Python writes them) instead of refused.
    max_integer: integers past it in magnitude are refused (`MAX_SAFE_INTEGER` for I-JSON).
    bom: a leading UTF-8 byte order mark is skipped instead of refused.
    max_bytes: longer texts are refused unread.
    max_depth: values nested deeper are refused (a walk after the read).
    locate_duplicates: a `DuplicateKey` gets its object's line and column, by a second read
        of the refused text in pure Python (for readers people read, not hostile bodies).
    fast: orjson's C reader is tried first up to `FAST_MAX_BYTES`; its value is kept only when
        it is the strict read's (property-tested: tests/unit/test_strictjson.py).
    """

    non_finite: bool = False
    max_integer: int | None = None
    bom: bool = False
    max_bytes: int | None = None
    max_depth: int | None = None
    locate_duplicates: bool = False
    fast: bool = True
    _decoder: json.JSONDecoder = field(init=False, repr=False, compare=False)
    #: a run of this many digits may write an integer past `max_integer`
    _long_digits: bytes | None = field(init=False, repr=False, compare=False)
    #: texts up to this size take the fast path (-1: none does)
    _fast_up_to: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        decoder = json.JSONDecoder(
            object_pairs_hook=_unique,
            parse_constant=None if self.non_finite else _refuse_constant,
            parse_float=None if self.non_finite else _finite_float,
            parse_int=None if self.max_integer is None else self._bounded_int,
        )
        object.__setattr__(self, "_decoder", decoder)
        digits = None if self.max_integer is None else b"0" * len(str(self.max_integer))
        object.__setattr__(self, "_long_digits", digits)
        object.__setattr__(self, "_fast_up_to", FAST_MAX_BYTES if self.fast else -1)

    def read(self, content: bytes | str) -> Any:
        """The value of `content`; a `JsonError` when these rules refuse it."""
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogatepass")
        if self.max_bytes is not None and len(content) > self.max_bytes:
            raise TooLarge(f"{len(content)} bytes, over the {self.max_bytes}-byte cap")
        read, value = self._read_fast(content) if len(content) <= self._fast_up_to else _UNREAD
        if not read:
            # both fast readers refuse a byte order mark: it is looked for only here
            if content.startswith(_BOM):
                if not self.bom:
                    raise JsonSyntaxError("a byte order mark is not JSON", line=1, column=1)
                content = content[len(_BOM) :]
                if len(content) <= self._fast_up_to:
                    read, value = self._read_fast(content)
            if not read:
                value = self._read_strict(content)
        if self.max_depth is not None and depth_of(value, self.max_depth) > self.max_depth:
            raise TooDeep(f"values nested more than {self.max_depth} levels deep")
        return value

    def _read_fast(self, body: bytes) -> tuple[bool, Any]:
        """(True, the value) when orjson (or, for NaN and the like, json's reader without the
        hooks) reads `body` to exactly the strict read's value; (False, None) when only the
        strict read can tell. docs/security.md#strict-json has the proof."""
        if self._long_digits is not None and self._long_digits in body.translate(_DIGITS_AS_ZERO):
            return False, None
        try:
            value = orjson.loads(body)
            by_orjson = True
        except orjson.JSONDecodeError:
            if not self.non_finite:
                return False, None
            read, value = _read_plain(body)
            if not read:
                return False, None
            by_orjson = False
        try:
            written = orjson.dumps(value)
        except orjson.JSONEncodeError:
            return False, None
        if written == body:
            return True, value  # every member and number written as read: none dropped
        if by_orjson and _exponent_in(written) and _long_integer_in(body):
            # orjson writes a float of 1e16 or more as `<digits>e+<exponent>`, and reads an
            # integer beyond 64 bits (9.2e18 or more) as such a float: without an `e+`, there
            # is none
            return False, None
        colons = body.count(b":") + len(_ESCAPED_COLON.findall(body))
        if colons != written.count(b":"):
            return False, None
        return True, value

    def _read_strict(self, body: bytes) -> Any:
        """The value by json's reader with these rules' hooks, every refusal a `JsonError`."""
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as error:
            before = body[: error.start].decode("utf-8")
            line, column = _position(before, len(before))
            raise NotUtf8(error.start, line=line, column=column) from None
        try:
            return self._decoder.decode(text)
        except DuplicateKey as duplicate:
            if not self.locate_duplicates:
                raise
            where = _duplicate_position(text)
            if where is None:
                raise
            raise DuplicateKey(duplicate.key, line=where[0], column=where[1]) from None
        except JsonError:
            raise
        except json.JSONDecodeError as error:
            raise JsonSyntaxError(
                error.msg, line=error.lineno, column=error.colno, cut_at=_cut_at(text, error)
            ) from None
        except RecursionError:
            raise TooDeep("values nested deeper than Python reads") from None
        except ValueError:  # the one other refusal of json's reader: Python's digit limit
            limit = sys.get_int_max_str_digits()
            raise NumberOutOfRange(f"an integer of more than {limit} digits") from None

    def _bounded_int(self, text: str) -> int:
        assert self.max_integer is not None
        if len(text) > len(str(self.max_integer)) + 4:
            raise NumberOutOfRange("integer too large")  # before int() reads 4,000 digits
        value = int(text)
        if abs(value) > self.max_integer:
            raise NumberOutOfRange(f"integer {value} does not fit a double exactly")
        return value


def depth_of(value: Any, limit: int) -> int:
    """How deeply containers nest in `value` (a scalar is 0), without recursion; the walk
    stops at the first level past `limit`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            level += 1
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest
            stack.extend((child, level) for child in item)
    return deepest


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):  # the rare case: find the key to name
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return found


def _refuse_constant(name: str) -> Any:
    raise NanOrInfinity(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NumberOutOfRange(f"non-finite JSON number {text[:40]}")
    return value


#: what the fast path answers when it does not read a text
_UNREAD: tuple[bool, Any] = (False, None)

#: json's reader without the hooks: where orjson refuses (NaN), its value and a key count decide
_PLAIN = json.JSONDecoder()


def _read_plain(body: bytes) -> tuple[bool, Any]:
    try:
        return True, _PLAIN.decode(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False, None


#: Every digit as `0`, so that a run of digits is a plain substring search.
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_DIGITS = b"0" * 19

#: `\u003a` or `\u003A` (a `:` escaped), counted as the colon it is read as
_ESCAPED_COLON = re.compile(rb"\\u003[aA]")

#: The `+` signs looked at one by one before a search for `e+` (an inspect log's dates write a
#: few: `+00:00`).
_PLUS_SIGNS_LOOKED_AT = 16
_EXPONENT = re.compile(rb"e\+")


def _exponent_in(written: bytes) -> bool:
    """Whether `written` holds `e+`."""
    at = written.find(b"+")
    for _ in range(_PLUS_SIGNS_LOOKED_AT):
        if at < 0:
            return False
        if written[at - 1 : at] == b"e":
            return True
        at = written.find(b"+", at + 1)
    return _EXPONENT.search(written, at) is not None


def _long_integer_in(body: bytes) -> bool:
    """Whether `body` holds a run of 19 digits or more that does not follow a `.`: each such run
    after a `.` is counted once by the second count and at least once by the first, any other
    only by the first."""
    shape = body.translate(_DIGITS_AS_ZERO)
    return _NINETEEN_DIGITS in shape and shape.count(_NINETEEN_DIGITS) != shape.count(
        b"." + _NINETEEN_DIGITS
    )


#: the words json's reader knows; a text cut inside one is truncated, not invalid
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")

#: what is left of a number cut after its digits (`1.`, `2e`, `3e-`)
_NUMBER_TAIL = re.compile(r"[.eE][eE+\-]?")


def _cut_at(text: str, error: json.JSONDecodeError) -> tuple[int, int] | None:
    """Where `text` ends, when the reader stopped because it ended before its value did."""
    rest = text[error.pos :].strip()
    if (
        not rest
        or error.msg.startswith("Unterminated string")  # it ran to the end of the input
        or any(literal.startswith(rest) for literal in _LITERALS)
        or _NUMBER_TAIL.fullmatch(rest) is not None
    ):
        end = len(text.rstrip())
        return _position(text, end)
    return None


def _position(text: str, offset: int) -> tuple[int, int]:
    """(line, column), 1-based, of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def _duplicate_position(text: str) -> tuple[int, int] | None:
    """(line, column) of the first object, in reading order of completion, with a key twice."""
    found: list[int] = []
    decoder = json.JSONDecoder()

    def parse_object(  # noqa: PLR0917  (the scanner's calling convention)
        s_and_end: tuple[str, int],
        strict: bool,
        scan_once: Any,
        object_hook: Any,
        object_pairs_hook: Any,
        memo: Any = None,
    ) -> tuple[Any, int]:
        pairs, end = json.decoder.JSONObject(  # type: ignore[attr-defined]
            s_and_end, strict, scan_once, object_hook, list, memo
        )
        keys = [key for key, _value in pairs]
        if len(set(keys)) != len(keys):
            found.append(s_and_end[1] - 1)
            raise DuplicateKey("")
        return dict(pairs), end

    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    with contextlib.suppress(ValueError, RecursionError):  # DuplicateKey is a ValueError
        decoder.decode(text)
    return _position(text, found[0]) if found else None


#: I-JSON (RFC 7493), as RFC 8785 and JWTs assume it: token segments, issuer requests, claims.
I_JSON = JsonReader(max_integer=MAX_SAFE_INTEGER)
