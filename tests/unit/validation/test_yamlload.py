"""The strict loader: YAML 1.2 core typing, positions, and every rejection rule."""

from __future__ import annotations

import math

import pytest

from bot.validation.limits import Limits
from bot.validation.positions import dotted
from bot.validation.yamlload import load_yaml, resolve_plain


def codes(content: bytes, limits: Limits | None = None) -> list[str]:
    loaded = load_yaml(content, limits) if limits else load_yaml(content)
    return [diagnostic.code for diagnostic in loaded.diagnostics]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("NO", "NO"),
        ("y", "y"),
        ("1:20", "1:20"),
        ("1_000", "1_000"),
        ("2026-01-15", "2026-01-15"),
        ("012", 12),
        ("0123456", 123456),
        ("0o12", 10),
        ("0x1F", 31),
        ("+12", 12),
        ("-7", -7),
        ("1e3", 1000.0),
        ("2.09e1", 20.9),
        ("2.09e+1", 20.9),
        ("20.90", 20.9),
        ("1234567e89", 1.234567e95),
        (".5", 0.5),
        ("1.", 1.0),
        ("true", True),
        ("False", False),
        ("TRUE", True),
        ("null", None),
        ("~", None),
        ("", None),
        (".inf", math.inf),
        ("-.Inf", -math.inf),
        ("abc", "abc"),
        ("0x", "0x"),
        ("1e", "1e"),
    ],
)
def test_plain_scalars_follow_yaml_1_2_core(text: str, expected: object) -> None:
    value = resolve_plain(text)
    assert type(value) is type(expected)
    assert value == expected


def test_nan_is_a_float() -> None:
    value = resolve_plain(".nan")
    assert isinstance(value, float)
    assert math.isnan(value)


def test_quoted_scalars_stay_strings() -> None:
    loaded = load_yaml(b"a: '012'\nb: \"true\"\nc: '1e3'\n")
    assert loaded.data == {"a": "012", "b": "true", "c": "1e3"}
    assert loaded.ambiguous == {}


def test_positions_are_one_based_and_point_at_keys() -> None:
    loaded = load_yaml(b"- dataset:\n    id: a/b\n  value: 1\n- value: 2\n")
    assert loaded.ok
    assert loaded.positions[(0,)] == (1, 3)
    assert loaded.positions[(0, "dataset")] == (1, 3)
    assert loaded.positions[(0, "dataset", "id")] == (2, 5)
    assert loaded.positions[(0, "value")] == (3, 3)
    assert loaded.positions[(1, "value")] == (4, 3)


def test_bom_is_accepted_and_crlf_lines_counted() -> None:
    loaded = load_yaml(b"\xef\xbb\xbfa: 1\r\nb: 2\r\n")
    assert loaded.data == {"a": 1, "b": 2}
    assert loaded.positions[("b",)] == (2, 1)


