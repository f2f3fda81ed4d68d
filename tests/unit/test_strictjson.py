"""The strict JSON reader: its fast path gives the strict read's verdict on every input, and
each rule of `JsonReader` does what it says (the converter's reader is property-tested with its
messages in tests/unit/convert/test_jsonread.py)."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.strictjson import (
    FAST_MAX_BYTES,
    I_JSON,
    DuplicateKey,
    JsonError,
    JsonReader,
    JsonSyntaxError,
    NanOrInfinity,
    NotUtf8,
    NumberOutOfRange,
    NumberRefused,
    TooDeep,
    TooLarge,
    depth_of,
)

#: the I-JSON reader of token segments and issuer requests, and the same without its fast path
fast_read = I_JSON.read
strict_read = dataclasses.replace(I_JSON, fast=False).read

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats()
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def verdict(read: Any, data: bytes) -> tuple[str, Any]:
    """What a reader makes of `data`: its value, or the kind of error it raises."""
    try:
        return "value", read(data)
    except (DuplicateKey, NumberRefused, TooDeep) as error:
        return type(error).__name__, None
    except ValueError:
        return "ValueError", None


def same(left: tuple[str, Any], right: tuple[str, Any]) -> bool:
    # NaN never equals itself, and neither reader returns one: compare through JSON text.
    return left[0] == right[0] and json.dumps(left[1]) == json.dumps(right[1])


@settings(max_examples=500)
@given(json_values)
def test_compact_text_of_any_value_reads_as_the_strict_read_reads_it(value: Any) -> None:
    for data in (
        json.dumps(value, separators=(",", ":")).encode(),
        json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace"),
        json.dumps(value).encode(),
    ):
        assert same(verdict(fast_read, data), verdict(strict_read, data))


@settings(max_examples=300)
@given(st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=4), json_values)
def test_a_duplicate_name_is_refused_on_the_fast_path_too(obj: dict[str, Any], extra: Any) -> None:
    try:
        compact = orjson.dumps(obj)
    except (orjson.JSONEncodeError, TypeError):
        return  # integers beyond 64 bits, lone surrogates: not what this test is about
    name = next(iter(obj))
    data = compact[:-1] + b"," + orjson.dumps(name) + b":" + json.dumps(extra).encode() + b"}"
    outcome = verdict(fast_read, data)
    assert outcome[0] != "value"  # a duplicate, or a value of `extra` I-JSON refuses first
    assert same(outcome, verdict(strict_read, data))


@pytest.mark.parametrize(
    "data",
    [
        b'{"exp":9007199254740993}',  # beyond 2^53: the fast path must not take it
        b'{"exp":-9007199254740993}',
        b'{"v":1e400}',
        b'{"v":NaN}',
        b'{"a":1,"a":1}',  # the same member twice writes back differently
        b'{"a":"\\ud800"}',  # a lone surrogate escape: json reads it, orjson does not
        b'\xef\xbb\xbf{"a":1}',  # a byte order mark
        b'{"a":"\xff"}',  # not UTF-8
        b"[" * 5000 + b"]" * 5000,
        b'{"a": 1}',  # whitespace: the strict reader decides
        b'{"a":"\\u00e9"}',  # an escape orjson would not write
        b'{"n":9007199254740991,"f":0.30000000000000004}',
    ],
)
def test_edge_cases_read_as_the_strict_read_reads_them(data: bytes) -> None:
    assert same(verdict(fast_read, data), verdict(strict_read, data))


# --- each rule of a reader ---------------------------------------------------------------------

#: the rules of every caller, and the defaults
READERS = {
    "defaults (webhook bodies)": JsonReader(),
    "I-JSON (tokens, issuer requests)": I_JSON,
    "EEE records": JsonReader(bom=True, max_depth=64),
    "framework outputs": JsonReader(non_finite=True, bom=True, locate_duplicates=True),
}

#: keys from a small alphabet, so that a key written twice (in any spelling) is frequent
KEYS = st.sampled_from(['"a"', '"b"', '"\\u0061"', '"a:"', '"\\u003a"', '"\\u003A"'])
NUMBERS = st.sampled_from(
    ["0", "-0", "1.5", "1e400", "-1E+999", "NaN", "Infinity", "-Infinity", "2.5e-400"]
) | st.from_regex(r"-?[1-9][0-9]{0,24}(\.[0-9]{1,20})?", fullmatch=True)
SCALARS = NUMBERS | st.sampled_from(["null", "true", '"x"', '"a:b"', '"\\ud800"', '"e+1"'])


def documents() -> st.SearchStrategy[str]:
    def containers(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        members = st.lists(st.tuples(KEYS, children, st.sampled_from(["", " ", "\n  "])))
        return st.lists(children, max_size=4).map(lambda items: "[" + ",".join(items) + "]") | (
            members.map(lambda pairs: "{" + ",".join(f"{s}{k}:{s}{v}" for k, v, s in pairs) + "}")
        )

    return st.recursive(SCALARS, containers, max_leaves=20)


def outcome(reader: JsonReader, data: bytes) -> tuple[str, str]:
    """A reader's value (by repr: types, NaN and -0.0 compared exactly) or its error, whole."""
    try:
        return "value", repr(reader.read(data))
    except JsonError as error:
        return type(error).__name__, f"{error} {getattr(error, 'cut_at', None)}"


