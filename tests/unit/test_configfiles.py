"""One-line configuration errors with the file, the line and the fix (`bot.botconfig`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.botconfig.document import ConfigError
from bot.botconfig.files import read_config

FIX = "see the docs"


def test_a_field_is_found_at_its_line_or_its_nearest_parent(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("# comment\nissuers:\n  - issuer: a\n    keys:\n      - {kid: x}\n")
    document = read_config(path, fix=FIX)
    assert document.line_of("issuers[0].issuer") == 3
    assert document.line_of("issuers[0].keys[0]") == 5
    assert document.line_of("issuers[0].audience") == 3  # missing: its entry's line
    assert document.line_of("nothing") is None


def test_a_loaders_message_is_placed_at_the_field_it_names(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("errors: []\nbenchmarks:\n  org/bench: [X]\n")
    document = read_config(path, fix=FIX)
    leading = document.error_from(ValueError(f"{path}: benchmarks: expected a mapping"))
    assert str(leading) == f"{path}:2: benchmarks: expected a mapping (fix: see the docs)"
    quoted = document.error_from(ValueError("`benchmarks.org/bench`: unknown code 'X'"))
    assert (quoted.line, quoted.problem) == (3, "`benchmarks.org/bench`: unknown code 'X'")
    nowhere = document.error_from(ValueError("issuer 'a' is configured twice"))
    assert str(nowhere) == f"{path}: issuer 'a' is configured twice (fix: see the docs)"


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"a: [1,\n", 2),  # unclosed: the parser stops at the end
        (b"a: 1\na: 2\n", 2),  # a duplicate key has no single meaning
        (b"a: !!binary aGk=\n", 1),  # tags are refused
    ],
)
def test_invalid_yaml_is_one_line_at_its_line(tmp_path: Path, content: bytes, line: int) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as raised:
        read_config(path, fix=FIX)
    assert raised.value.line == line
    assert str(raised.value).startswith(f"{path}:{line}: ")
    assert "\n" not in str(raised.value)


def test_a_missing_or_huge_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="the file does not exist"):
        read_config(tmp_path / "none.yaml", fix=FIX)
    huge = tmp_path / "huge.yaml"
    huge.write_bytes(b"#" * (1024 * 1024 + 1))
    with pytest.raises(ConfigError, match="larger than"):
        read_config(huge, fix=FIX)
