"""Every check of one token but its reuse binding, in the order `bot.tokens.verify` lists:
issuer, key, signature (PyJWT's EdDSA algorithm alone, on the bytes `jws` parsed), standard
claims and freshness at the caller's reference time, the issuer's policy, then every content
claim and the digest against the entry's (docs/security.md#jwt-verification).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from jwt.algorithms import OKPAlgorithm

from bot.tokens import reasons
from bot.tokens.claims import CONTENT_CLAIMS
from bot.tokens.issuers import IssuerPolicy, IssuerRegistry, KeyNotFound
from bot.tokens.jws import b64url_decode, parse_header, segment_json
from bot.tokens.reasons import Unverified

#: Leeway on `iat`, `nbf` and `exp` (Warehouse's).
LEEWAY_S = 30
MAX_JTI_CHARS = 256
DIGEST_PATTERN = re.compile(r"sha256:[0-9a-f]{64}")
FRAMEWORK_FIELDS: frozenset[str] = frozenset({"name", "version", "command"})

_EDDSA = OKPAlgorithm()


class CheckedToken(NamedTuple):
    """What a token proved once signature, claims and policy passed (before binding); a
    NamedTuple, built per verified token without a frozen dataclass's `__setattr__` calls."""

    issuer: str
    jti: str
    expires_at: int
    digest: str


def _require_int_time(payload: Mapping[str, Any], name: str) -> int:
    """A NumericDate as a JSON integer: PyJWT would take `"9999999999"`, `1e9` or `true`."""
    if name not in payload:
        raise Unverified(reasons.for_claim(reasons.CLAIM_MISSING, name))
    value = payload[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, name))
    return value


def _require_string(payload: Mapping[str, Any], name: str, *, max_chars: int = 4096) -> str:
    if name not in payload:
        raise Unverified(reasons.for_claim(reasons.CLAIM_MISSING, name))
    value = payload[name]
    if not isinstance(value, str) or not value or len(value) > max_chars:
        raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, name))
    return value


def json_equal(left: Any, right: Any) -> bool:
    """Equality as RFC 8785 sees it: numbers by value (`20.9 == 20.90`, `21 == 21.0`), but a
    string is never a number and a boolean never an integer (`"20.90" != 20.9`, `true != 1`).

    Both sides are plain JSON data (dict, list, str, int, float, bool, None): `expected` is
    built by `content_claims`, the payload by the JSON parser.
    """
    left_kind, right_kind = type(left), type(right)
    if left_kind is not right_kind:
        # int and float compare by value; any other mix of kinds differs (bool is its own).
        return left_kind in _NUMBER_KINDS and right_kind in _NUMBER_KINDS and left == right
    if left_kind is dict:
        if left.keys() != right.keys():
            return False
        return all(json_equal(item, right[key]) for key, item in left.items())
    if left_kind is list:
        return len(left) == len(right) and all(map(json_equal, left, right))
    return bool(left == right)


_NUMBER_KINDS = (int, float)


def _check_claim_types(payload: Mapping[str, Any]) -> None:
    """Content claims must have the documented JSON types (a nested object where a string is
    expected, a string metric value, a framework without name: all `claim-invalid`)."""
    for name in _STRING_CLAIMS:
        # Inline rather than `_require_string` per claim: this runs for every token.
        value = payload.get(name, _ABSENT)
        if value is not _ABSENT and (type(value) is not str or not 0 < len(value) <= 4096):
            raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, name))
    metrics = payload.get("metrics")
    if type(metrics) is not list or not metrics:
        raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, "metrics"))
    for metric in metrics:
        # JSON parsing yields exactly dict, list, str, int, float, bool and None, so `type()`
        # tests are exact here (bool is not int by `type`).
        if (
            type(metric) is not dict
            or metric.keys() != _METRIC_CLAIM_FIELDS
            or type(metric["metric_id"]) is not str
            or type(metric["value"]) not in _NUMBER_KINDS
            or not math.isfinite(metric["value"])
        ):
            raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, "metrics"))
    framework = payload.get("framework")
    if type(framework) is not dict or type(framework.get("name")) is not str:
        raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, "framework"))
    if not framework["name"]:
        raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, "framework"))
    digest = payload.get("digest")
    if type(digest) is not str or not DIGEST_PATTERN.fullmatch(digest):
        raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, "digest"))


_STRING_CLAIMS = ("model_repo", "model_revision", "benchmark_repo", "benchmark_revision", "task_id")
_METRIC_CLAIM_FIELDS = frozenset({"metric_id", "value"})
_ABSENT = object()


