"""Every user-facing text of the collection checks: the `COLL-*` codes (stable, listed in
docs/collections.md) with their messages and hints."""

from __future__ import annotations

from bot.validation import diagnostics as validation_diagnostics
from bot.validation.catalogue import Message, Severity
from bot.validation.diagnostics import Diagnostic

E = Severity.ERROR
W = Severity.WARNING

#: IMPORT-UNMAPPED's hint when the mapping table knows nothing of the benchmark.
IMPORT_UNMAPPED_HINT = (
    "add `--map {id}=OWNER/NAME:TASK` (the Hub dataset whose eval.yaml defines it, and its "
    "task), or `--drop-unmapped` to leave it out"
)
#: ... when it knows the one target, and when it knows candidates.
IMPORT_KNOWN_HINT = "the mapping table knows it: add `{flag}`, or `--map-known` for every such one"
IMPORT_CANDIDATES_HINT = "{note}: `{flags}`; or `--drop-unmapped` to leave it out"

CATALOGUE: dict[str, Message] = {
    "COLL-NOT-MAPPING": Message(
        E, "a collection must be a mapping, not {kind}", "start with `name:` and `benchmarks:`"
    ),
    "COLL-FIELD-MISSING": Message(E, "required field `{field}` is missing", "{hint}"),
    "COLL-FIELD-TYPE": Message(E, "`{field}` must be {expected}, not {kind}", "{hint}"),
    "COLL-FIELD-UNKNOWN": Message(E, "`{field}` is not a field evalbot reads", "{hint}"),
    "COLL-EVALHUB-SHAPE": Message(
        E,
        "`{field}` is EvalHub's nested shape, which evalbot does not read in place",
        "run `evalbot collections import FILE` to convert the collection (it maps "
        "`primary_score.metric`, `primary_score.lower_is_better` and `pass_criteria.threshold`)",
    ),
    "IMPORT-UNMAPPED": Message(
        E,
        "EvalHub benchmark {value} has no Hub benchmark to stand for it",
        "{hint}",
    ),
    "COLL-THRESHOLD-FRACTION": Message(
        W,
        "threshold {value} is on a 0-{high} scale but lies between 0 and 1: it is almost "
        "always a fraction",
        "if {value} is a fraction of the whole, write {percent}; keep {value} only if you mean "
        "{value} out of {high}",
    ),
    "COLL-ID-MISMATCH": Message(
        E,
        "`id` is {value} but the file is named {stem}.yaml",
        "the file name is the collection id: rename the file or remove `id:`",
    ),
    "COLL-BENCHMARKS-EMPTY": Message(
        E, "`benchmarks` must list at least one benchmark", "add `- id: <org>/<name>` items"
    ),
    "COLL-WEIGHT-NEGATIVE": Message(
        E, "weight {value} is negative", "use a weight of 0 or more (0: gated, not aggregated)"
    ),
    "COLL-WEIGHTS-ZERO": Message(
        E,
        "every weight is 0, so there is no aggregate to compare with the pass threshold",
        "give at least one benchmark a positive weight",
    ),
    "COLL-BENCHMARK-DUPLICATE": Message(
        E,
        "benchmark {benchmark} task {task} metric {metric} is listed twice "
        "(first at line {first_line})",
        "keep one of them, or tell them apart with `notes:`",
    ),
    "COLL-BENCHMARK-UNKNOWN": Message(
        E, "benchmark {benchmark} cannot be read: {reason}", "check the benchmark id{suggestion}"
    ),
    "COLL-BENCHMARK-CASE": Message(
        W,
        "benchmark id {value} is spelled {canonical} on the Hub",
        "write `{canonical}`",
    ),
    "COLL-TASK-UNKNOWN": Message(
        E,
        "benchmark {benchmark} declares no task {value}",
        "use one of its tasks: {known}{suggestion}",
    ),
    "COLL-METRIC-UNKNOWN": Message(
        E,
        "benchmark {benchmark} declares no metric {value}",
        "use one of its metrics: {known}{suggestion}",
    ),
    "COLL-METRIC-UNDECLARED": Message(
        E,
        "benchmark {benchmark} declares no metrics, so its results carry one `value`; "
        "metric {value} cannot be read",
        "remove `metric:` (or write `metric: value`)",
    ),
    "COLL-DIRECTION": Message(
        E,
        "`lower_is_better: {lower}` disagrees with benchmark {benchmark}, whose metric {metric} "
        "has `higher_is_better: {higher}`",
        "write `lower_is_better: {expected}` (or remove it: the benchmark says)",
    ),
    "COLL-SCALE-UNKNOWN": Message(
        E,
        "no scale is known for benchmark {benchmark} metric {metric}, so its score cannot be "
        "put on the collection's scale",
        "add `scale: percent` (0-100) or `scale: fraction` (0-1), or `bounds: {{best: …, "
        "worst: …}}` for a lower-is-better or unbounded metric",
    ),
    "COLL-SCALE-CONFLICT": Message(
        E,
        "`{field}` says {declared} but benchmark {benchmark} declares metric {metric} on "
        "[{low}, {high}]",
        "remove `{field}`: the benchmark's own range is used",
    ),
    "COLL-SCALE-ENUM": Message(
        E, "`{field}` is {value}; expected `percent` or `fraction`", "write `percent` or `fraction`"
    ),
    "COLL-BOUNDS-BOTH": Message(
        E,
        "`scale` and `bounds` are both given",
        "keep one: `scale` for 0-100 or 0-1 metrics, `bounds` for any other",
    ),
    "COLL-BOUNDS-DIRECTION": Message(
        E,
        "bounds best {best} and worst {worst} do not match the direction: {direction}",
        "{hint}",
    ),
    "COLL-THRESHOLD-RANGE": Message(
        E,
        "threshold {value} is outside the range [{low}, {high}] this benchmark's results are on",
        "{hint}",
    ),
    "COLL-PASS-RANGE": Message(
        E,
        "pass threshold {value} is outside the aggregate's {scale} scale [0, {high}]",
        "{hint}",
    ),
}


def make(
    code: str,
    *,
    line: int | None = None,
    column: int | None = None,
    field: str | None = None,
    **params: object,
) -> Diagnostic:
    """Build the diagnostic for `code` from this catalogue (same shape as `bot.validation`'s)."""
    return validation_diagnostics.build(
        CATALOGUE[code], code, line=line, column=column, field=field, params=params
    )
