"""`dump_entries` writes what every reader reads back as the same values: round-tripped through
the strict YAML 1.2 loader, with nothing a YAML 1.1 reader would read otherwise."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.validation.yamldump import dump_entries
from bot.validation.yamlload import load_yaml

scalars = (
    st.text(max_size=20)
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
    | st.none()
    | st.sampled_from(["1e3", "012", "on", "No", "2026-01-15", "1:20", "0x1F", "~", ".inf", "-"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=8), values, max_size=5), min_size=1, max_size=3))
def test_round_trip_is_exact_and_unambiguous(entries: list[dict[str, Any]]) -> None:
    text = dump_entries(entries)
    loaded = load_yaml(text.encode("utf-8"))
    assert not [d for d in loaded.diagnostics if d.is_error], text
    assert loaded.data == entries, text
    assert not loaded.ambiguous, text
    assert not loaded.hexadecimal, text
