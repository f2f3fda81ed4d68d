"""Every diagnostic code of `bot.validation` with its severity, message and hint, in one place to
review. Codes are public (docs/diagnostics.md): rename one only with a changelog note."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    """An error fails validation; a warning never does, unless `--strict` is given."""

    ERROR = "error"
    WARNING = "warning"


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
