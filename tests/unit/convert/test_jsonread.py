"""The fast read of a framework output's JSON gives the strict read's verdict on every input.

`bot.strictjson` takes orjson's result only when its key count proves nothing was dropped; these
tests generate JSON texts with keys written twice at any depth, keys equal only once their
escapes are read (`"a"` and `"\\u0061"`), escaped and raw colons in keys and values, numbers
orjson reads differently (integers beyond 64 bits, `1e400`), NaN, lone surrogates, and broken
or cut-off texts, and check the verdict (value or error message) against the strict read alone.
"""

from __future__ import annotations

import codecs
import dataclasses
import math
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.convert import jsonread
from bot.convert.jsonread import OUTPUT_JSON, read_json
from bot.convert.registry import ConvertError
from bot.strictjson import FAST_MAX_BYTES, TooDeep

SAMPLES = Path(__file__).parents[2] / "samples" / "convert"

#: a small alphabet, so that keys written twice (in any spelling) are frequent
KEY_CHARS = 'a:b"\\/\u00e9\u2028\U0001f600\x01'
TEXT_CHARS = (
    st.characters(codec="utf-8") | st.sampled_from(KEY_CHARS) | st.sampled_from("\ud800\udc00")
)
WHITESPACE = st.text(alphabet=" \t\r\n", max_size=2)
SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n"}
SHORT_ESCAPES |= {"\r": "\\r", "\t": "\\t"}
NUMBERS = st.from_regex(
    r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True
) | st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-0", "-0.0", "1E-400"])


@st.composite
def written_char(draw: st.DrawFn, char: str) -> str:
    """One character of a JSON string as a writer may put it: raw, `\\uXXXX` (either case of
    hex, a surrogate pair beyond the BMP) or its short escape; sometimes raw where JSON wants it
    escaped, which makes the text invalid or another text (both reads must still agree)."""
    code = ord(char)
    unicode = [f"{code:04x}"] if code < 0x10000 else []
    if code >= 0x10000:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        unicode = [f"{high:04x}\\u{low:04x}"]
    forms = [f"\\u{u}" for u in unicode] + [f"\\u{u.upper()}" for u in unicode]
    if char in SHORT_ESCAPES:
        forms.append(SHORT_ESCAPES[char])
    proper = char not in '"\\' and code >= 0x20 and not 0xD800 <= code <= 0xDFFF
    if proper or draw(st.integers(0, 30)) == 0:
        forms.append(char)
    return draw(st.sampled_from(forms))


@st.composite
def string(draw: st.DrawFn, chars: st.SearchStrategy[str], max_size: int) -> str:
    text = draw(st.text(alphabet=chars, max_size=max_size))
    return '"' + "".join(draw(written_char(char)) for char in text) + '"'


