"""Token verification: the `verified` verdict, or the first reason it is not
(docs/decisions.md#tokens).

Order of checks, cheapest and most telling first, and never trusting a claim before the
signature over it has been verified:

1. the entry: no token -> absent; validation errors -> `entry-invalid`; a field YAML 1.1 and
   1.2 read differently -> `ambiguous-yaml`;
2. the token's form: compact JWS only, size cap, strict JSON in header and payload (no duplicate
   names, no NaN), a header of exactly `alg` (= `EdDSA`), `kid` (well formed) and `typ`;
3. the issuer: exact `iss` in the registry, then the key with this `kid` from that issuer only;
4. the signature, with PyJWT's EdDSA algorithm and nothing else (the algorithm is pinned: the
   header was already required to say `EdDSA`, and keys are Ed25519 keys only);
5. standard claims with their types: `sub`, `jti`, `iat`, `exp`, `nbf`, `aud` when configured;
   lifetime and freshness at the caller's reference time with 30 s leeway;
6. the issuer's policy: framework, benchmark and model globs;
7. every content claim and the digest equal to the entry and the repo;
8. the reuse binding of the jti, claimed only by a token that passed everything else.

PyJWT's `decode` is not used. Its claim validation judges freshness at the wall clock, while a
re-run must judge it at the time the commit was recorded, and it accepts string or float times
(docs/security.md#pyjwt-behaviour). Its JWS layer re-parses segments this module has already parsed
strictly (and refused: `crit`, `b64`, `jku`... never reach it), and doing so cost twice the
signature check itself (bench/tokens.py); so only its EdDSA algorithm object is used, on the bytes
this module parsed.
"""

from __future__ import annotations

import binascii
import logging
import math
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from jwt.algorithms import OKPAlgorithm

from bot.spec.model import EntryReport, FileReport, Verification, VerificationStatus
from bot.tokens import reasons
from bot.tokens.binding import LEEWAY_S, JtiBinder, VerificationUnavailable
from bot.tokens.claims import (
    CONTENT_CLAIMS,
    TOKEN_KEYS,
    ClaimsUnavailable,
    content_claims,
)
from bot.tokens.issuers import IssuerPolicy, IssuerRegistry, KeyNotFound
from bot.tokens.jwks import KID_PATTERN
from bot.tokens.strictjson import DuplicateNameError, loads_strict_compact

logger = logging.getLogger(__name__)

ALGORITHM = "EdDSA"
#: `typ` values accepted; the signer writes the first (RFC 8725 §3.11 explicit typing).
ACCEPTED_TYP: frozenset[str] = frozenset({"eval-result+jwt", "JWT"})
ALLOWED_HEADER: frozenset[str] = frozenset({"alg", "kid", "typ"})
#: A token of 64 KiB covers thousands of metrics; anything larger is refused unparsed.
MAX_TOKEN_CHARS = 64 * 1024
MAX_JTI_CHARS = 256
#: A header holds `alg`, `kid` and `typ`: a few dozen characters. Longer ones are not parsed.
MAX_HEADER_CHARS = 1024
COMPACT_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
DIGEST_PATTERN = re.compile(r"sha256:[0-9a-f]{64}")
FRAMEWORK_FIELDS: frozenset[str] = frozenset({"name", "version", "command"})

#: Gives the reference time at which an entry's token freshness is judged: the Hub's time for
#: the commit that introduced the token (bot), or `--at` (CLI).
ReferenceTime = Callable[[FileReport, EntryReport], datetime]

_EDDSA = OKPAlgorithm()

#: Headers that passed every check, by their encoded text. An issuer signs with a handful of
#: keys, so most tokens repeat one of a few headers; parsing it again cost a tenth of a
#: verification (bench/tokens.py). Only headers that passed are kept, and the cache is
#: bounded (cleared when full), so hostile headers can neither poison nor grow it.
_CHECKED_HEADERS: dict[str, dict[str, Any]] = {}
MAX_CHECKED_HEADERS = 256


