"""Small pure predicates for field formats, and the "did you mean" helper.

Each rule cites where it comes from (docs/specs.md#validation-rules, docs/security.md#yaml-loading).
"""

from __future__ import annotations

import datetime
import difflib
import math
import re
import sys
from collections.abc import Iterable
from typing import Any, TypeGuard

_SHA40 = re.compile(r"[0-9a-f]{40}\Z")
# Hub repo ids: `owner/name`, letters, digits, `-`, `_`, `.` (docs/specs.md#validation-rules, E1).
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+\Z", re.ASCII)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")


def is_sha40(value: str) -> bool:
    """A full commit SHA as the draft spec asks for revisions (D4): 40 lower-case hex."""
    return _SHA40.match(value) is not None


def is_repo_id(value: str) -> bool:
    return _REPO_ID.match(value) is not None and ".." not in value


def is_iso8601(value: str) -> bool:
    """An ISO-8601 date (`2026-01-15`) or date-time (`2026-01-15T10:30:00Z`, with offset)."""
    if _DATE.match(value):
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            return False
        return True
    if len(value) < 11 or value[10] not in "Tt ":
        return False
    try:
        datetime.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def is_http_url(value: str) -> bool:
    """An absolute http(s) URL with a host; anything else (javascript:, file:) is refused."""
    lowered = value.lower()
    for scheme in ("https://", "http://"):
        if lowered.startswith(scheme):
            rest = value[len(scheme) :]
            host = rest.split("/", 1)[0]
            return bool(host) and not any(char.isspace() for char in value)
    return False


def is_number(value: Any) -> bool:
    """int or float, never a bool (a YAML `true` is not a score)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite_number(value: Any) -> TypeGuard[int | float]:
    """A number a float can hold: an integer beyond float range (`9` x 400) counts as infinite."""
    if not is_number(value):
        return False
    if isinstance(value, int):
        return abs(value) <= sys.float_info.max
    return math.isfinite(value)


def benchmark_file_stem(dataset_id: str) -> str:
    """The draft naming rule (F2): repo-name part, lower-cased, `-` as `_` (`cais/hle` -> hle)."""
    return dataset_id.rsplit("/", 1)[-1].lower().replace("-", "_")


def did_you_mean(value: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to `value`: an exact case-insensitive match first, then difflib."""
    options = list(candidates)
    lowered = value.lower()
    for option in options:
        if option.lower() == lowered:
            return option
    close = difflib.get_close_matches(value, options, n=1, cutoff=0.6)
    if close:
        return close[0]
    by_lower = {option.lower(): option for option in options}
    close = difflib.get_close_matches(lowered, list(by_lower), n=1, cutoff=0.6)
    return by_lower[close[0]] if close else None


def suggestion_suffix(value: str, candidates: Iterable[str]) -> str:
    """`" (did you mean `x`?)"` or an empty string, to append to a hint."""
    match = did_you_mean(value, candidates)
    return f" (did you mean `{match}`?)" if match else ""
