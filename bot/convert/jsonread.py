"""A framework output's JSON, read strictly: a duplicate key or a cut-off file is an error naming
where (docs/convert.md, "Nothing dropped without a word"; the fast path: "Speed")."""

from __future__ import annotations

import codecs
import contextlib
import json
import json.decoder
import json.scanner
import re
from typing import Any

import orjson

from bot.convert.registry import ConvertError

#: the words JSON (and Python's reader) allow; a file cut inside one is truncated, not invalid
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")


#: what is left of a number cut after its digits (`1.`, `2e`, `3e-`)
_NUMBER_TAIL = re.compile(r"[.eE][eE+\-]?")


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found


#: built once: `json.loads(..., object_pairs_hook=...)` builds a decoder per call
_STRICT = json.JSONDecoder(object_pairs_hook=_unique)


#: Up to this size an output is read the fast way. A results file (lm-eval, lighteval,
#: EvalScope) is a few KB of many small objects, where the hook is a third of the read, and so
#: is an inspect log of many samples (a 65 KB log: 240 µs strictly, 160 µs the fast way). The
#: count costs about 1 ns a byte (orjson's write-back and three scans), more than the hook saves
#: on long strings in few objects: a 24 KB log of long outputs is read in 57 µs the fast way, in
#: 53 µs strictly; 1 MB of an lm-eval file's long prompts in 2.3 ms against 1.2 ms. Larger
#: outputs are large for such prompts, and are read strictly (`bench/convert.py` prints both).
FAST_MAX_BYTES = 1024 * 1024

#: Every digit as `0`, so that a run of 19 digits is a plain substring search.
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_DIGITS = b"0" * 19

#: `\u003a` or `\u003A` (a `:` escaped): one regular-expression scan, a third faster than
#: `bytes.find` of the 5-byte prefix
_ESCAPED_COLON = re.compile(rb"\\u003[aA]")

#: The `+` signs of the written value looked at one by one before a search for `e+`: an inspect
#: log's dates write a few (`+00:00`); a search costs 0.3 ns a byte (with `bytes.find`, in text
#: full of `e`s, 0.7 ns).
_PLUS_SIGNS_LOOKED_AT = 16
_EXPONENT = re.compile(rb"e\+")

#: json's reader without the hook: where orjson refuses (NaN), its value and a key count decide
_PLAIN = json.JSONDecoder()


def looks_like_json(content: bytes) -> bool:
    """Whether the bytes start as a JSON object or array would (after blanks and a BOM)."""
    head = content[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1] in (b"{", b"[")


def read_json(content: bytes, filename: str) -> Any:
    """The parsed JSON of `content`; ConvertError naming `filename`, the line and the column
    of a syntax error, of the end of a truncated file, or of an object with a duplicate key.
    RecursionError (nesting deeper than Python reads) is left to the caller."""
    body = content.removeprefix(codecs.BOM_UTF8)
    if len(body) <= FAST_MAX_BYTES:
        read, value = _read_fast(body)
        if read:
            return value
    return _read_strict(body, filename)


def _read_fast(body: bytes) -> tuple[bool, Any]:
    """(True, the value) when a reader without the duplicate-key hook reads `body` to exactly
    what the strict read would; (False, None) when only the strict read can tell.

    The reader is orjson, or where orjson refuses the text, json's own without the hook.
    orjson and `json` read the same grammar to the same values, except that orjson refuses
    NaN, infinities, lone surrogates and nesting past 1,024 (then json's reader reads it, as
    the strict read would but for the hook), and turns an integer beyond 64 bits into a float:
    text with a run of 19 digits that does not follow a `.` (a fraction's), as the shortest
    such integer's, is left to the strict read (looked for only when such a float may be in
    the value).
    Both readers keep the last of two equal keys, so the keys are counted: each member written
    has one `:` outside strings, and orjson writing the value back has one per member kept
    (it writes NaN and infinities as `null`, and refuses what it cannot write: an integer
    beyond 64 bits, a lone surrogate; the strict read then decides). Every colon read in a
    string is written back as `:`, and is in the text as `:` or as the escape `\\u003a`
    (either case), counted as one: the text's count is the written one exactly when no member
    (with its strings) was dropped, and larger otherwise.
    """
    try:
        value = orjson.loads(body)
        by_orjson = True
    except orjson.JSONDecodeError:
        read, value = _read_plain(body)
        if not read:
            return False, None
        by_orjson = False
    try:
        written = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False, None
    if by_orjson and _exponent_in(written) and _long_integer_in(body):
        # orjson writes a float of 1e16 or more as `<digits>e+<exponent>`, and reads an
        # integer beyond 64 bits (9.2e18 or more) as such a float: without an `e+`, there
        # is none
        return False, None
    colons = body.count(b":")
    # an escaped colon counts as the colon it is read as (a `\\u003a` that is no escape
    # counts too: then the counts differ, and the strict read decides)
    colons += len(_ESCAPED_COLON.findall(body))
    if colons != written.count(b":"):
        return False, None
    return True, value


def _read_plain(body: bytes) -> tuple[bool, Any]:
    """(True, json's value of `body`), or (False, None) when json cannot read it (the strict
    read then says why)."""
    try:
        return True, _PLAIN.decode(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False, None


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


def _read_strict(body: bytes, filename: str) -> Any:
    """`read_json` with the hook that refuses a duplicate key, and every error located."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConvertError(
            f"{filename}: not UTF-8 text (byte {error.start}); a framework writes its JSON"
            " output as UTF-8"
        ) from error
    try:
        return _STRICT.decode(text)
    except _DuplicateKey as duplicate:
        raise ConvertError(_duplicate_message(filename, text, duplicate.key)) from None
    except json.JSONDecodeError as error:
        # a string the scanner saw no end of ran to the end of the input
        rest = text[error.pos :].strip()
        if (
            not rest
            or error.msg.startswith("Unterminated string")
            or any(literal.startswith(rest) for literal in _LITERALS)
            or _NUMBER_TAIL.fullmatch(rest) is not None
        ):
            line, column = _end_of(text)
            raise ConvertError(
                f"{filename}: the JSON ends at line {line} column {column} before it is"
                f" complete ({error.msg}): the file is truncated; convert the complete output"
                " the framework wrote"
            ) from None
        if error.msg == "Extra data":
            raise ConvertError(
                f"{filename}: a second JSON value starts at line {error.lineno} column"
                f" {error.colno} (JSON Lines?): evalbot converts one JSON document per file,"
                " such as an aggregate results file, not per-sample rows"
            ) from None
        raise ConvertError(
            f"{filename}: not valid JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from None


def _end_of(text: str) -> tuple[int, int]:
    """(line, column) just after the last non-blank character."""
    end = len(text.rstrip())
    return text.count("\n", 0, end) + 1, end - text.rfind("\n", 0, end)


def _duplicate_message(filename: str, text: str, key: str) -> str:
    where = _duplicate_position(text)
    at = f" in the object at line {where[0]} column {where[1]}" if where else ""
    return (
        f"{filename}: key {json.dumps(key)} appears twice{at}; a JSON reader keeps only one of"
        " the two values, so which score is meant cannot be known: fix the output"
    )


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
            raise _DuplicateKey("")
        return dict(pairs), end

    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    with contextlib.suppress(ValueError, RecursionError):  # _DuplicateKey is a ValueError
        decoder.decode(text)
    if not found:
        return None
    position = found[0]
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    return line, column
