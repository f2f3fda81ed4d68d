"""Every Eval Ever records, aggregate JSON and instance JSONL, checked with jsonschema against
the shipped schema of the version each declares, each error with its JSON path, line and column
(docs/validate.md, "Every Eval Ever records")."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from dataclasses import replace
from importlib import resources
from typing import Any

from jsonschema import Draft7Validator, validators  # type: ignore[import-untyped]

from bot.strictjson import DuplicateKey, JsonError, JsonReader, NumberOutOfRange, TooDeep
from bot.validation import diagnostics
from bot.validation.diagnostics import Diagnostic
from bot.validation.limits import Limits
from bot.validation.model import FileReport
from bot.validation.positions import Path, Position, dotted
from bot.validation.yamlload import load_yaml

VERSIONS = ("0.2.0", "0.2.2", "0.3.0")
AGGREGATE, INSTANCE = "aggregate", "instance"
MAX_BYTES = 64 * 1024 * 1024
MAX_ERRORS = 200  # per file: enough to fix, bounded for a hostile file
_POSITION_LIMITS = Limits(max_file_bytes=8 * 1024 * 1024, max_depth=64)


def _properties_null_is_absent(
    validator: Any, properties: dict[str, Any], instance: Any, schema: dict[str, Any]
) -> Any:
    """Draft-07 `properties`, except that `null` at an optional property reads as absent.

    EEE's own validator is its Pydantic models, where every optional field is `X | None`: its
    converters write `"evaluation_result_id": null`, and the published JSON schema (generated
    from those models) drops the `null`. A required property stays required and non-null."""
    if not validator.is_type(instance, "object"):
        return
    required = schema.get("required", ())
    for name, subschema in properties.items():
        if name not in instance:
            continue
        if instance[name] is None and name not in required:
            continue
        yield from validator.descend(instance[name], subschema, path=name, schema_path=name)


#: Draft-07 with EEE's reading of `null` (above); everything else as the schema says.
EeeValidator = validators.extend(Draft7Validator, {"properties": _properties_null_is_absent})


@functools.cache
def validator(kind: str, version: str) -> Any:
    """The compiled validator of one shipped schema (draft-07, as EEE declares)."""
    prefix = "eval" if kind == AGGREGATE else "instance_level_eval"
    text = resources.files("bot").joinpath(f"data/eee/{prefix}.schema.v{version}.json")
    schema = json.loads(text.read_bytes())
    Draft7Validator.check_schema(schema)
    return EeeValidator(schema)


def looks_like_eee(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and "schema_version" in data
        and ("evaluation_results" in data or "sample_id" in data)
    )


def records_in(reports: Iterable[FileReport]) -> int:
    """How many of `reports` are about EEE records (aggregate `.json` files; a samples file
    holds rows of one): what a summary of EEE files counts, as it counts entries of results."""
    return sum(1 for report in reports if report.kind == "eee" and report.path.endswith(".json"))


def validate_eee_file(path: str, content: bytes) -> FileReport:
    """An aggregate `.json` record, or `.jsonl` of instance-level rows (told by the suffix)."""
    report = FileReport(path=path, kind="eee")
    if len(content) > MAX_BYTES:
        report.diagnostics.append(
            diagnostics.make("EEE-TOO-LARGE", size=len(content), limit=MAX_BYTES)
        )
        return report
    if path.lower().endswith(".jsonl"):
        _validate_rows(report, content)
    else:
        check_document(report, content, AGGREGATE, line_offset=0)
    return report


def _validate_rows(report: FileReport, content: bytes) -> None:
    for number, raw in enumerate(content.split(b"\n"), start=1):
        if not raw.strip():
            continue
        check_document(report, raw, INSTANCE, line_offset=number - 1)
        if len(report.diagnostics) >= MAX_ERRORS:
            return


def check_document(
    report: FileReport,
    content: bytes,
    kind: str,
    *,
    line_offset: int = 0,
    versions: tuple[str, ...] = VERSIONS,
) -> Any:
    """Check one JSON document (a record, or one instance row) and add its diagnostics to
    `report`; returns what it parsed (None when it is not strict JSON), so callers that need
    more of the document (the datastore checks, `bot.eee`) read it once. `versions`: those the
    caller accepts (a datastore may accept fewer than evalbot ships)."""
    data = _parse_strict(report, content, line_offset)
    if data is _UNPARSED:
        return None
    if not isinstance(data, dict):
        report.diagnostics.append(_not_object(data, kind, line_offset))
        return data
    version = _accepted_version(report, content, data, line_offset, versions)
    if version is not None:
        _check_schema(report, content, data, kind, version, line_offset=line_offset)
    return data


#: What `_parse_strict` returns for a document it could not read (`null` is a JSON value).
_UNPARSED = object()


def _parse_strict(report: FileReport, content: bytes, line_offset: int) -> Any:
    """The document, read as strict JSON (keys once, finite numbers, bounded nesting); else a
    diagnostic in `report` and `_UNPARSED`."""
    try:
        return EEE_JSON.read(content)
    except TooDeep:
        problem, hint = (
            f"values nested more than {MAX_DEPTH} levels deep",
            "flatten the structure; EEE records nest a few levels",
        )
        line, column = None, None
    except (DuplicateKey, NumberOutOfRange) as error:
        problem, hint = error.msg, "write each key once, and finite numbers only"
        line, column = error.line, error.column
    except JsonError as error:
        problem = error.msg
        hint = "fix the JSON syntax (NaN and Infinity are not JSON; EEE writes them as text)"
        line, column = error.line, error.column
    report.diagnostics.append(
        diagnostics.make(
            "EEE-JSON",
            line=(line + line_offset) if line is not None else line_offset + 1,
            column=column,
            problem=problem,
            hint=hint,
        )
    )
    return _UNPARSED


_JSON_KINDS = {list: "a JSON array", str: "a JSON string", bool: "a JSON boolean"}


def _not_object(data: Any, kind: str, line_offset: int) -> Diagnostic:
    """A document that is JSON, but not the object an EEE record (or samples row) is."""
    found = next((name for t, name in _JSON_KINDS.items() if isinstance(data, t)), None)
    if found is None:
        found = "JSON null" if data is None else "a JSON number"
    record = kind == AGGREGATE
    return diagnostics.make(
        "EEE-NOT-OBJECT",
        line=line_offset + 1,
        what="file" if record else "row",
        found=found,
        hint=(
            "an EEE record is one JSON object `{...}`; several records go in several files"
            if record
            else "each row of a samples file is one JSON object, on a line of its own"
        ),
    )


def _accepted_version(
    report: FileReport,
    content: bytes,
    data: dict[str, Any],
    line_offset: int,
    versions: tuple[str, ...],
) -> str | None:
    """The document's `schema_version` when it is one of `versions`; else a diagnostic in
    `report` and None."""
    version = data.get("schema_version")
    if version is None:
        report.diagnostics.append(
            diagnostics.make(
                "EEE-VERSION",
                line=line_offset + 1,
                problem="no `schema_version`: an EEE record declares the schema it follows",
                hint=f'add `"schema_version": "{versions[-1]}"`',
            )
        )
        return None
    if isinstance(version, str) and version in versions:
        return version
    shipped = version in VERSIONS
    line, column = _at(_positions(content), ("schema_version",), line_offset)
    report.diagnostics.append(
        diagnostics.make(
            "EEE-VERSION",
            line=line,
            column=column,
            field="schema_version",
            problem=f"schema_version {json.dumps(version)[:40]} is not "
            + ("one this datastore accepts" if shipped else "one evalbot ships"),
            hint=f"write the record in one of {', '.join(versions)}"
            + ("" if shipped else " (or upgrade evalbot)"),
        )
    )
    return None


def _check_schema(
    report: FileReport, content: bytes, data: Any, kind: str, version: str, *, line_offset: int
) -> None:
    """The JSON Schema of `kind` at `version`: at most `MAX_ERRORS` diagnostics, in file order."""
    errors = sorted(
        validator(kind, version).iter_errors(data), key=lambda found: list(found.absolute_path)
    )
    if not errors:
        return
    positions = _positions(content)
    found: list[Diagnostic] = []
    for schema_error in errors[:MAX_ERRORS]:
        schema_path = "/".join(map(str, schema_error.absolute_schema_path))
        path: Path = tuple(schema_error.absolute_path)
        line, column = _at(positions, path, line_offset)
        field = dotted(path) or None
        found.append(
            diagnostics.make(
                "EEE-SCHEMA",
                line=line,
                column=column,
                field=field,
                where=field or "the record",
                problem=_short(schema_error.message),
                version=version,
                schema_path=schema_path,
            )
        )
    report.diagnostics.extend(sorted(found, key=lambda d: (d.line or 0, d.column or 0)))


#: Containers nested deeper than this are refused before any recursive reader (the schema
#: check, the normalised hash) walks them: a hostile file must not exhaust Python's stack.
MAX_DEPTH = 64

#: JSON as EEE's validator reads it: no NaN or infinities, no repeated key, bounded nesting.
EEE_JSON = JsonReader(bom=True, max_depth=MAX_DEPTH)


def _short(message: str, limit: int = 300) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


def located(content: bytes, found: list[Diagnostic]) -> list[Diagnostic]:
    """`found` with the line and column of each one's field (`a.b[0].c`) in `content` filled
    in where it has none; the bytes are read for positions only when one needs it."""
    if all(d.line is not None or d.field is None for d in found):
        return found
    positions = _positions(content)
    placed: list[Diagnostic] = []
    for diagnostic in found:
        if diagnostic.line is None and diagnostic.field is not None:
            line, column = _at(positions, _path_of(diagnostic.field), 0)
            placed.append(replace(diagnostic, line=line, column=column))
        else:
            placed.append(diagnostic)
    return placed


def position_of(content: bytes, path: Path) -> tuple[int | None, int | None]:
    """The line and column of the value at `path` in a JSON document (of its nearest parent
    that has one); (None, None) when the bytes do not read."""
    return _at(_positions(content), path, 0)


def _path_of(field: str) -> Path:
    """`evaluation_results[0].score_details.score` -> its path of keys and indices."""
    parts: list[str | int] = []
    for token in re.findall(r"[^.\[\]]+|\[\d+\]", field):
        parts.append(int(token[1:-1]) if token.startswith("[") else token)
    return tuple(parts)


def _positions(content: bytes) -> dict[Path, Position]:
    """Line and column of every value, by path; empty when the bytes do not read as YAML."""
    loaded = load_yaml(content, _POSITION_LIMITS)
    return loaded.positions if loaded.ok else {}


def _at(
    positions: dict[Path, Position], path: Path, line_offset: int
) -> tuple[int | None, int | None]:
    while True:
        position = positions.get(path)
        if position is not None:
            return position[0] + line_offset, position[1]
        if not path:
            return (line_offset + 1 if line_offset else None), None
        path = path[:-1]