def document(keys: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    scalars = st.sampled_from(["null", "true", "false"]) | NUMBERS | string(TEXT_CHARS, max_size=6)

    def containers(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        def array(items: list[str], space: str) -> str:
            return "[" + space + ("," + space).join(items) + "]"

        def obj(members: list[tuple[str, str, str]]) -> str:
            return "{" + ",".join(f"{s}{k}{s}:{s}{v}{s}" for k, s, v in members) + "}"

        return st.builds(array, st.lists(children, max_size=4), WHITESPACE) | st.builds(
            obj, st.lists(st.tuples(keys, WHITESPACE, children), max_size=5)
        )

    return st.recursive(scalars, containers, max_leaves=25)


KEYS = string(st.sampled_from(KEY_CHARS), max_size=2)


def verdict(read: Any, content: bytes) -> tuple[str, str]:
    """What a read makes of `content`: its value (by repr: types, order, NaN and -0.0
    compared exactly) or its error message."""
    try:
        return "value", repr(read(content, "out.json"))
    except ConvertError as error:
        return "error", str(error)
    except TooDeep:
        return "TooDeep", ""


#: the converter's reader without its fast path
STRICT = dataclasses.replace(OUTPUT_JSON, fast=False)


def strict(content: bytes, filename: str) -> Any:
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(jsonread, "OUTPUT_JSON", STRICT)
        return read_json(content, filename)


@settings(max_examples=600, deadline=None)
@given(document(KEYS), st.booleans())
@example('{"a":1,"\\u0061":2}', False)
@example('{"a":1,"a":2,"b":"\\u003a"}', False)  # an escaped colon makes up for a dropped key
@example('{"a":1,"a":2,"b":"\\u003A"}', False)
@example('[{"k":{"x":1},"k":{"x":1}}]', False)
@example('{"x":[{"k":1,"k":{"deep:":":"}}]}', True)
@example('{"n":12345678901234567890}', False)  # orjson: a float
@example('{"n":-9999999999999999999}', False)
@example("98765432109876543210", False)  # a whole text of one integer
@example('{"n":1e400,"m":NaN}', False)
@example('{"s":"\\ud800"}', False)
@example('{"a":NaN,"a":1}', False)  # read by json's reader (orjson refuses NaN), then counted
@example('{"a":NaN,"a":2,"b":"\\u003a"}', False)
@example('{"m":NaN,"n":12345678901234567890123}', False)  # orjson cannot write the integer back
@example('{"m":-Infinity,"s":"\\ud800","s":1}', False)
@example('{"d":"2025-10-21T01:12:03+02:00","n":12345678901234567890}', False)
def test_read_json_gives_the_strict_verdict(text: str, bom: bool) -> None:
    content = (codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8", "surrogatepass")
    assert verdict(read_json, content) == verdict(strict, content)


@settings(max_examples=300, deadline=None)
@given(document(KEYS), st.data())
def test_broken_and_cut_texts_get_the_strict_verdict(text: str, data: st.DataObject) -> None:
    content = text.encode("utf-8", "surrogatepass")
    end = data.draw(st.integers(0, len(content)))
    cut = content[:end]
    assert verdict(read_json, cut) == verdict(strict, cut)
    at = data.draw(st.integers(0, len(content)))
    inserted = data.draw(st.sampled_from([b":", b",", b'"', b"}", b"\\", b"\xff", b"9" * 19]))
    changed = content[:at] + inserted + content[at:]
    assert verdict(read_json, changed) == verdict(strict, changed)


@settings(max_examples=300, deadline=None)
@given(document(string(st.sampled_from("abc:\u00e9"), max_size=3)))
def test_the_fast_read_is_taken_only_with_the_strict_value(text: str) -> None:
    """Where the fast read answers, its value is the strict read's (keys without escapes of
    `"` or `\\`: most texts of this strategy are valid, so the fast read answers often)."""
    content = text.encode("utf-8", "surrogatepass")
    read, value = OUTPUT_JSON._read_fast(content)
    if read:
        assert verdict(strict, content) == ("value", repr(value))


def test_the_fast_read_answers_for_the_real_outputs() -> None:
    """Else every real output would pay for the fast read and the strict one (the lighteval
    file holds NaN, which orjson refuses: json's reader reads it, then the keys are counted)."""
    samples = [
        "lm-eval/Meta-Llama-3-8B-Instruct_results_2024-08-25T21-59-12.123082.json",
        "lighteval/gpt-5.2_results_2025-12-12T15-11-59.471879.json",
        "lighteval/SmolLM2-1.7B-Instruct_results_2026-01-21T03-44-18.458309.json",
        "lm-eval/gemma-2b_results_2026-01-16T15-23-47.285735.json",
        "evalscope/mmlu_pro.json",
        "inspect-ai/data_arc_qwen.json",
        "inspect-ai/data_cvebench_empty_choices.json",
    ]
    for name in samples:
        assert OUTPUT_JSON._read_fast((SAMPLES / name).read_bytes())[0], name


#: a real inspect log of 65 KB, past the size up to which results files are read
LARGE_LOG = SAMPLES / "inspect-ai/data_arc_qwen.json"


def large_log() -> bytes:
    content = LARGE_LOG.read_bytes()
    assert 60_000 < len(content) <= FAST_MAX_BYTES
    return content


def no_strict_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(reader: Any, body: bytes) -> Any:
        raise AssertionError("read strictly")

    monkeypatch.setattr(type(OUTPUT_JSON), "_read_strict", refused)


def test_a_large_log_is_read_the_fast_way(monkeypatch: pytest.MonkeyPatch) -> None:
    content = large_log()
    expected = strict(content, "log.json")
    no_strict_read(monkeypatch)
    assert repr(read_json(content, "log.json")) == repr(expected)


def test_a_duplicate_key_in_a_large_log_is_refused_with_its_place() -> None:
    content = large_log()
    # the accuracy metric's object (line 95) gets its `value` twice, the second far down
    assert content.count(b'"value": 0.3333333333333333,') == 1
    twice = content.replace(
        b'"value": 0.3333333333333333,', b'"value": 0.3333333333333333, "value": 1.0,'
    )
    with pytest.raises(ConvertError) as caught:
        read_json(twice, "log.json")
    message = str(caught.value)
    assert message.startswith('log.json: key "value" appears twice in the object at line 94 ')
    assert verdict(read_json, twice) == verdict(strict, twice)
    # and where an escaped colon elsewhere would make up for the dropped member in the count
    escaped = twice.replace(b'"name": "accuracy"', b'"name": "accuracy\\u003a"', 1)
    assert verdict(read_json, escaped) == verdict(strict, escaped)
    assert verdict(read_json, escaped)[0] == "error"


def test_nan_in_a_large_log_is_read_as_json_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    content = large_log().replace(b'"value": 0.3333333333333333,', b'"value": NaN,')
    expected = strict(content, "log.json")
    with monkeypatch.context() as patched:
        no_strict_read(patched)
        value = read_json(content, "log.json")
    assert repr(value) == repr(expected)
    assert math.isnan(value["results"]["scores"][0]["metrics"]["accuracy"]["value"])
    # NaN and a duplicate key: refused all the same
    twice = content.replace(b'"value": NaN,', b'"value": NaN, "value": 1.0,')
    with pytest.raises(ConvertError, match='key "value" appears twice in the object at line 94'):
        read_json(twice, "log.json")


def test_a_truncated_large_log_says_where_it_ends() -> None:
    content = large_log()
    for end in [*range(1, len(content.rstrip()), 997), len(content.rstrip()) - 1]:
        cut = content[:end]
        with pytest.raises(ConvertError, match="the file is truncated"):
            read_json(cut, "log.json")
        assert verdict(read_json, cut) == verdict(strict, cut)


def test_a_duplicate_past_the_fast_size_is_refused_with_its_place() -> None:
    content = b"\n" * FAST_MAX_BYTES + b'  {"a": 1, "a": 2}'
    with pytest.raises(ConvertError, match=f"in the object at line {FAST_MAX_BYTES + 1} column 3"):
        read_json(content, "big.json")


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1e16, allow_infinity=False), st.booleans())
def test_orjson_writes_every_float_of_1e16_or_more_with_an_exponent(
    value: float, minus: bool
) -> None:
    """The fast read looks for integers beyond 64 bits (read by orjson as such floats) only
    when the value written back has an `e+`."""
    assert b"e+" in orjson.dumps(-value if minus else value)
