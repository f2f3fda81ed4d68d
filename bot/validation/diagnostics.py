"""`Diagnostic`, one finding about one place in one file in the shape every output shares (its
JSON is public: docs/validate.md#output-formats), and `make`, which builds one from its code."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bot.validation.catalogue import CATALOGUE, Message, Severity

FixAction = Literal["replace", "rename-key", "rewrite", "rename-file"]


#: An entry's token key, as each dialect spells it (the verifier leaves both out of the digest).
TOKEN_SPELLINGS = ("verify_token", "verifyToken")
TOKEN_PATHS = tuple((key,) for key in TOKEN_SPELLINGS)


@dataclass(frozen=True, slots=True)
class Fix:
    """The one edit that resolves a finding, as data (`evalbot validate --fix`).

    A finding gets one only when a single answer is right (docs/validate.md#fixing):
    `replace` the value at the finding's field with `value`; `rename-key` the key at the
    field to `value`; `rewrite` the value at the field as the YAML text `text` (the same
    value as YAML 1.2 reads it, written so YAML 1.1 reads it the same); `rename-file` the
    file to `value`, a repo-relative path. `text`, when set, is the exact YAML text to write
    (`78.8` for the string "78.8" made a number); `path` is the field as a path, relative to
    the entry for an entry's finding, to the document for a file's.
    """

    action: FixAction
    value: str | int | float
    path: tuple[str | int, ...] = ()
    text: str | None = None

    @property
    def keeps_value(self) -> bool:
        """True when the file's data reads the same after the edit (a signed entry's digest
        does not change): the digest leaves the token out, so its key's spelling is free."""
        if self.action == "rename-key":
            return self.path in TOKEN_PATHS and self.value in TOKEN_SPELLINGS
        return self.action in ("rewrite", "rename-file")

    @property
    def reveals_token(self) -> bool:
        """A misspelt key renamed to a token key: the entry it is in is signed once made."""
        return self.action == "rename-key" and len(self.path) == 1 and self.value in TOKEN_SPELLINGS

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"action": self.action, "value": self.value}
        if self.text is not None:
            found["text"] = self.text
        return found


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about one place in one file.

    `line` and `column` are 1-based (None when the finding concerns the whole file, or a
    field that is missing and so has no position of its own). `field` is a dotted path inside
    the entry or document, e.g. `dataset.task_id` or `metrics[1].value`.
    """

    code: str
    severity: Severity
    message: str
    line: int | None = None
    column: int | None = None
    field: str | None = None
    hint: str | None = None
    fix: Fix | None = None  # the edit that resolves it, when exactly one is right

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def hub_path(self, entry_index: int | None = None) -> str | None:
        """Where the finding is, in the notation of the Hub's own push-time errors.

        The Hub validates a results file as one array and names a place by the entry's 0-based
        index and the field within it, `[18].source.url`; printing the same lets a user match
        the bot's finding with the Hub's. `entry_index` is the entry's index for an entry's
        finding, None for a file's (then the field alone, as in a benchmark's `tasks[0].id`).
        """
        if entry_index is None:
            return self.field
        if self.field is None:
            return f"[{entry_index}]"
        separator = "" if self.field.startswith("[") else "."
        return f"[{entry_index}]{separator}{self.field}"

    def to_json(self, entry_index: int | None = None) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "field": self.field,
            "hub_path": self.hub_path(entry_index),
            "hint": self.hint,
            "fix": self.fix.to_json() if self.fix is not None else None,
        }


def shown(value: object, limit: int = 60) -> str:
    """A user value as a message shows it: repr-like, quoted strings, cut when long."""
    if isinstance(value, str):
        text = repr(value) if value else "''"
    elif value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def kind_of(value: object) -> str:
    """The YAML name of a value's type, for `must be X, not Y` messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def make(
    code: str,
    *,
    line: int | None = None,
    column: int | None = None,
    field: str | None = None,
    fix: Fix | None = None,
    **params: object,
) -> Diagnostic:
    """Build the diagnostic for `code`, filling its message and hint from `params`."""
    return build(
        CATALOGUE[code], code, line=line, column=column, field=field, params=params, fix=fix
    )


def build(
    message: Message,
    code: str,
    *,
    line: int | None,
    column: int | None,
    field: str | None,
    params: Mapping[str, object],
    fix: Fix | None = None,
) -> Diagnostic:
    """A diagnostic from any catalogue's `Message` (collections keep their own texts)."""
    values = {"field": field, **params}
    hint = message.hint.format(**values) if message.hint else None
    return Diagnostic(
        code=code,
        severity=message.severity,
        message=message.text.format(**values),
        line=line,
        column=column,
        field=field,
        hint=hint or None,
        fix=fix,
    )


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


def unique_match(value: str, candidates: Iterable[str]) -> str | None:
    """The one candidate `value` stands for, or None when it could be several (or none): the
    only candidate equal to it but for case, else the only one close to it (difflib's ratio of
    at least 0.6, compared case-folded). What `--fix` applies; `did_you_mean` may still
    suggest the closest of several."""
    options = list(dict.fromkeys(candidates))
    lowered = value.casefold()
    same = [option for option in options if option.casefold() == lowered]
    if same:
        return same[0] if len(same) == 1 else None
    by_folded: dict[str, list[str]] = {}
    for option in options:
        by_folded.setdefault(option.casefold(), []).append(option)
    close = difflib.get_close_matches(lowered, list(by_folded), n=2, cutoff=0.6)
    if len(close) != 1 or len(by_folded[close[0]]) != 1:
        return None
    return by_folded[close[0]][0]


def close_matches(value: str, candidates: Iterable[str]) -> list[str]:
    """Every candidate close to `value` (difflib's ratio of at least 0.6, case-folded)."""
    by_folded = {option.casefold(): option for option in candidates}
    found = difflib.get_close_matches(
        value.casefold(), list(by_folded), n=len(by_folded), cutoff=0.6
    )
    return [by_folded[match] for match in found]


def suggestion_suffix(value: str, candidates: Iterable[str]) -> str:
    """`" (did you mean `x`?)"` or an empty string, to append to a hint."""
    match = did_you_mean(value, candidates)
    return f" (did you mean `{match}`?)" if match else ""