@settings(max_examples=400, deadline=None)
@given(documents(), st.booleans())
def test_every_reader_gives_the_strict_verdict_on_its_fast_path(text: str, bom: bool) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8", "surrogatepass")
    for name, reader in READERS.items():
        strict = dataclasses.replace(reader, fast=False)
        assert outcome(reader, data) == outcome(strict, data), name


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_key_twice_is_refused_by_every_reader_naming_it(reader: JsonReader) -> None:
    for data in [b'{"a":1,"a":1}', b'[{"x": {"k": 1, "k": 2}}]', b'{"a":1,"\\u0061":2}']:
        with pytest.raises(DuplicateKey) as caught:
            reader.read(data)
        assert caught.value.key in ("a", "k")
        assert f'duplicate JSON object key "{caught.value.key}"' in str(caught.value)


def test_non_finite_numbers_are_refused_unless_the_rules_read_them() -> None:
    strict, lenient = JsonReader(), JsonReader(non_finite=True)
    for literal in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(NanOrInfinity, match=f"{literal} is not JSON"):
            strict.read(f'{{"v": {literal}}}')
    with pytest.raises(NumberOutOfRange, match="non-finite JSON number 1e400"):
        strict.read(b'{"v": 1e400}')
    value = lenient.read(b'{"n": NaN, "i": -Infinity, "big": 1e400}')
    assert math.isnan(value["n"])
    assert value["i"] == -math.inf
    assert value["big"] == math.inf
    assert strict.read(b"[1e-400, 1.5e308]") == [0.0, 1.5e308]


def test_max_integer_bounds_integers_and_the_default_reads_them_exactly() -> None:
    bounded = JsonReader(max_integer=1000)
    assert bounded.read(b"[1000, -1000]") == [1000, -1000]
    for text in (b"[1001]", b"[-1001]", b"[123456789]"):
        with pytest.raises(NumberOutOfRange):
            bounded.read(text)
    assert I_JSON.read(b"[9007199254740991]") == [2**53 - 1]
    with pytest.raises(NumberOutOfRange, match="integer too large"):
        I_JSON.read(b"[" + b"1" * 21 + b"]")
    # without a bound, an integer past 64 bits is read exactly (orjson would make it a float)
    assert JsonReader().read(b'{"n": 123456789012345678901234}') == {"n": 123456789012345678901234}
    # Python's own limit of digits is a refusal like any other, not a bare ValueError
    with pytest.raises(NumberOutOfRange, match="an integer of more than 4300 digits"):
        JsonReader().read(b"[" + b"9" * 5000 + b"]")