def _check_freshness(payload: Mapping[str, Any], policy: IssuerPolicy, at: int) -> None:
    iat = _require_int_time(payload, "iat")
    exp = _require_int_time(payload, "exp")
    nbf = _require_int_time(payload, "nbf") if "nbf" in payload else None
    if exp <= iat:
        raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, "exp"))
    if exp - iat > policy.max_lifetime_s:
        raise Unverified(reasons.LIFETIME_TOO_LONG)
    if at >= exp + LEEWAY_S:
        raise Unverified(reasons.EXPIRED)
    if iat > at + LEEWAY_S or (nbf is not None and nbf > at + LEEWAY_S):
        raise Unverified(reasons.NOT_YET_VALID)


def _check_content(
    payload: Mapping[str, Any], expected: Mapping[str, Any], framework_stated: bool
) -> None:
    for name in CONTENT_CLAIMS:
        if name == "digest" or (name == "framework" and not framework_stated):
            continue
        if name not in expected:
            if name in payload:
                raise Unverified(reasons.for_claim(reasons.CLAIM_UNEXPECTED, name))
            continue
        if name not in payload:
            raise Unverified(reasons.for_claim(reasons.CLAIM_MISSING, name))
        # `_check_claim_types` has made every payload claim but `framework` a string or a list
        # of {str, non-boolean number}, as `content_claims` builds them: there `==` is exactly
        # RFC 8785 equality, and much cheaper. `framework` holds whatever the entry wrote.
        same = (
            json_equal(payload[name], expected[name])
            if name == "framework"
            else payload[name] == expected[name]
        )
        if not same:
            raise Unverified(reasons.for_claim(reasons.CLAIM_MISMATCH, name))
    if not framework_stated:
        # The entry states no framework: the issuer's own statement must still be well formed.
        framework = payload["framework"]
        if set(framework) - FRAMEWORK_FIELDS or not all(
            isinstance(value, str) for value in framework.values()
        ):
            raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, "framework"))
    if payload["digest"] != expected["digest"]:
        raise Unverified(reasons.DIGEST_MISMATCH)


def check_token(
    token: str,
    *,
    expected: Mapping[str, Any],
    framework_stated: bool,
    registry: IssuerRegistry,
    at: int,
) -> CheckedToken:
    """Every check but the reuse binding; raises `Unverified` with the first failing reason.

    `expected` is `content_claims(...)` of the entry; `at` the reference time (epoch seconds).
    """
    header = parse_header(token)
    signing_input, _, signature_segment = token.rpartition(".")
    payload = segment_json(signing_input.split(".", 1)[1])
    if "iss" not in payload:
        raise Unverified(reasons.for_claim(reasons.CLAIM_MISSING, "iss"))
    issuer = payload["iss"]
    if not isinstance(issuer, str):
        raise Unverified(reasons.for_claim(reasons.CLAIM_INVALID, "iss"))
    policy = registry.policy(issuer)
    if policy is None:
        raise Unverified(reasons.ISSUER_UNTRUSTED)
    try:
        key: Ed25519PublicKey = registry.key(issuer, header["kid"])
    except KeyNotFound as missing:
        raise Unverified(missing.reason) from missing
    signature = b64url_decode(signature_segment)
    if not _EDDSA.verify(signing_input.encode("ascii"), key, signature):
        raise Unverified(reasons.BAD_SIGNATURE)

    _require_string(payload, "sub")
    jti = _require_string(payload, "jti", max_chars=MAX_JTI_CHARS)
    if policy.audience is not None and payload.get("aud") != policy.audience:
        raise Unverified(reasons.AUDIENCE_MISMATCH)
    _check_freshness(payload, policy, at)
    for name in ("model_repo", "benchmark_repo", "task_id", "metrics", "framework", "digest"):
        if name not in payload:
            raise Unverified(reasons.for_claim(reasons.CLAIM_MISSING, name))
    _check_claim_types(payload)

    if not policy.allows_framework(payload["framework"]["name"]):
        raise Unverified(reasons.FRAMEWORK_NOT_ALLOWED)
    if not policy.allows_benchmark(expected["benchmark_repo"]):
        raise Unverified(reasons.BENCHMARK_NOT_ALLOWED)
    if not policy.allows_model(expected["model_repo"]):
        raise Unverified(reasons.MODEL_NOT_ALLOWED)
    _check_content(payload, expected, framework_stated)
    return CheckedToken(
        issuer=issuer, jti=jti, expires_at=payload["exp"], digest=expected["digest"]
    )
