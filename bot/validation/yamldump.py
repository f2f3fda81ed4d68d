"""Result entries written as YAML that YAML 1.1 and 1.2 readers read back as the same values: a
string is plain only when it is unmistakably a string for both, else double-quoted (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*\Z")
#: Words YAML 1.1 reads as booleans or null.
_KEYWORDS = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf", "infinity"}
)


#: libyaml's emitter when PyYAML was built with it (ten times faster), else the pure one.
_BASE: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _EntryDumper(_BASE):  # type: ignore[valid-type,misc]
    pass


def _represent_str(dumper: Any, value: str) -> yaml.ScalarNode:
    plain = _PLAIN.match(value) is not None and value.lower() not in _KEYWORDS
    style = None if plain else '"'
    node: yaml.ScalarNode = dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)
    return node


def _represent_float(dumper: Any, value: float) -> yaml.ScalarNode:
    """A float that carries its exact decimal text (`bot.convert.scale.Scaled`: a converted
    value such as `88.85298869143781`) is written as that text, so the file shows the source's
    digits; it reads back as the very same double (checked here), so the digest the issuer
    signed over the JSON number is the digest the bot computes from the file."""
    text = getattr(value, "text", None)
    if type(value) is not float and isinstance(text, str) and _reads_back(text, value):
        node: yaml.ScalarNode = dumper.represent_scalar("tag:yaml.org,2002:float", text)
        return node
    represented: yaml.ScalarNode = dumper.represent_float(float(value))
    return represented


def _reads_back(text: str, value: float) -> bool:
    try:
        return float(text) == value and "." in text
    except ValueError:
        return False


_EntryDumper.add_representer(str, _represent_str)
_EntryDumper.add_multi_representer(float, _represent_float)


def dump_entries(entries: Sequence[Any]) -> str:
    """The YAML text of a results file holding `entries` (a top-level list), keys in order."""
    if not entries:
        return "[]\n"
    return yaml.dump(
        list(entries),
        Dumper=_EntryDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=10_000,
    )


def dump_mapping(data: Mapping[str, Any]) -> str:
    """The YAML text of a document holding the mapping `data`, keys in order, read back by
    every YAML version as the same values (a collection written by `collections import`)."""
    return yaml.dump(
        dict(data),
        Dumper=_EntryDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