def test_unicode_line_separator_inside_a_string_is_kept() -> None:
    loaded = load_yaml('a: "x\u2028y"\n'.encode())
    assert loaded.data == {"a": "x\u2028y"}


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"value: 0.9\nvalue: 0.1\n", "YAML-DUPLICATE-KEY"),
        (b"- dataset:\n    id: a/b\n    id: c/d\n", "YAML-DUPLICATE-KEY"),
        (b"- dataset: {task_id: x, task_id: y}\n", "YAML-DUPLICATE-KEY"),
        (b"- a: 1\n  dataset: x\n  dataset: y\n", "YAML-DUPLICATE-KEY"),
        (b"1: a\n", "YAML-KEY-NOT-STRING"),
        (b"true: a\n", "YAML-KEY-NOT-STRING"),
        (b"1.0: a\n", "YAML-KEY-NOT-STRING"),
        (b"null: a\n", "YAML-KEY-NOT-STRING"),
        (b"? [a]\n: b\n", "YAML-KEY-NOT-STRING"),
        (b"a: !!python/object/apply:os.system ['echo hi']\n", "YAML-TAG"),
        (b"a: !!binary aGVsbG8=\n", "YAML-TAG"),
        (b"a: !!set {x, y}\n", "YAML-TAG"),
        (b"a: !!omap [x: 1]\n", "YAML-TAG"),
        (b"a: !foo bar\n", "YAML-TAG"),
        (b"a: !!str 12\n", "YAML-TAG"),
        (b"a: ! 12\n", "YAML-TAG"),
        (b"--- !!map\na: 1\n", "YAML-TAG"),
        (b"a: 1\n---\nb: 2\n", "YAML-MULTIPLE-DOCUMENTS"),
        (b"%YAML 1.1\n---\na: on\n", "YAML-DIRECTIVE"),
        (b"%TAG !e! tag:example.com,2000:\n---\na: 1\n", "YAML-DIRECTIVE"),
        (b"", "YAML-EMPTY"),
        (b"# only a comment\n", "YAML-EMPTY"),
        (b"a: 1\x00\n", "YAML-NUL-BYTE"),
        (b"a: \xff\xfe\n", "YAML-NOT-UTF8"),
        (b"\xff\xfea\x00:\x00", "YAML-NOT-UTF8"),
        (b"a: [1, 2\n", "YAML-SYNTAX"),
        (b"a: b: c\n", "YAML-SYNTAX"),
        (b"a: \x01\n", "YAML-SYNTAX"),
        (b"- *nowhere\n", "YAML-ALIAS-UNDEFINED"),
        (b"a: &x [1, *x]\n", "YAML-ALIAS-UNDEFINED"),
        (b"a: " + b"9" * 5000 + b"\n", "YAML-NUMBER-TOO-LONG"),
    ],
)
def test_rejections(content: bytes, code: str) -> None:
    loaded = load_yaml(content)
    assert code in [diagnostic.code for diagnostic in loaded.diagnostics]
    assert loaded.data is None
    assert not loaded.ok


def test_duplicate_key_points_at_the_second_and_names_the_first() -> None:
    loaded = load_yaml(b"- value: 0.9\n  notes: x\n  value: 0.1\n")
    (diagnostic,) = loaded.diagnostics
    assert diagnostic.line == 3
    assert diagnostic.column == 3
    assert diagnostic.field == "[0].value"
    assert "first on line 1" in diagnostic.message


def test_keys_of_different_yaml_types_are_each_refused() -> None:
    found = codes(b"1: a\n1.0: b\ntrue: c\n'1': d\n")
    assert found == ["YAML-KEY-NOT-STRING"] * 3


def test_string_keys_differing_only_in_quotes_collide() -> None:
    assert codes(b"'a': 1\na: 2\n") == ["YAML-DUPLICATE-KEY"]


def test_every_duplicate_and_tag_is_reported_at_once() -> None:
    found = codes(b"a: 1\na: 2\nb: !!str x\nc: 1\nc: 2\n")
    assert found == ["YAML-DUPLICATE-KEY", "YAML-TAG", "YAML-DUPLICATE-KEY"]


def test_size_cap_is_inclusive() -> None:
    content = b"a: " + b"x" * 97 + b"\n"
    assert len(content) == 101
    assert load_yaml(content, Limits(max_file_bytes=101)).ok
    assert codes(content, Limits(max_file_bytes=100)) == ["YAML-TOO-LARGE"]


def test_depth_cap_is_inclusive() -> None:
    assert load_yaml(b"[" * 32 + b"]" * 32).ok
    found = codes(b"[" * 33 + b"]" * 33)
    assert found == ["YAML-TOO-DEEP"]


