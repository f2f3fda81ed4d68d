"""The diagnostic catalogue: every code documented, every template fillable."""

from __future__ import annotations

import re

from bot.validation.catalogue import CATALOGUE
from bot.validation.diagnostics import kind_of, shown
from tests.conftest import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")


def test_every_code_is_documented_with_its_severity() -> None:
    documented = dict(re.findall(r"^### `([A-Z0-9-]+)` \((error|warning)", DOC, re.MULTILINE))
    expected = {code: message.severity.value for code, message in CATALOGUE.items()}
    assert documented == expected


def test_codes_follow_the_scheme() -> None:
    for code in CATALOGUE:
        assert re.fullmatch(r"(YAML|FILE|ENTRY|BENCH|EEE)(-[A-Z0-9]+)+", code), code


def test_shown_cuts_long_values() -> None:
    assert shown("x" * 100, 10) == "'xxxxxxxx…"
    assert shown(None) == "null"
    assert shown(True) == "true"
    assert shown("") == "''"


def test_kind_of_names_yaml_types() -> None:
    values: list[object] = [None, True, 1, 1.5, "a", [], {}]
    assert [kind_of(value) for value in values] == [
        "null", "a boolean", "an integer", "a number", "a string", "a list", "a mapping",
    ]  # fmt: skip