class Unverified(Exception):
    """A verdict, raised to leave the checks at the first failing one."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class CheckedToken(NamedTuple):
    """What a token proved once signature, claims and policy passed (before binding).

    A NamedTuple rather than a frozen dataclass: one is built per verified token, and a frozen
    dataclass's `object.__setattr__` per field cost 1 % of a verification (bench/tokens.py).
    """

    issuer: str
    jti: str
    expires_at: int
    digest: str


#: base64url to base64, as a bytes table: `base64.urlsafe_b64decode` translates through a
#: str mapping, several times slower on a kilobyte token.
_URLSAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")


def _b64url_decode(segment: str) -> bytes:
    """Decode an unpadded base64url segment (its alphabet was checked by `COMPACT_JWS`)."""
    if len(segment) % 4 == 1:
        raise Unverified(reasons.MALFORMED_TOKEN)
    try:
        standard = segment.encode("ascii").translate(_URLSAFE_TO_STANDARD)
        return binascii.a2b_base64(standard + b"=" * (-len(segment) % 4))
    except (binascii.Error, ValueError) as error:
        raise Unverified(reasons.MALFORMED_TOKEN) from error


def _segment_json(segment: str) -> dict[str, Any]:
    raw = _b64url_decode(segment)
    try:
        value = loads_strict_compact(raw)
    except DuplicateNameError as error:
        raise Unverified(reasons.DUPLICATE_CLAIMS) from error
    except (ValueError, RecursionError) as error:
        # RecursionError: `[[[[...]]]]` nested past the interpreter's limit; a verdict on the
        # entry like any other malformed token, not an internal error with a traceback.
        raise Unverified(reasons.MALFORMED_TOKEN) from error
    if not isinstance(value, dict):
        raise Unverified(reasons.MALFORMED_TOKEN)
    return value


def parse_header(token: str) -> Mapping[str, Any]:
    """The header of a compact JWS, checked: form, strict JSON, alg, allowed params, typ, kid."""
    if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS:
        raise Unverified(reasons.MALFORMED_TOKEN)
    if not COMPACT_JWS.fullmatch(token):
        raise Unverified(reasons.MALFORMED_TOKEN)
    encoded_header = token.split(".", 1)[0]
    known = _CHECKED_HEADERS.get(encoded_header)
    if known is not None:
        return known  # read-only to callers (Mapping): the cache is never handed out to write
    if len(encoded_header) > MAX_HEADER_CHARS:
        raise Unverified(reasons.MALFORMED_TOKEN)
    header = _segment_json(encoded_header)
    if header.get("alg") != ALGORITHM:
        raise Unverified(reasons.ALG_NOT_ALLOWED)
    if set(header) - ALLOWED_HEADER:
        raise Unverified(reasons.HEADER_NOT_ALLOWED)
    if "typ" in header and header["typ"] not in ACCEPTED_TYP:
        raise Unverified(reasons.TYP_NOT_ALLOWED)
    if "kid" not in header:
        raise Unverified(reasons.KID_MISSING)
    kid = header["kid"]
    if not isinstance(kid, str) or not KID_PATTERN.fullmatch(kid):
        raise Unverified(reasons.KID_MALFORMED)
    if len(_CHECKED_HEADERS) >= MAX_CHECKED_HEADERS:
        _CHECKED_HEADERS.clear()
    _CHECKED_HEADERS[encoded_header] = header
    return header


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
    payload = _segment_json(signing_input.split(".", 1)[1])
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
    signature = _b64url_decode(signature_segment)
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


def _epoch_seconds(moment: datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # docs/decisions.md#cli: no offset means UTC
    return math.floor(moment.timestamp())


def _rests_on_ambiguous_yaml(report: EntryReport) -> bool:
    """The digest covers the whole entry but its token, so any ambiguous field outside it counts."""
    return any(
        path.split(".", 1)[0].split("[", 1)[0] not in TOKEN_KEYS
        for path in report.entry.ambiguous_fields
    )


def verify_entry(
    report: EntryReport,
    *,
    model_repo: str,
    registry: IssuerRegistry,
    binder: JtiBinder,
    at: datetime,
) -> Verification:
    """The verdict on one entry's token (see the module docstring for the order of checks).

    Raises `VerificationUnavailable` when Redis (bindings, key cache) is unreachable.
    """
    token = report.entry.token
    if token is None:
        return Verification.absent()
    try:
        if not report.ok:
            raise Unverified(reasons.ENTRY_INVALID)
        if _rests_on_ambiguous_yaml(report):
            raise Unverified(reasons.AMBIGUOUS_YAML)
        try:
            expected = content_claims(report, model_repo=model_repo)
        except ClaimsUnavailable as error:
            raise Unverified(reasons.ENTRY_INVALID) from error
        checked = check_token(
            token,
            expected=expected,
            framework_stated="framework" in expected,
            registry=registry,
            at=_epoch_seconds(at),
        )
        bound = binder.bind(
            issuer=checked.issuer,
            jti=checked.jti,
            model_repo=model_repo,
            digest=checked.digest,
            expires_at=checked.expires_at,
        )
        if not bound:
            raise Unverified(reasons.TOKEN_REUSED)
    except Unverified as verdict:
        return Verification(VerificationStatus.UNVERIFIED, verdict.reason)
    except VerificationUnavailable:
        raise  # an outage of shared state: the caller retries, no verdict is published
    except Exception:
        # Like Warehouse: an exception we did not foresee is a bug to see in the logs, and the
        # token stays unverified rather than crashing the run.
        logger.exception("token verification failed unexpectedly (entry %s)", report.entry.index)
        return Verification(VerificationStatus.UNVERIFIED, reasons.INTERNAL_ERROR)
    return _VERIFIED


#: Verdicts are immutable: the one without a reason is built once.
_VERIFIED = Verification(VerificationStatus.VERIFIED)


def verify_reports(
    reports: Sequence[FileReport],
    *,
    model_repo: str,
    registry: IssuerRegistry,
    binder: JtiBinder,
    reference_time: ReferenceTime,
) -> None:
    """Set every entry's `verification` in place.

    Files are taken in sorted path order and entries in file order (docs/decisions.md#tokens), so
    when two entries carry the same jti the first one binds it and the verdicts do not depend on the
    order the caller listed the files in. Raises `VerificationUnavailable` when Redis is
    unreachable (a Celery task should retry).
    """
    for file_report in sorted(reports, key=lambda report: report.path):
        for entry_report in file_report.entries:
            entry_report.verification = verify_entry(
                entry_report,
                model_repo=model_repo,
                registry=registry,
                binder=binder,
                at=reference_time(file_report, entry_report),
            )