@pytest.mark.parametrize(
    "content",
    [b"[" * 5_000, b"{a: " * 5_000, b"- " * 2_000 + b"x\n", b"[" * 1_001 + b"]" * 1_001],
    ids=["flow-sequences", "flow-mappings", "block-sequences", "closed-flow"],
)
def test_depth_cap_decides_before_the_parsers_own(content: bytes) -> None:
    """libyaml (PyYAML >= 6.0.4) refuses nesting past 1000 levels, and its scanner reads ahead
    of the walk: such a file is still too deep by the bot's rule, with a place, not a syntax
    error, whatever PyYAML release is installed."""
    loaded = load_yaml(content)
    (diagnostic,) = loaded.diagnostics
    assert diagnostic.code == "YAML-TOO-DEEP"
    assert diagnostic.line == 1
    assert diagnostic.column is not None
    assert "32" in diagnostic.message


def test_depth_counts_the_expansion_of_aliases() -> None:
    anchored = b"[" * 20 + b"1" + b"]" * 20
    within = b"- &a " + anchored + b"\n- " + b"[" * 11 + b"*a" + b"]" * 11 + b"\n"
    beyond = b"- &a " + anchored + b"\n- " + b"[" * 12 + b"*a" + b"]" * 12 + b"\n"
    assert load_yaml(within).ok
    assert codes(beyond) == ["YAML-TOO-DEEP"]


def test_aliases_within_budget_load_as_shared_values() -> None:
    loaded = load_yaml(b"base: &b {x: 1}\nuse: *b\n")
    assert loaded.data == {"base": {"x": 1}, "use": {"x": 1}}


def test_alias_budget_counts_expanded_nodes() -> None:
    # `&a` holds 11 nodes (the list and 10 scalars); 3 aliases add 33 nodes.
    content = b"a: &a [0,1,2,3,4,5,6,7,8,9]\nb: [*a, *a, *a]\n"
    assert load_yaml(content, Limits(max_alias_nodes=33)).ok
    assert codes(content, Limits(max_alias_nodes=32)) == ["YAML-ALIAS-BUDGET"]


def test_merge_key_is_an_ordinary_key_in_yaml_1_2() -> None:
    loaded = load_yaml(b"base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n")
    assert loaded.data == {"base": {"x": 1}, "other": {"<<": {"x": 1}, "y": 2}}
    assert ("other", "<<") in loaded.ambiguous


def test_ambiguous_scalars_are_recorded_by_path() -> None:
    content = (
        b"- task_id: on\n  config: NO\n  revision: 0123456\n  value: 1e3\n  date: 2025-01-15\n"
        b"  t: 1:20\n  ok: 78.8\n  name: Idavidrein/gpqa\n  n: 12\n"
    )
    loaded = load_yaml(content)
    assert loaded.ok
    assert set(loaded.ambiguous) == {
        (0, "task_id"),
        (0, "config"),
        (0, "revision"),
        (0, "value"),
        (0, "date"),
        (0, "t"),
    }


@pytest.mark.parametrize(
    ("path", "expected"),
    [((), ""), (("a",), "a"), ((0, "a"), "[0].a"), (("metrics", 1, "value"), "metrics[1].value")],
)
def test_dotted_paths(path: tuple[str | int, ...], expected: str) -> None:
    assert dotted(path) == expected


def test_an_item_position_is_its_dash_even_when_content_starts_later() -> None:
    loaded = load_yaml(b"- a: 1\n-\n  # note\n  b: 2\n-   # trailing\n  c: 3\n- [1]\n")
    assert loaded.ok
    assert [loaded.positions[(index,)][0] for index in range(4)] == [1, 2, 5, 7]
    assert loaded.positions[(1, "b")] == (4, 3)


def test_flow_list_items_keep_their_own_positions() -> None:
    loaded = load_yaml(b"[\n  {a: 1},\n  {b: 2}\n]\n")
    assert [loaded.positions[(index,)] for index in range(2)] == [(2, 3), (3, 3)]


def test_an_explicit_document_start_alone_is_fine() -> None:
    loaded = load_yaml(b"---\n- a: 1\n...\n")
    assert loaded.data == [{"a": 1}]
