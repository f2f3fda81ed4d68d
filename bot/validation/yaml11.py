"""Where a YAML 1.1 reader (PyYAML's own resolvers) reads a plain scalar otherwise than our YAML
1.2 loader does (docs/security.md#yaml-loading)."""

from __future__ import annotations

import datetime
import math
import re
from typing import Any

import yaml

_RESOLVERS: dict[str | None, list[tuple[str, re.Pattern[str]]]] = (
    yaml.resolver.Resolver.yaml_implicit_resolvers
)
#: Characters a YAML 1.1 implicit type can start with; other plain scalars are strings there
#: exactly as here, and need no closer look.
_FIRST_CHARS = frozenset(char for char in _RESOLVERS if char)
_SIMPLE_INT = re.compile(r"-?[1-9][0-9]*\Z")
_SIMPLE_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+\Z")


class _MergeKey:
    """Stands for `<<`, which YAML 1.1 reads as a merge instruction, not as a key."""

    def __repr__(self) -> str:
        return "a merge key"


MERGE_KEY = _MergeKey()


def yaml11_reading(text: str) -> Any:
    """The value PyYAML's SafeLoader gives the plain scalar `text` (its YAML 1.1 reading)."""
    for tag, pattern in _RESOLVERS.get(text[:1] if text else "", ()):
        if pattern.match(text):
            if tag.endswith((":merge", ":value")):
                return MERGE_KEY
            constructor = yaml.SafeLoader("")
            try:
                return constructor.construct_object(yaml.ScalarNode(tag, text))
            except (yaml.YAMLError, ValueError, OverflowError):
                return text  # PyYAML itself would fail: not the same value either way
            finally:
                constructor.dispose()
    return text


def is_ambiguous(text: str, value: Any) -> bool:
    """True when PyYAML (1.1) reads plain scalar `text` as something other than `value` (1.2)."""
    if text and text[0] not in _FIRST_CHARS:
        return False
    value_type = type(value)
    if value_type is int and _SIMPLE_INT.match(text):
        return False
    if value_type is float and _SIMPLE_FLOAT.match(text):
        return False
    return not same_value(yaml11_reading(text), value)


def same_value(left: Any, right: Any) -> bool:
    """Equal as typed YAML values: `1`, `1.0` and `true` are three different values."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float) and math.isnan(left):
        return math.isnan(right)
    return bool(left == right)


def describe(value: Any) -> str:
    """A short phrase for a reading, used in the ambiguity warning."""
    if value is MERGE_KEY:
        return "a merge key"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "null"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, datetime.datetime):
        return f"the date-time {value.isoformat()}"
    if isinstance(value, datetime.date):
        return f"the date {value.isoformat()}"
    if isinstance(value, str):
        return f"the string {value!r}"
    return f"a {type(value).__name__}"
