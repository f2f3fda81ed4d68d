"""What a schema (a shipped version or a draft) would do to the records a datastore already
holds: schema validity of aggregate records only, failures grouped by rule (`evalbot eee impact`,
docs/eee.md)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft7Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

from bot.strictjson import JsonError, NotUtf8, TooDeep
from bot.validation.eee import (
    AGGREGATE,
    EEE_JSON,
    MAX_DEPTH,
    VERSIONS,
    EeeValidator,
    position_of,
    validator,
)
from bot.validation.positions import dotted
from bot.validation.yamlload import load_yaml

EXAMPLES = 3
_DRAFT_07 = "http://json-schema.org/draft-07/schema"


class SchemaFileError(ValueError):
    """A draft schema that cannot be measured with; the message names the file, the line where
    there is one, and the fix."""


@dataclass(frozen=True, slots=True)
class Target:
    """The schema measured: `version` is what each record is made to declare, `label` how the
    report names the schema (the version, or the draft's file)."""

    version: str
    label: str
    validator: Any


def shipped(version: str) -> Target:
    """A schema version evalbot ships; ValueError for another."""
    if version not in VERSIONS:
        raise ValueError(f"{version!r} is not one of {', '.join(VERSIONS)}")
    return Target(version, version, validator(AGGREGATE, version))


def draft_schema(content: bytes, name: str) -> Target:
    """A draft aggregate schema (draft-07, as EEE writes them) read from `content`, shown as
    `name`; `SchemaFileError` when it is not JSON, not an object, or not a valid schema."""
    try:
        schema = EEE_JSON.read(content)
    except NotUtf8 as error:
        raise SchemaFileError(
            f"{name}: not a JSON file ({error.msg}); save the schema as UTF-8 JSON"
        ) from error
    except TooDeep as error:
        raise SchemaFileError(
            f"{name}: nested more than {MAX_DEPTH} levels deep; is it a schema?"
        ) from error
    except JsonError as error:
        line, column = error.line, error.column
        if line is None:  # a repeated key, a non-finite number: the YAML reader places it
            placed = [d for d in load_yaml(content).diagnostics if d.line is not None]
            line, column = (placed[0].line, placed[0].column) if placed else (None, None)
        where = f"{name}:{line}:{column or 1}" if line is not None else name
        raise SchemaFileError(
            f"{where}: not valid JSON: {error.msg}; fix the syntax (each key once, finite numbers)"
        ) from error
    if not isinstance(schema, dict):
        raise SchemaFileError(
            f"{name}: holds a JSON {type(schema).__name__}, not a schema object; an EEE schema"
            " is one JSON object (`eval.schema.json`)"
        )
    declared = schema.get("$schema")
    if declared is not None and str(declared).rstrip("#") != _DRAFT_07:
        line, _column = position_of(content, ("$schema",))
        raise SchemaFileError(
            f"{name}:{line}: `$schema` is {json.dumps(declared)[:80]}; EEE's schemas are"
            f' draft-07: write `"$schema": "{_DRAFT_07}#"`'
        )
    try:
        Draft7Validator.check_schema(schema)
    except SchemaError as error:
        path = tuple(error.absolute_path)
        line, column = position_of(content, path)
        place = f"{name}:{line}:{column}" if line is not None and column is not None else name
        where = dotted(path) or "the schema"
        raise SchemaFileError(
            f"{place}: not a valid draft-07 schema at `{where}`: {_short(error.message)};"
            " fix the keyword there (https://json-schema.org/draft-07/json-schema-validation)"
        ) from error
    _check_refs(schema, schema, (), content, name)
    if "properties" not in schema or "evaluation_results" not in schema["properties"]:
        raise SchemaFileError(
            f"{name}: declares no `properties.evaluation_results`: measure with the aggregate"
            " schema (`eval.schema.json`), not the instance-level one"
        )
    version = schema.get("version")
    label = f"{name} (draft" + (f" of {version})" if isinstance(version, str) else ")")
    return Target(version if isinstance(version, str) else "draft", label, EeeValidator(schema))


@dataclass(slots=True)
class Rule:
    rule: str
    records: int = 0
    examples: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ImpactReport:
    version: str
    #: how the report names the schema: the version, or a draft's file
    schema: str = ""
    records: int = 0
    unreadable: int = 0
    #: schema-invalid under the version they declare
    invalid_now: int = 0
    #: schema-invalid under the schema measured
    invalid_after: int = 0
    #: schema-valid under the version they declare, schema-invalid under the schema measured
    newly_invalid: int = 0
    rules: list[Rule] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "schema": self.schema or self.version,
            "records": self.records,
            "unreadable": self.unreadable,
            "invalid_now": self.invalid_now,
            "invalid_after": self.invalid_after,
            "newly_invalid": self.newly_invalid,
            "rules": [
                {"rule": r.rule, "records": r.records, "examples": r.examples} for r in self.rules
            ],
        }


