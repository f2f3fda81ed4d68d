"""What a token vouches for: the content claims of an entry, their RFC 8785 canonical JSON and
the entry's digest, computed from parsed values, never from YAML text, by the issuer before it
signs and by the verifier when it compares (docs/security.md#canonical-json).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import rfc8785

from bot.strictjson import MAX_SAFE_INTEGER
from bot.validation.model import Dialect, EntryReport, FileReport

#: The entry keys that hold its token (target spec and live Hub format); never digested.
TOKEN_KEYS: frozenset[str] = frozenset({"verify_token", "verifyToken"})

#: The metric id of a live entry's `value` when its benchmark declares no metrics.
LIVE_VALUE_METRIC_ID = "value"

DIGEST_PREFIX = "sha256:"

#: Content claims in the order docs and `evalbot token claims` present them.
CONTENT_CLAIMS: tuple[str, ...] = (
    "model_repo",
    "model_revision",
    "benchmark_repo",
    "benchmark_revision",
    "task_id",
    "metrics",
    "framework",
    "digest",
)


class ClaimsUnavailable(ValueError):
    """The entry lacks what its claims are built from (it is invalid, or its benchmark unknown)."""


def _plain(value: Any) -> Any:
    """A copy made of dict/list/scalars only, which is what RFC 8785 serialisers accept."""
    if type(value) is str:
        return value
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _plainly_canonical(value: Any) -> bool:
    """True when orjson, keys sorted, writes exactly the RFC 8785 form of `value`.

    That holds for dicts with ASCII keys (code point order is then UTF-16 order), lists, str,
    bool, None, integers within 2^53, and finite floats that ECMAScript and Python both print
    in plain decimal: not integral (`100.0` is `100` in JCS) and without exponent (`1e-07`
    is `1e-7`). Strings need no check: both escape exactly `"`, `\\` and controls (lowercase
    `\\u00xx`), and a lone surrogate fails to encode as UTF-8 in both.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER)
    if kind is float:
        text = repr(value)
        return "e" not in text and "n" not in text and not text.endswith(".0")
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or not key.isascii():
                return False
            # Strings are most leaves: checked here, without a call per value.
            if type(item) is not str and not _plainly_canonical(item):
                return False
        return True
    if kind is list:
        return all(type(item) is str or _plainly_canonical(item) for item in value)
    return False


def canonical_json(value: Any) -> bytes:
    """RFC 8785 (JCS) bytes of a JSON-compatible value; raises `ClaimsUnavailable` if it has none.

    NaN, infinities, integers beyond 2^53 and non-JSON types have no canonical form.
    `rfc8785` is the reference; for the common plain case orjson, keys sorted, writes the same
    bytes (property-tested against `rfc8785` in tests/unit/tokens/test_claims.py) in C, on
    every verification's path (bench/tokens.py).
    """
    if _plainly_canonical(value):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:
            pass  # a lone surrogate: rfc8785 reports it below
    try:
        try:
            return bytes(rfc8785.dumps(value))
        except rfc8785.CanonicalizationError:
            # rfc8785 takes dict and list only; retry once with other mappings converted.
            return bytes(rfc8785.dumps(_plain(value)))
    except rfc8785.CanonicalizationError as error:
        raise ClaimsUnavailable(f"no canonical JSON: {error}") from error


def entry_digest(entry_data: Mapping[str, Any]) -> str:
    """`sha256:<hex>` of the RFC 8785 canonical JSON of the entry without its token key(s)."""
    content = {key: value for key, value in entry_data.items() if key not in TOKEN_KEYS}
    return DIGEST_PREFIX + hashlib.sha256(canonical_json(content)).hexdigest()


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    # `type(...) is dict` first: an ABC isinstance check costs several times more.
    if type(value) is not dict and not isinstance(value, Mapping):
        raise ClaimsUnavailable(f"{what} is not a mapping")
    return value


