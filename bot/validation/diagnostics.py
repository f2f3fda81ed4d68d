"""Diagnostics: what every check of evalbot reports, every code with its message and hint.

A `Diagnostic` is one finding about one place in one file, in the one shape all outputs share
(the PR comment, `evalbot validate`'s text, JSON and annotations). Its JSON form is a public
interface (`evalbot validate --format json`, docs/validate.md#output-formats), so the field
names are fixed.

The catalogue holds every user-facing text of `bot.validation`, so they can be read, reviewed and
reworded in one place. Codes are stable public identifiers (users look them up in
`docs/diagnostics.md`, CI scripts match on them): rename one only with a migration note in the
changelog. Scheme: `YAML-*` the file could not be read as strict YAML, `FILE-*` the file as a
whole, `ENTRY-*` one result entry, `BENCH-*` a benchmark's eval.yaml.

Templates use `str.format` fields; `make` fills them. Values a user wrote are passed through
`shown` first so a long or odd value cannot flood a message; `suggestion_suffix` adds the
"did you mean" of a hint.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal


class Severity(StrEnum):
    """An error fails validation; a warning never does, unless `--strict` is given."""

    ERROR = "error"
    WARNING = "warning"


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


# --- every code, with its message and hint ----------------------------------------------------

E = Severity.ERROR
W = Severity.WARNING


@dataclass(frozen=True, slots=True)
class Message:
    severity: Severity
    text: str
    hint: str | None = None


CATALOGUE: dict[str, Message] = {
    # --- strict YAML loading: errors of the file -------------------------------------------
    "YAML-TOO-LARGE": Message(
        E,
        "file is {size} bytes, over the cap of {limit} bytes",
        "split the results over several files (one per benchmark)",
    ),
    "YAML-NOT-UTF8": Message(
        E,
        "file is not valid UTF-8 (byte {offset})",
        "save the file as UTF-8 (a UTF-8 byte-order mark is accepted)",
    ),
    "YAML-NUL-BYTE": Message(
        E, "file contains a NUL byte", "remove the NUL byte; YAML files are text"
    ),
    "YAML-SYNTAX": Message(
        E, "not valid YAML: {problem}", "check indentation, quotes and brackets near this line"
    ),
    "YAML-EMPTY": Message(
        E, "file holds no YAML document", "write a list of entries, each starting with `- `"
    ),
    "YAML-MULTIPLE-DOCUMENTS": Message(
        E,
        "file holds more than one YAML document",
        "remove the `---` separator; put all entries in one list",
    ),
    "YAML-DIRECTIVE": Message(
        E,
        "`%YAML` and `%TAG` directives are not allowed",
        "remove the directive lines; evalbot reads YAML 1.2 core",
    ),
    "YAML-TAG": Message(
        E,
        "explicit YAML tag `{tag}` is not allowed",
        "remove the tag; quote the value if it must stay a string",
    ),
    "YAML-DUPLICATE-KEY": Message(
        E,
        "key {key} appears twice in the same mapping (first on line {first_line})",
        "keep one of them: readers disagree on which value wins",
    ),
    "YAML-KEY-NOT-STRING": Message(
        E,
        "mapping key {key} is not a string",
        "quote the key; only string keys are allowed",
    ),
    "YAML-TOO-DEEP": Message(
        E,
        "nesting deeper than {limit} levels",
        "flatten the structure; result entries need only a few levels",
    ),
    "YAML-ALIAS-BUDGET": Message(
        E,
        "aliases expand to more than {limit} nodes",
        "write the values out instead of repeating large anchors",
    ),
    "YAML-ALIAS-UNDEFINED": Message(
        E,
        "alias `*{anchor}` refers to no earlier complete anchor",
        "define `&{anchor}` before using it, and not around the alias itself",
    ),
    "YAML-NUMBER-TOO-LONG": Message(
        E,
        "number with {digits} digits is too long to read",
        "quote it if it is an identifier, or shorten it",
    ),
    "YAML-RESOURCES": Message(
        E,
        "file exhausted the loader's resources ({problem})",
        "simplify the file: fewer levels, fewer repeated anchors",
    ),
    # --- the file as a whole ---------------------------------------------------------------
    "FILE-NOT-LIST": Message(
        E,
        "a results file must be a YAML list of entries, not {kind}",
        "start each entry with `- dataset:`",
    ),
    "FILE-EMPTY-LIST": Message(
        E, "results file holds no entries", "add at least one entry, or delete the file"
    ),
    "FILE-TOO-MANY-ENTRIES": Message(
        E,
        "file holds {count} entries, over the cap of {limit}",
        "split the results over several files",
    ),
    "FILE-TOO-MANY-FILES": Message(
        E,
        "{count} results files, over the cap of {limit} per run",
        "group results by benchmark: one file per benchmark",
    ),
    "FILE-UNREADABLE": Message(
        E,
        "the file could not be read from the Hub: {reason}",
        "nothing to fix in the file itself; a maintainer can ask for a recheck once the Hub "
        "serves it again",
    ),
    "FILE-PATH": Message(
        W,
        "{problem}; got `{path}`",
        "{verb} `.eval_results/{suggestion}`",
    ),
    "FILE-IS-BENCHMARK": Message(
        E,
        "this is a benchmark definition (it has `tasks`), not a results file: the Hub reads a"
        " benchmark only from `eval.yaml` at the root of its dataset repo",
        "name it `eval.yaml` at the dataset repo's root (`evalbot validate path/to/eval.yaml`"
        " checks it); results files are YAML lists in a model repo's `.eval_results/`",
    ),
    "FILE-NAME": Message(
        W,
        "file name `{name}` does not follow the naming rule for `{dataset_id}`",
        "name it `{expected}` (benchmark repo name, lower-cased, `-` as `_`)",
    ),
    # --- one result entry ------------------------------------------------------------------
    "ENTRY-NOT-MAPPING": Message(
        E, "entry must be a mapping, not {kind}", "write `- dataset: ...` with indented fields"
    ),
    "ENTRY-FIELD-MISSING": Message(E, "required field `{field}` is missing", "{hint}"),
    "ENTRY-FIELD-TYPE": Message(E, "`{field}` must be {expected}, not {kind}", "{hint}"),
    "ENTRY-FIELD-UNKNOWN": Message(
        W, "unknown field `{field}`", "check the spelling{suggestion}; unknown fields are ignored"
    ),
    "ENTRY-DIALECT-MIXED": Message(
        E,
        "entry has both `value` and `metrics`",
        "keep `metrics:` (one item per metric) or a single `value:`, not both",
    ),
    "ENTRY-VALUE-MISSING": Message(
        E,
        "entry has neither `value` nor `metrics`",
        "add `value: <score>` or `metrics: [{{metric_id: ..., value: ...}}]`",
    ),
    "ENTRY-VALUE-NOT-NUMBER": Message(E, "`{field}` must be a number, not {kind}", "{hint}"),
    "ENTRY-VALUE-NOT-FINITE": Message(
        E, "`{field}` must be a finite number, not {value}", "report a finite score"
    ),
    "ENTRY-VALUE-TYPE": Message(
        E, "`{field}` is {value}, not {expected} as `value_type: {value_type}` says", "{hint}"
    ),
    "ENTRY-VALUE-TYPE-UNKNOWN": Message(
        E,
        "`value_type` {value} is not one of float, int, percentage, rank",
        "use one of: float, int, percentage, rank{suggestion}",
    ),
    "ENTRY-VALUE-RANGE": Message(
        E,
        "`{field}` is {value}, outside the metric's declared range [{low}, {high}]",
        "check the value and its scale",
    ),
    "ENTRY-VALUE-SCALE": Message(
        W,
        "`{field}` is {value}, which looks like a {looks} score while {why}",
        "{hint}",
    ),
    "ENTRY-METRICS-EMPTY": Message(
        E, "`metrics` must list at least one metric", "add `- metric_id: ...` and `value: ...`"
    ),
    "ENTRY-METRIC-DUPLICATE": Message(
        E,
        "metric `{metric_id}` appears twice in this entry",
        "keep one value per metric; use another entry with `notes` for another setup",
    ),
    "ENTRY-DATASET-ID": Message(
        E,
        "`dataset.id` {value} is not a Hub repo id of the form `owner/name`",
        "write the benchmark dataset's id, e.g. `Idavidrein/gpqa`",
    ),
    "ENTRY-REVISION": Message(
        W,
        "`{field}` {value} is not a full 40-character commit SHA",
        "pin the full commit SHA (40 lower-case hex characters)",
    ),
    "ENTRY-DATE": Message(
        E,
        "`date` {value} is not an ISO-8601 date or date-time",
        'write it quoted, e.g. `date: "2026-01-15"` or `"2026-01-15T10:30:00Z"`',
    ),
    "ENTRY-URL": Message(
        E,
        "`{field}` {value} is not an http(s) URL",
        "link to an https:// page (logs, paper, model card)",
    ),
    "ENTRY-SOURCE-URL-MISSING": Message(
        E,
        "`source` is given without `source.url`",
        "add `url:` under `source:` (a link to logs, a paper or a model card)",
    ),
    "ENTRY-SOURCE-MISMATCH": Message(
        E,
        "{what} disagrees with the linked Every Eval Ever record: this entry says {mine}, the "
        "record's `{record_field}` says {theirs} ({url})",
        "{fix}",
    ),
    "ENTRY-SOURCE-INVALID": Message(
        E,
        "the linked Every Eval Ever record is not a valid record of the version it declares "
        "({count} problems; first: {problem}) ({url})",
        "link a valid record; `evalbot validate` on the record names every problem",
    ),
    "ENTRY-SOURCE-NOT-FOUND": Message(
        E,
        "the linked record is not in {datastore} at revision {revision}: {path} ({url})",
        "link the record's file at a revision that holds it (the datastore's commit, as EEE's "
        "converter writes it)",
    ),
    "ENTRY-TOKEN-BOTH": Message(
        E,
        "entry has both `verify_token` and `verifyToken`",
        "keep one token field",
    ),
    "ENTRY-TOKEN-KEY": Message(
        W,
        "`{key}` in an entry with `{shape}`: {reader} reads the token as `{expected}` there,"
        " and drops `{key}`",
        "rename `{key}` to `{expected}` (the token stays valid: it does not cover its key)",
    ),
    "ENTRY-YAML11-AMBIGUOUS": Message(
        W,
        "`{field}: {text}` reads as {ours} under YAML 1.2 but as {theirs} under YAML 1.1",
        "quote it ({quoted}) or write it unambiguously; a token cannot be verified over it",
    ),
    "ENTRY-NUMBER-NOTATION": Message(
        W,
        "`{field}: {text}` is written in hexadecimal ({value})",
        "write the decimal number `{value}`",
    ),
    "ENTRY-BENCHMARK-UNKNOWN": Message(
        E,
        "benchmark `{dataset_id}` is not known: {reason}",
        "{hint}",
    ),
    "ENTRY-BENCHMARK-INVALID": Message(
        E,
        "benchmark `{dataset_id}` has an invalid eval.yaml ({count} errors)",
        "the benchmark's maintainers must fix its eval.yaml; `evalbot validate eval.yaml`"
        " shows the errors",
    ),
    "ENTRY-BENCHMARK-CASE": Message(
        W,
        "benchmark id `{dataset_id}` is spelled `{canonical}` on the Hub",
        "write `{canonical}`",
    ),
    "ENTRY-TASK-UNKNOWN": Message(
        E,
        "task `{task_id}` is not a task of `{dataset_id}` (tasks: {known})",
        "{hint}",
    ),
    "ENTRY-METRIC-UNKNOWN": Message(
        E,
        "metric `{metric_id}` is not a metric of `{dataset_id}` (metrics: {known})",
        "{hint}",
    ),
    "ENTRY-METRICS-UNDECLARED": Message(
        E,
        "`{dataset_id}` declares no metrics, so `metrics` cannot be matched",
        "report the score as a single `value:` (the benchmark's main score)",
    ),
    "ENTRY-PRIMARY-MISSING": Message(
        W,
        "entry does not report the primary metric `{metric_id}` of `{dataset_id}`",
        "add `- metric_id: {metric_id}`; without it the result cannot be ranked",
    ),
    "ENTRY-FRAMEWORK-MISMATCH": Message(
        W,
        "`framework.name` {value} differs from the benchmark's evaluation_framework `{expected}`",
        "the leaderboard is bound to `{expected}`; report results produced with it",
    ),
    "ENTRY-DUPLICATE": Message(
        E,
        "same benchmark, task and notes as entry {other_number} (`[{other_index}]`) of"
        " `{other_path}`",
        "keep one of them, or tell the setups apart with `notes` (e.g. `notes: With tools`)",
    ),
    # --- a benchmark's eval.yaml -------------------------------------------------------------
    "BENCH-NOT-MAPPING": Message(
        E, "eval.yaml must be a mapping, not {kind}", "start with `name:`, `description:`, `tasks:`"
    ),
    "BENCH-FIELD-MISSING": Message(E, "required field `{field}` is missing", "{hint}"),
    "BENCH-FIELD-TYPE": Message(E, "`{field}` must be {expected}, not {kind}", "{hint}"),
    "BENCH-TASKS-EMPTY": Message(E, "`tasks` must list at least one task", "add `- id: <task id>`"),
    "BENCH-TASK-DUPLICATE": Message(
        E, "task id `{task_id}` is declared twice", "give every task a unique `id`"
    ),
    "BENCH-METRICS-EMPTY": Message(
        E,
        "`metrics` is an empty list",
        "list at least one metric, or remove `metrics` (results then report one `value`)",
    ),
    "BENCH-METRIC-DUPLICATE": Message(
        E, "metric id `{metric_id}` is declared twice", "give every metric a unique `id`"
    ),
    "BENCH-PRIMARY": Message(
        E,
        "{count} metrics are marked `primary: true`; exactly one must be",
        "mark the metric the leaderboard ranks by with `primary: true`, and only that one",
    ),
    "BENCH-SCORE-RANGE": Message(
        E,
        "metric `{metric_id}` has min_score {low} above max_score {high}",
        "swap or fix the bounds",
    ),
    "BENCH-ENUM": Message(
        E, "`{field}` {value} is not one of: {allowed}", "use one of the listed values{suggestion}"
    ),
    "BENCH-REVISION": Message(
        W,
        "`{field}` {value} is not a full 40-character commit SHA",
        "pin the full commit SHA (40 lower-case hex characters)",
    ),
    "BENCH-FRAMEWORK-UNKNOWN": Message(
        W,
        "evaluation_framework {value} is not in the bot's copy of the Hub's list"
        " ({count} frameworks, refreshed {refreshed})",
        "{advice}",
    ),
    # Every Eval Ever records (`bot.validation.eee`), validated against the schema they declare.
    "EEE-JSON": Message(E, "not valid JSON: {problem}", "{hint}"),
    "EEE-NOT-OBJECT": Message(E, "the {what} holds {found}, not a JSON object", "{hint}"),
    "EEE-VERSION": Message(E, "{problem}", "{hint}"),
    "EEE-SCHEMA": Message(
        E,
        "{where}: {problem}",
        "see the EEE {version} schema at `{schema_path}`",
    ),
    "EEE-TOO-LARGE": Message(
        E, "the file is {size} bytes, over the {limit}-byte cap", "split it into smaller files"
    ),
}


# --- filling the texts ------------------------------------------------------------------------


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