def test_a_byte_order_mark_is_skipped_only_where_the_rules_say() -> None:
    with pytest.raises(JsonSyntaxError, match="a byte order mark is not JSON") as caught:
        JsonReader().read(b'\xef\xbb\xbf{"a": 1}')
    assert (caught.value.line, caught.value.column) == (1, 1)
    with_bom = JsonReader(bom=True)
    assert with_bom.read(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}
    with pytest.raises(JsonSyntaxError):  # one mark, at the start only
        with_bom.read(b'\xef\xbb\xbf\xef\xbb\xbf{"a": 1}')


def test_max_bytes_refuses_a_longer_text_unread() -> None:
    capped = JsonReader(max_bytes=10)
    assert capped.read(b'{"a": 123}') == {"a": 123}  # 10 bytes
    with pytest.raises(TooLarge, match="11 bytes, over the 10-byte cap"):
        capped.read(b'{"a": 1234}')


@pytest.mark.parametrize("fast", [True, False])
def test_max_depth_refuses_deeper_values_on_both_paths(fast: bool) -> None:
    reader = JsonReader(max_depth=3, fast=fast)
    assert reader.read(b'[{"a": [1]}]') == [{"a": [1]}]
    with pytest.raises(TooDeep, match="values nested more than 3 levels deep"):
        reader.read(b'[{"a": [[1]]}]')
    # deeper than Python reads: TooDeep too, for every reader, never a RecursionError
    for unbounded in READERS.values():
        with pytest.raises(TooDeep):
            dataclasses.replace(unbounded, fast=fast).read(b"[" * 100_000 + b"]" * 100_000)


def test_depth_of_stops_past_its_limit() -> None:
    assert depth_of(1, 5) == 0
    assert depth_of({"a": [{"b": []}]}, 5) == 4
    assert depth_of([[[[[[]]]]]], 2) == 3


def test_located_duplicates_name_the_object_line_and_column() -> None:
    text = b'{\n  "x": 1,\n  "o": {"k": 1,\n        "k": 2}\n}'
    located = JsonReader(locate_duplicates=True)
    with pytest.raises(DuplicateKey) as caught:
        located.read(text)
    assert (caught.value.line, caught.value.column) == (3, 8)
    assert str(caught.value) == 'duplicate JSON object key "k": line 3 column 8'
    with pytest.raises(DuplicateKey) as unlocated:
        JsonReader().read(text)
    assert (unlocated.value.line, unlocated.value.column) == (None, None)
    # past the size of the fast path too
    far = b"\n" * FAST_MAX_BYTES + b'  {"a": 1, "a": 2}'
    with pytest.raises(DuplicateKey) as caught:
        located.read(far)
    assert (caught.value.line, caught.value.column) == (FAST_MAX_BYTES + 1, 3)


def test_syntax_errors_say_where_and_whether_the_text_was_cut() -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        JsonReader().read(b'{\n  "a": [1,\n   2 3]}')
    assert (caught.value.line, caught.value.column, caught.value.cut_at) == (3, 6, None)
    assert caught.value.msg == "Expecting ',' delimiter"
    for cut in (b'{"a": [1,\n 2', b'{"a": "unterminat', b'{"a": tr', b'{"a": 1.', b'{"a": 1e-'):
        with pytest.raises(JsonSyntaxError) as caught:
            JsonReader().read(cut + b"\n\n")
        end = cut.rstrip()
        assert caught.value.cut_at == (end.count(b"\n") + 1, len(end) - end.rfind(b"\n")), cut


def test_bytes_that_are_not_utf8_are_refused_at_their_place() -> None:
    with pytest.raises(NotUtf8) as caught:
        JsonReader().read(b'{\n  "\xc3\xa9": "\xff"}')  # the column counts characters
    assert (caught.value.byte, caught.value.line, caught.value.column) == (11, 2, 9)


def test_text_reads_as_its_utf8_bytes_and_every_refusal_is_a_value_error() -> None:
    assert (
        I_JSON.read('{"é": [1, 2.5]}') == I_JSON.read('{"é": [1, 2.5]}'.encode()) == {"é": [1, 2.5]}
    )
    assert issubclass(JsonError, ValueError)
