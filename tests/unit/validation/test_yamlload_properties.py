"""Property tests for the strict loader (hypothesis)."""

from __future__ import annotations

import json
import math
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.validation.positions import Path
from bot.validation.yaml11 import same_value
from bot.validation.yamlload import load_yaml

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Characters YAML does not allow raw in a file (1.2 §5.1 c-printable: C1 controls, NUL,
#: U+FFFE/U+FFFF; JSON escapes the C0 controls itself), and NEL (U+0085), which libyaml
#: still treats as a YAML 1.1 line break and folds.
NOT_YAML = "\x00\x7f" + "".join(map(chr, range(0x80, 0xA0))) + "\ufffe\uffff"
text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters=NOT_YAML), max_size=20)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
#: Keys: no U+2028/U+2029 either. libyaml counts them as YAML 1.1 line breaks, and an implicit
#: key must fit on one line, so `{"a\u2028b": 1}` is not YAML to it (in a value they load
#: as themselves; `test_a_line_separator_in_a_key_is_a_syntax_error_with_its_line` pins that).
keys = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters=NOT_YAML + "\u2028\u2029"),
    max_size=20,
)
json_data = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=25,
)

# Keys PyYAML dumps plainly and both readers take for strings (letters, not 1.1 booleans).
_YAML11_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
plain_keys = st.from_regex(r"[a-z_]{1,8}", fullmatch=True).filter(
    lambda key: key.lower() not in _YAML11_WORDS
)
block_data = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(plain_keys, children, max_size=4)
    ),
    max_leaves=25,
)


def test_a_line_separator_in_a_key_is_a_syntax_error_with_its_line() -> None:
    """JSON allows a raw U+2028 in a key; the YAML 1.1 reader does not (a line break inside an
    implicit key): a clear diagnostic at the key, not a crash and not a silently changed key."""
    loaded = load_yaml('{"a\u2028b": 1}'.encode())
    assert not loaded.ok
    assert [d.code for d in loaded.diagnostics] == ["YAML-SYNTAX"]
    assert loaded.diagnostics[0].line is not None


@FAST
@given(json_data)
def test_json_compatible_data_dumped_as_json_loads_back_equal(data: Any) -> None:
    # ensure_ascii=False: JSON's surrogate-pair escapes for non-BMP characters are not YAML.
    loaded = load_yaml(json.dumps(data, ensure_ascii=False).encode())
    assert loaded.ok, loaded.diagnostics
    assert loaded.data == data


@FAST
@given(block_data)
def test_where_pyyaml_reads_otherwise_the_path_is_flagged(data: Any) -> None:
    """Dump block-style YAML with PyYAML; every place we read differently is ambiguous."""
    dumped = yaml.safe_dump(data, default_flow_style=False, allow_unicode=True)
    theirs = yaml.safe_load(dumped)
    loaded = load_yaml(dumped.encode())
    assert loaded.ok, loaded.diagnostics
    for path in differences(loaded.data, theirs, ()):
        assert path in loaded.ambiguous, (path, dumped)


def differences(ours: Any, theirs: Any, path: Path) -> list[Path]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        assert list(ours) == list(theirs)
        return [p for key in ours for p in differences(ours[key], theirs[key], (*path, key))]
    if isinstance(ours, list) and isinstance(theirs, list):
        assert len(ours) == len(theirs)
        return [p for i, item in enumerate(ours) for p in differences(item, theirs[i], (*path, i))]
    if isinstance(ours, float) and isinstance(theirs, float) and math.isnan(ours):
        return []
    return [] if same_value(ours, theirs) else [path]


@FAST
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise(content: bytes) -> None:
    loaded = load_yaml(content)
    assert loaded.ok or loaded.data is None


@FAST
@given(st.text(alphabet="[]{}:-,&*!|>'\"#?%@`\n\t ab01.e+~", max_size=200))
def test_yaml_like_text_never_raises(text: str) -> None:
    loaded = load_yaml(text.encode())
    assert loaded.ok or loaded.diagnostics
