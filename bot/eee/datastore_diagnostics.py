"""The datastore's diagnostics: every `EEE-*` code of `bot.eee` with its message and fix (stable
codes, listed in docs/eee.md; a record's own JSON and schema codes are `bot.validation.eee`'s)."""

from __future__ import annotations

from bot.validation.catalogue import Message, Severity
from bot.validation.diagnostics import Diagnostic, build

E = Severity.ERROR
W = Severity.WARNING

CATALOGUE: dict[str, Message] = {
    "EEE-PATH": Message(
        E,
        "{problem}",
        "put the record at `data/<collection>/<developer>/<model>/<uuid4>.json`"
        " (its samples beside it as `<uuid4>_samples.jsonl`), with a lower-case version-4 uuid",
    ),
    # A warning that blocks the merge (`BLOCKING_WARNINGS`), as EEE's gate has it.
    "EEE-FOLDER": Message(W, "{problem}", "{hint}"),
    "EEE-MOVED-IDENTITY": Message(
        E,
        "this change makes `{field}` {new} (was {old}), so the record now belongs in `{expected}`",
        "delete the file here and add it under `{expected}/` (with its samples file)",
    ),
    "EEE-SCORE": Message(E, "{problem}", "{hint}"),
    "EEE-PAIR": Message(E, "{problem}", "{hint}"),
    "EEE-CHECKSUM": Message(
        E,
        "`detailed_evaluation_results.checksum` is {declared}, but the {algorithm} of `{path}`"
        " is {actual}",
        "recompute it over the samples file's exact bytes (`sha256sum FILE`) and write it here",
    ),
    "EEE-NO-CHECKSUM": Message(
        W,
        "the record declares no `checksum` and `hash_algorithm` for `{path}`",
        'add `"hash_algorithm": "sha256"` and the file\'s sha256 (`sha256sum FILE`),'
        " so a changed or truncated upload is caught",
    ),
    "EEE-SAMPLES-PARTIAL": Message(
        W,
        "rows after the first {rows:,} were checked as JSON objects with the record's ids,"
        " not against the whole schema (a bound on time for very large files)",
        "run `evalbot validate` on the datastore folder to check every row in full",
    ),
    "EEE-SAMPLES-ROW": Message(
        E,
        "this row is not a strict JSON object (no NaN, infinities or repeated keys)",
        "write one JSON object per line",
    ),
    "EEE-TOO-MANY": Message(
        E,
        "this PR changes {count} more datastore files than the {limit} the bot checks in one PR;"
        " they (from this file on, in path order) are not checked",
        "split the upload into PRs of at most {limit} files",
    ),
    "EEE-SAMPLES-LIMIT": Message(
        E,
        "{problem}",
        "split the run into several records, each with its own samples file",
    ),
    "EEE-DUPLICATE": Message(
        E,
        "the same evaluation as {where} (EEE's normalised hash {digest})",
        "drop this record, or change what makes it a different evaluation;"
        " `evaluation_id` and `retrieved_timestamp` do not count",
    ),
    "EEE-DELETED": Message(
        W,
        "this PR deletes `{path}` from the datastore",
        "make sure the deletion is intended (a record moves by adding it under its new folder)",
    ),
}


#: The `{where}` of `EEE-DUPLICATE`.
DUPLICATE_ON_MAIN = "`{path}` on main"
DUPLICATE_IN_PR = "`{path}` in open PR #{pr}"
DUPLICATE_EARLIER = "`{path}` in open PR #{pr}, which held it first"
DUPLICATE_COPIED = (
    "`{path}` in open PR #{pr} by another account, which held it first; this file is a"
    " byte-for-byte copy of it"
)

#: Warnings that keep a PR from being ready whatever `warnings_block` says: EEE's own gate
#: reports them as warnings, and its README has every warning block the merge until fixed.
BLOCKING_WARNINGS = frozenset({"EEE-FOLDER"})

# --- EEE-FOLDER: which folder does not follow the record, and why --------------------------------

FOLDER_PART = "the {part} folder is `{actual}`, but {source} names the {part} `{expected}`"
FOLDER_PARTS = "the developer and model folders are `{actual}`, but {source} names `{expected}`"
FOLDER_SOURCE_ID = "`model_info.id` {id}"
FOLDER_SOURCE_FLAT = "`model_info.developer` {developer} with `model_info.id` {id}"
FOLDER_COLLECTION = (
    "the collection folder is `{actual}`, but `{field}` {value} names the collection"
    " `{expected}` (this datastore files records by their source)"
)
FOLDER_NONE = "{problem}, so the record names no datastore folder"
FOLDER_HINT = (
    "move the file to `{expected}/`, or correct `{field}` so that it names this folder: one"
    " model under two spellings is two models to whoever looks it up"
)
FOLDER_HINT_COLLECTION = "move the file to `{expected}/`, or correct `{field}`"
FOLDER_HINT_NONE = (
    "write `model_info.id` as `developer/model` (or give `model_info.developer`), in names"
    " every file system takes"
)


def make(
    code: str,
    *,
    line: int | None = None,
    column: int | None = None,
    field: str | None = None,
    **params: object,
) -> Diagnostic:
    """The diagnostic for `code`, its message and fix filled from `params`."""
    return build(CATALOGUE[code], code, line=line, column=column, field=field, params=params)
