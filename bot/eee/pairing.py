"""Aggregate and instance file checked against each other, both ways, as EEE's gate describes
them plus the checksum (docs/eee.md, "What a submission is checked for")."""

from __future__ import annotations

import json
from typing import Any

from bot.eee import datastore_diagnostics, paths
from bot.eee.instances import ALGORITHMS, InstanceSummary
from bot.validation.diagnostics import Diagnostic, shown

DETAIL = "detailed_evaluation_results"


def declared_samples(record: dict[str, Any]) -> dict[str, Any] | None:
    detail = record.get(DETAIL)
    return detail if isinstance(detail, dict) else None


def aggregate_problems(path: str, record: dict[str, Any], samples_exist: bool) -> list[Diagnostic]:
    """What the aggregate alone says wrong about its samples file (before reading it)."""
    expected = paths.samples_path(path)
    detail = declared_samples(record)
    if detail is None:
        if samples_exist:
            return [
                _pair(
                    DETAIL,
                    f"`{_name(expected)}` is beside this record, but the record does not"
                    f" declare it in `{DETAIL}`",
                    f"add `{DETAIL}` with `file_path` `{expected}`, `format` `jsonl`,"
                    " `total_rows`, `hash_algorithm` and `checksum`",
                )
            ]
        return []
    found: list[Diagnostic] = []
    declared = detail.get("file_path")
    if declared != expected:
        found.append(
            _pair(
                f"{DETAIL}.file_path",
                f"`file_path` is {shown(declared, 120)}; a record's samples file is exactly"
                f" `{expected}` (same folder, same uuid)",
                f"write `{expected}`",
            )
        )
    if detail.get("format") != "jsonl":
        found.append(
            _pair(
                f"{DETAIL}.format",
                f"`format` is {shown(detail.get('format'))}; samples files are JSON lines",
                'write `"format": "jsonl"`',
            )
        )
    if not samples_exist:
        found.append(
            _pair(
                f"{DETAIL}.file_path",
                f"the declared samples file `{_name(expected)}` is neither in this PR nor in"
                " the datastore",
                "add the samples file to the PR, or remove `detailed_evaluation_results`",
            )
        )
    algorithm = detail.get("hash_algorithm")
    if detail.get("checksum") is None or algorithm is None:
        found.append(
            datastore_diagnostics.make(
                "EEE-NO-CHECKSUM",
                field=f"{DETAIL}.checksum",
                path=_name(expected),
            )
        )
    elif algorithm not in ALGORITHMS:
        found.append(
            _pair(
                f"{DETAIL}.hash_algorithm",
                f"`hash_algorithm` is {shown(algorithm)}; EEE knows {', '.join(ALGORITHMS)}",
                'write `"hash_algorithm": "sha256"` and the sha256 of the file',
            )
        )
    return found


def algorithm_of(record: dict[str, Any]) -> str:
    detail = declared_samples(record) or {}
    algorithm = detail.get("hash_algorithm")
    return algorithm if isinstance(algorithm, str) and algorithm in ALGORITHMS else "sha256"


def content_problems(
    path: str, record: dict[str, Any], summary: InstanceSummary
) -> list[Diagnostic]:
    """The aggregate against what its samples file holds."""
    detail = declared_samples(record) or {}
    name = _name(paths.samples_path(path))
    found: list[Diagnostic] = []
    if summary.complete and summary.rows == 0:
        found.append(
            _pair(DETAIL, f"`{name}` has no rows", "a samples file holds at least one row")
        )
    expected_id = record.get("evaluation_id")
    others = summary.evaluation_ids - {_text(expected_id)}
    if others:
        found.append(
            _pair(
                "evaluation_id",
                f"rows of `{name}` have `evaluation_id` {_few(others)}, not this record's"
                f" {shown(expected_id)}",
                "give every row the record's `evaluation_id`",
            )
        )
    info = record.get("model_info")
    model_id = info.get("id") if isinstance(info, dict) else None
    others = summary.model_ids - {_text(model_id)}
    if others:
        found.append(
            _pair(
                "model_info.id",
                f"rows of `{name}` have `model_id` {_few(others)}, not this record's"
                f" `model_info.id` {shown(model_id)}",
                "give every row the record's `model_info.id` as `model_id`",
            )
        )
    total = detail.get("total_rows")
    if summary.complete and isinstance(total, int) and total != summary.rows:
        found.append(
            _pair(
                f"{DETAIL}.total_rows",
                f"`total_rows` is {total}, but `{name}` has {summary.rows} rows",
                f'write `"total_rows": {summary.rows}`',
            )
        )
    declared = detail.get("checksum")
    if (
        summary.complete
        and isinstance(declared, str)
        and detail.get("hash_algorithm") == summary.algorithm
        and declared.strip().lower() != summary.digest
    ):
        found.append(
            datastore_diagnostics.make(
                "EEE-CHECKSUM",
                field=f"{DETAIL}.checksum",
                declared=shown(declared, 70),
                algorithm=summary.algorithm,
                path=name,
                actual=summary.digest,
            )
        )
    return found


def orphan_problem(
    samples: str, aggregate: dict[str, Any] | None, exists: bool
) -> Diagnostic | None:
    """A samples file's side: its aggregate exists and declares it (None: all good)."""
    name = _name(paths.aggregate_path(samples))
    if not exists:
        return _pair(
            None,
            f"no record `{name}` beside this samples file; a samples file belongs to one record",
            f"add `{name}` declaring this file, or remove the samples file",
        )
    if aggregate is None:
        return None  # the record's own report says why it could not be read
    detail = declared_samples(aggregate)
    if detail is None or detail.get("file_path") != samples:
        return _pair(
            None,
            f"the record `{name}` does not declare this samples file",
            f"set its `{DETAIL}.file_path` to `{samples}`",
        )
    return None


def _pair(field: str | None, problem: str, hint: str) -> Diagnostic:
    return datastore_diagnostics.make("EEE-PAIR", field=field, problem=problem, hint=hint)


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _few(values: set[str]) -> str:
    listed = sorted(values)
    text = ", ".join(shown(v) for v in listed[:3])
    return text + (f" and {len(listed) - 3} more" if len(listed) > 3 else "")