def assess(records: Iterable[tuple[str, bytes]], schema: Target | str) -> ImpactReport:
    """`records`: (path, bytes) of aggregate records; `schema` a shipped version or a draft
    (`draft_schema`)."""
    target = shipped(schema) if isinstance(schema, str) else schema
    report = ImpactReport(target.version, target.label)
    rules: dict[str, Rule] = {}
    for path, content in records:
        report.records += 1
        try:
            data = json.loads(content)
        except ValueError:
            report.unreadable += 1
            continue
        if not isinstance(data, dict):
            report.unreadable += 1
            continue
        declared = data.get("schema_version")
        now_ok = declared in VERSIONS and validator(AGGREGATE, declared).is_valid(data)
        errors = target.validator.iter_errors(dict(data, schema_version=target.version))
        broken = {_rule(error) for error in errors}
        report.invalid_now += 0 if now_ok else 1
        if not broken:
            continue
        report.invalid_after += 1
        report.newly_invalid += 1 if now_ok else 0
        for name in sorted(broken):
            rule = rules.setdefault(name, Rule(name))
            rule.records += 1
            if len(rule.examples) < EXAMPLES:
                rule.examples.append(path)
    report.rules = sorted(rules.values(), key=lambda r: (-r.records, r.rule))
    return report


def _rule(error: Any) -> str:
    where = "".join(
        "[]" if isinstance(part, int) else (f".{part}" if i else str(part))
        for i, part in enumerate(error.absolute_path)
    )
    where = where or "(record)"
    if error.validator in ("required", "additionalProperties"):
        return f"{where}: {error.message}"
    value = json.dumps(error.validator_value, sort_keys=True)
    if len(value) > 80:
        value = value[:79] + "…"
    return f"{where}: must satisfy `{error.validator}` {value}"


def _check_refs(
    schema: dict[str, Any], node: Any, path: tuple[str | int, ...], content: bytes, name: str
) -> None:
    """Every `$ref` points inside the draft (nothing is fetched): a `#/...` pointer that
    resolves; else a `SchemaFileError` at the `$ref`'s line."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            _check_refs(schema, item, (*path, index), content, name)
        return
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str) and _resolve(schema, ref) is None:
        line, column = position_of(content, (*path, "$ref"))
        raise SchemaFileError(
            f"{name}:{line}:{column}: `$ref` {json.dumps(ref)[:120]} does not point inside this"
            " file; a draft holds its definitions (`#/definitions/<name>`), nothing is fetched"
        )
    for key, value in node.items():
        _check_refs(schema, value, (*path, key), content, name)


def _resolve(schema: dict[str, Any], ref: str) -> object | None:
    """The value a local JSON pointer (`#/definitions/x`) names, or None."""
    if not ref.startswith("#"):
        return None
    node: object = schema
    for escaped in ref[1:].split("/")[1:]:
        token = escaped.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _short(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"
