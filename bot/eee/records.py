"""One aggregate record: strict JSON, the schema of the version it declares, and EEE's blocking
score rules (`check_score_metadata`) (docs/eee.md, "What a submission is checked for")."""

from __future__ import annotations

import math
from typing import Any

from bot.eee import datastore_diagnostics
from bot.validation import diagnostics
from bot.validation.diagnostics import Diagnostic, shown
from bot.validation.eee import AGGREGATE, VERSIONS, check_document
from bot.validation.model import FileReport

#: A record is read whole; the real datastore's largest are tens of KB.
MAX_RECORD_BYTES = 16 * 1024 * 1024


def check_record(
    report: FileReport, content: bytes, versions: tuple[str, ...] = VERSIONS
) -> dict[str, Any] | None:
    """Add the record's diagnostics to `report`; the record when it parsed as an object.
    `content` may be cut one byte past `MAX_RECORD_BYTES` by its reader: that is an error."""
    if len(content) > MAX_RECORD_BYTES:
        report.diagnostics.append(
            diagnostics.make("EEE-TOO-LARGE", size=len(content), limit=MAX_RECORD_BYTES)
        )
        return None
    data = check_document(report, content, AGGREGATE, versions=versions)
    if not isinstance(data, dict):
        return None
    report.diagnostics.extend(score_problems(data))
    return data


def score_problems(record: dict[str, Any]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    results = record.get("evaluation_results")
    if not isinstance(results, list):
        return found
    for index, result in enumerate(results):
        if not isinstance(result, dict):
            continue
        metric = result.get("metric_config")
        if not isinstance(metric, dict):
            continue
        where = f"evaluation_results[{index}]"
        raw_lo, raw_hi = metric.get("min_score"), metric.get("max_score")
        lo, hi = _bound(raw_lo), _bound(raw_hi)
        continuous = metric.get("score_type") == "continuous"
        for key, raw, value in (("min_score", raw_lo, lo), ("max_score", raw_hi, hi)):
            if value is None and (continuous or raw is not None):
                found.append(
                    _score(
                        f"{where}.metric_config.{key}",
                        f"`{key}` is {shown(raw)}; a continuous score needs both bounds",
                        'write a number, or "Infinity"/"-Infinity" for an open end',
                    )
                )
        details = result.get("score_details")
        if not isinstance(details, dict):
            continue
        score = details.get("score")
        if not isinstance(score, (int, float)) or not _finite(score):
            found.append(
                _score(
                    f"{where}.score_details.score",
                    f"the score is {shown(score)}, not a finite number",
                    "write the score as a JSON number",
                )
            )
            continue
        found.extend(_uncertainty(details.get("uncertainty"), where))
        if lo is not None and hi is not None and lo > hi:
            found.append(
                _score(
                    f"{where}.metric_config",
                    f"min_score {shown(raw_lo)} is above max_score {shown(raw_hi)}",
                    "swap or fix the bounds",
                )
            )
        elif lo is not None and hi is not None and not lo <= score <= hi:
            found.append(
                _score(
                    f"{where}.score_details.score",
                    f"the score {score} is outside [{shown(raw_lo)}, {shown(raw_hi)}]",
                    "declare the bounds the source's numbers live in (a percentage is 0-100)",
                )
            )
    return found


def _uncertainty(uncertainty: object, where: str) -> list[Diagnostic]:
    if not isinstance(uncertainty, dict):
        return []
    values: dict[str, object] = {"standard_deviation": uncertainty.get("standard_deviation")}
    error = uncertainty.get("standard_error")
    if isinstance(error, dict):
        values["standard_error.value"] = error.get("value")
    interval = uncertainty.get("confidence_interval")
    if isinstance(interval, dict):
        for name in ("lower", "upper", "confidence_level"):
            if name in interval:
                values[f"confidence_interval.{name}"] = interval.get(name)
    return [
        _score(
            f"{where}.score_details.uncertainty.{name}",
            f"`{name}` is {shown(value)}, not a finite number",
            "write a JSON number, or leave the field out",
        )
        for name, value in values.items()
        if value is not None and not _finite(value)
    ]


def _score(field: str, problem: str, hint: str) -> Diagnostic:
    return datastore_diagnostics.make("EEE-SCORE", field=field, problem=problem, hint=hint)


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _bound(value: object) -> float | None:
    if value == "Infinity":
        return math.inf
    if value == "-Infinity":
        return -math.inf
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value):
        return float(value)
    return None
