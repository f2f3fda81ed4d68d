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

What a token vouches for (`content_claims`, `entry_digest`): the issuer computes the same
canonical claims and digest before signing (through `evalbot token claims`, the reference
signer or its own code following docs/verification.md), the verifier when it compares. They are
computed from *parsed* values, never from YAML text, so `20.90` and `20.9` agree while the
string `"20.90"` does not (docs/security.md#canonical-json).

Strict JSON for token segments (`loads_strict`): I-JSON (RFC 7493) as RFC 8785 assumes it.
`json.loads` keeps the last of two duplicate names, accepts `NaN`/`Infinity`, turns `1e400`
into `inf` and accepts integers no double can hold. PyJWT decodes payloads with it, so a token
whose payload says `task_id` twice would be read one way by a verifier and another way by a
human or another library (docs/security.md#pyjwt-behaviour). Every token segment is re-parsed
strictly instead; the receiver and the issuer read their JSON bodies the same way.

Reuse protection by binding: one (issuer, jti) belongs to one (model repo, entry digest). A
verify token is legitimately seen many times (webhook retries, re-runs, PR updates that do not
touch the result), so "single use" would be wrong. What must not happen is the same token
vouching for other content or another repo (docs/security.md#replay-protection). The first
verification that passes every other check claims the jti atomically; later ones pass only with
the same (model repo, digest). `MemoryJtiBinder` serves the CLI; the bot's binder shared by every
worker (`RedisJtiBinder`) lives in the worker runtime that builds it, `workers.runtime`.
Bindings are kept far longer than the token lives (`retention_s`, default 400 days, and never
less than `exp` + leeway + 5 s: Warehouse #19627), because the verdict must not change on a
re-run a week later: if the binding expired, the token could be bound afresh to whichever repo
is re-checked first.
"""

from __future__ import annotations

import binascii
import hashlib
import json
import logging
import math
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from enum import Enum
from typing import Any, NamedTuple, Protocol

import orjson
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from jwt.algorithms import OKPAlgorithm

from bot.tokens import reasons
from bot.tokens.issuers import IssuerPolicy, IssuerRegistry, KeyNotFound
from bot.tokens.jwks import KID_PATTERN
from bot.tokens.reasons import VerificationUnavailable
from bot.validation.model import Dialect, EntryReport, FileReport, Verification, VerificationStatus

# --- strict JSON for token segments -----------------------------------------------------------

#: Integers beyond this are not exactly representable as IEEE-754 doubles (RFC 7493 §2.2).
MAX_SAFE_INTEGER = 2**53 - 1


class DuplicateNameError(ValueError):
    """An object names the same member twice."""


class NotIJsonError(ValueError):
    """Valid JSON that is not I-JSON: NaN, an infinite float, an integer beyond 2^53."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):  # the rare case: find the name to report
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise DuplicateNameError(name)
            seen.add(name)
    return result


def _reject_constant(name: str) -> Any:
    raise NotIJsonError(f"{name} is not JSON")


def finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent, refused when past a double's range."""
    value = float(text)
    if not math.isfinite(value):
        raise NotIJsonError(f"{text} does not fit a double")
    return value


def _safe_int(text: str) -> int:
    # Python refuses >4300 digits on its own (sys.int_max_str_digits); bound it far earlier.
    if len(text) > 20:
        raise NotIJsonError("integer too large")
    value = int(text)
    if abs(value) > MAX_SAFE_INTEGER:
        raise NotIJsonError(f"integer {value} does not fit a double exactly")
    return value


#: Built once: `json.loads` with hooks builds a new decoder per call, a sixth of the parse.
_STRICT = json.JSONDecoder(
    object_pairs_hook=_no_duplicates,
    parse_constant=_reject_constant,
    parse_float=finite_float,
    parse_int=_safe_int,
)


def loads_strict(data: bytes | str) -> Any:
    """Parse JSON, refusing duplicate names, NaN/Infinity, and numbers a double cannot hold.

    Raises `DuplicateNameError`, `NotIJsonError` or `ValueError` (invalid JSON or UTF-8).
    """
    if isinstance(data, bytes):
        data = data.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if data.startswith("\ufeff"):
        raise ValueError("a byte order mark is not JSON")  # as json.loads refuses it
    return _STRICT.decode(data)


#: Every digit as `0`, so that a run of 16 digits (the only way to write an integer of
#: magnitude 2^53 or more) is a plain substring search; a regex took five times as long.
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_SIXTEEN_DIGITS = b"0" * 16


def loads_strict_compact(data: bytes) -> Any:
    """`loads_strict` for compact JSON, such as a JWS segment, at a third of the cost.

    orjson parses in C without hooks; when writing its result back gives exactly `data`, the
    text had no duplicate name (a dropped member would be missing), no whitespace and no
    escape orjson would not write, and orjson refuses NaN, infinities and deep nesting on its
    own. What remains of I-JSON is integers beyond 2^53, which need 16 digits: text with such
    a run, and any text orjson writes differently, takes `loads_strict`, so the verdict on
    every input is `loads_strict`'s (property-tested in tests/unit/tokens/test_strictjson.py).
    """
    if _SIXTEEN_DIGITS not in data.translate(_DIGITS_AS_ZERO):
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
        else:
            if orjson.dumps(value) == data:
                return value
    return loads_strict(data)


# --- what a token vouches for: the canonical claims and the entry digest ----------------------

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


_MAX_SAFE_INTEGER = 2**53 - 1


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
        return bool(-_MAX_SAFE_INTEGER <= value <= _MAX_SAFE_INTEGER)
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
    bytes (property-tested against `rfc8785` in tests/unit/tokens/test_claims.py) at a
    fiftieth of the cost, and a tenth of the stdlib encoder's, which keeps verification above
    0.7 of the signature check alone (bench/tokens.py).
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


# --- reuse protection: one jti bound to one (model repo, digest) ------------------------------

LEEWAY_S = 30
DEFAULT_RETENTION_S = 400 * 24 * 3600


class BindOutcome(Enum):
    """How a bind attempt went; only `OTHER` is a reuse."""

    NEW = "new"  # this call bound the jti
    SAME = "same"  # already bound to the same (model repo, digest): a re-check
    OTHER = "other"  # bound to other content or another repo


class JtiBinder(Protocol):
    def bind(self, *, issuer: str, jti: str, model_repo: str, digest: str, expires_at: int) -> bool:
        """True when this (issuer, jti) is new or already bound to the same (model_repo, digest)."""
        ...


def binding_value(model_repo: str, digest: str) -> bytes:
    """What a jti is bound to; repo ids hold no newline, so the encoding is unambiguous."""
    return f"{model_repo}\n{digest}".encode()


def binding_key(prefix: str, issuer: str, jti: str) -> str:
    """A fixed-size key: jti and issuer are attacker-chosen strings of up to a few hundred bytes."""
    material = hashlib.sha256(issuer.encode() + b"\0" + jti.encode()).hexdigest()
    return f"{prefix}{material}"


def binding_ttl_s(expires_at: int, *, now: float, retention_s: int) -> int:
    """Seconds to keep a binding: the retention, and always beyond `exp` + leeway + 5 s."""
    return max(retention_s, int(expires_at - now) + LEEWAY_S + 5, 1)


class MemoryJtiBinder:
    """Bindings for one process (the CLI: a run sees each jti in file and entry order)."""

    def __init__(self) -> None:
        self._bound: dict[tuple[str, str], bytes] = {}
        self._lock = threading.Lock()

    def bind(self, *, issuer: str, jti: str, model_repo: str, digest: str, expires_at: int) -> bool:
        outcome = self.claim(issuer=issuer, jti=jti, model_repo=model_repo, digest=digest)
        return outcome is not BindOutcome.OTHER

    def claim(self, *, issuer: str, jti: str, model_repo: str, digest: str) -> BindOutcome:
        value = binding_value(model_repo, digest)
        with self._lock:
            current = self._bound.setdefault((issuer, jti), value)
            if current is value:
                return BindOutcome.NEW
        return BindOutcome.SAME if current == value else BindOutcome.OTHER


# --- the check of one token, and of every token of a run --------------------------------------

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