def _string(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ClaimsUnavailable(f"{what} is not a string")
    return value


def _number(value: Any, what: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ClaimsUnavailable(f"{what} is not a number")
    return value


def metrics_claim(report: EntryReport) -> list[dict[str, Any]]:
    """`[{metric_id, value}]` sorted by `metric_id` (code point order), from either dialect.

    A live entry's scalar `value` stands for the benchmark's primary metric, or for the
    pseudo-metric `value` when the benchmark declares none (docs/decisions.md#tokens).
    """
    data = report.entry.data
    if report.entry.dialect is Dialect.LIVE:
        primary = report.benchmark.primary_metric if report.benchmark is not None else None
        metric_id = primary.id if primary is not None else LIVE_VALUE_METRIC_ID
        return [{"metric_id": metric_id, "value": _number(data.get("value"), "value")}]
    items = data.get("metrics")
    if type(items) is not list and (not isinstance(items, Sequence) or isinstance(items, str)):
        raise ClaimsUnavailable("metrics is not a list")
    metrics = []
    for position, item in enumerate(items):
        metric = _mapping(item, f"metrics[{position}]")
        metrics.append(
            {
                "metric_id": _string(metric.get("metric_id"), f"metrics[{position}].metric_id"),
                "value": _number(metric.get("value"), f"metrics[{position}].value"),
            }
        )
    metrics.sort(key=lambda metric: str(metric["metric_id"]))
    return metrics


def stated_framework(report: EntryReport) -> dict[str, Any] | None:
    """The framework the entry itself states, as the token must repeat it; None if it states none.

    Target entries state `framework: {name, version?, command?}`; live entries may state the
    name only, as `evaluation_framework`.
    """
    data = report.entry.data
    if "framework" in data:
        return dict(_plain(_mapping(data["framework"], "framework")))  # a copy: claims are ours
    if "evaluation_framework" in data:
        return {"name": _string(data["evaluation_framework"], "evaluation_framework")}
    return None


def content_claims(report: EntryReport, *, model_repo: str) -> dict[str, Any]:
    """The content claims a token on this entry must carry, each equal to what is returned.

    Optional claims (`model_revision`, `benchmark_revision`, `framework`) are present exactly
    when the entry states the field. When the entry states no framework, the token must still
    carry a `framework` claim with at least `name` (the issuer vouches for it), which is not
    part of the returned mapping because the entry cannot say what it is.
    Raises `ClaimsUnavailable` for an entry without a known benchmark or with malformed fields.
    """
    if report.benchmark is None:
        raise ClaimsUnavailable("the entry's benchmark is unknown")
    data = report.entry.data
    dataset = _mapping(data.get("dataset"), "dataset")
    claims: dict[str, Any] = {"model_repo": model_repo}
    if "model_revision" in data:
        claims["model_revision"] = _string(data["model_revision"], "model_revision")
    claims["benchmark_repo"] = report.benchmark.repo_id
    if "revision" in dataset:
        claims["benchmark_revision"] = _string(dataset["revision"], "dataset.revision")
    claims["task_id"] = _string(dataset.get("task_id"), "dataset.task_id")
    claims["metrics"] = metrics_claim(report)
    framework = stated_framework(report)
    if framework is not None:
        claims["framework"] = framework
    claims["digest"] = entry_digest(data)
    return claims


def claims_for_entry(
    report: FileReport, index: int, *, model_repo: str, framework: str | None = None
) -> dict[str, Any]:
    """The claims an issuer signs for entry `index` of a validated file (`evalbot token claims`).

    `framework` names the framework to vouch for when the entry states none (live entries); it
    must agree with the entry when the entry states one. Raises `ClaimsUnavailable` for an
    entry with errors, and IndexError for an index the file does not have.
    """
    entry_report = next((e for e in report.entries if e.entry.index == index), None)
    if entry_report is None:
        raise IndexError(f"{report.path} has no entry {index}")
    errors = [d for d in entry_report.diagnostics if d.is_error]
    if errors:
        listed = "; ".join(f"{d.code}: {d.message}" for d in errors)
        raise ClaimsUnavailable(f"entry {index} has errors, fix them first ({listed})")
    claims = content_claims(entry_report, model_repo=model_repo)
    stated = claims.get("framework")
    if stated is None:
        if framework is None:
            raise ClaimsUnavailable(
                f"entry {index} states no framework: name the one the issuer vouches for"
            )
        claims["framework"] = {"name": framework}
    elif framework is not None and stated.get("name") != framework:
        raise ClaimsUnavailable(f"entry {index} states framework {stated.get('name')!r}")
    return {name: claims[name] for name in CONTENT_CLAIMS if name in claims}
