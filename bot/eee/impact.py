"""What a schema version would do to the records a datastore already holds.

Each record is checked twice against the shipped schemas: as it is (the version it declares)
and as if it declared the new version. The report counts the records, those invalid now, those
the new version would turn invalid, and groups the failures by rule (the schema keyword at a
path, list indices folded: `evaluation_results[].metric_config`), most records first, with a
few example files per rule. Aggregate records only: samples rows follow their record's version.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bot.spec.eee import AGGREGATE, VERSIONS, validator

EXAMPLES = 3


@dataclass(slots=True)
class Rule:
    rule: str
    records: int = 0
    examples: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ImpactReport:
    version: str
    records: int = 0
    unreadable: int = 0
    invalid_now: int = 0
    invalid_after: int = 0
    #: Valid under the version they declare, invalid under `version`.
    newly_invalid: int = 0
    rules: list[Rule] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "records": self.records,
            "unreadable": self.unreadable,
            "invalid_now": self.invalid_now,
            "invalid_after": self.invalid_after,
            "newly_invalid": self.newly_invalid,
            "rules": [
                {"rule": r.rule, "records": r.records, "examples": r.examples} for r in self.rules
            ],
        }


def assess(records: Iterable[tuple[str, bytes]], version: str) -> ImpactReport:
    """`records`: (path, bytes) of aggregate records; `version` one evalbot ships."""
    if version not in VERSIONS:
        raise ValueError(f"{version!r} is not one of {', '.join(VERSIONS)}")
    report = ImpactReport(version)
    rules: dict[str, Rule] = {}
    target = validator(AGGREGATE, version)
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
        broken = {_rule(error) for error in target.iter_errors(dict(data, schema_version=version))}
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
