"""The compact fast path of the strict JSON reader gives `loads_strict`'s verdict on every input."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.tokens.verify import DuplicateNameError, NotIJsonError, loads_strict, loads_strict_compact

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
    except (DuplicateNameError, NotIJsonError) as error:
        return type(error).__name__, None
    except ValueError:
        return "ValueError", None
    except RecursionError:
        return "RecursionError", None


def same(left: tuple[str, Any], right: tuple[str, Any]) -> bool:
    # NaN never equals itself, and neither reader returns one: compare through JSON text.
    return left[0] == right[0] and json.dumps(left[1]) == json.dumps(right[1])


@settings(max_examples=500)
@given(json_values)
def test_compact_text_of_any_value_reads_as_loads_strict_reads_it(value: Any) -> None:
    for data in (
        json.dumps(value, separators=(",", ":")).encode(),
        json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace"),
        json.dumps(value).encode(),
    ):
        assert same(verdict(loads_strict_compact, data), verdict(loads_strict, data))


@settings(max_examples=300)
@given(st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=4), json_values)
def test_a_duplicate_name_is_refused_on_the_fast_path_too(obj: dict[str, Any], extra: Any) -> None:
    try:
        compact = orjson.dumps(obj)
    except (orjson.JSONEncodeError, TypeError):
        return  # integers beyond 64 bits, lone surrogates: not what this test is about
    name = next(iter(obj))
    data = compact[:-1] + b"," + orjson.dumps(name) + b":" + json.dumps(extra).encode() + b"}"
    outcome = verdict(loads_strict_compact, data)
    assert outcome[0] != "value"  # a duplicate, or a value of `extra` I-JSON refuses first
    assert same(outcome, verdict(loads_strict, data))


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
def test_edge_cases_read_as_loads_strict_reads_them(data: bytes) -> None:
    assert same(verdict(loads_strict_compact, data), verdict(loads_strict, data))
