"""A token's form: a compact JWS of three base64url segments, whose header and payload are read
as I-JSON (`bot.strictjson`), and whose header is checked before any key is looked up.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping
from typing import Any

from bot.strictjson import I_JSON, DuplicateKey, JsonError
from bot.tokens import reasons
from bot.tokens.jwks import KID_PATTERN
from bot.tokens.reasons import Unverified

ALGORITHM = "EdDSA"
#: `typ` values accepted; the signer writes the first (RFC 8725 §3.11 explicit typing).
ACCEPTED_TYP: frozenset[str] = frozenset({"eval-result+jwt", "JWT"})
ALLOWED_HEADER: frozenset[str] = frozenset({"alg", "kid", "typ"})
#: A token of 64 KiB covers thousands of metrics; anything larger is refused unparsed.
MAX_TOKEN_CHARS = 64 * 1024
#: A header holds `alg`, `kid` and `typ`: a few dozen characters. Longer ones are not parsed.
MAX_HEADER_CHARS = 1024
COMPACT_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")

#: Headers that passed every check, by their encoded text: an issuer signs with a handful of
#: keys, so most tokens repeat one of a few headers (bench/tokens.py). Only headers that passed
#: are kept, and the cache is bounded (cleared when full), so hostile headers can neither
#: poison nor grow it.
_CHECKED_HEADERS: dict[str, dict[str, Any]] = {}
MAX_CHECKED_HEADERS = 256


#: base64url to base64, as a bytes table: `base64.urlsafe_b64decode` translates through a
#: str mapping, several times slower on a kilobyte token.
_URLSAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")


def b64url_decode(segment: str) -> bytes:
    """Decode an unpadded base64url segment (its alphabet was checked by `COMPACT_JWS`)."""
    if len(segment) % 4 == 1:
        raise Unverified(reasons.MALFORMED_TOKEN)
    try:
        standard = segment.encode("ascii").translate(_URLSAFE_TO_STANDARD)
        return binascii.a2b_base64(standard + b"=" * (-len(segment) % 4))
    except (binascii.Error, ValueError) as error:
        raise Unverified(reasons.MALFORMED_TOKEN) from error


def segment_json(segment: str) -> dict[str, Any]:
    raw = b64url_decode(segment)
    try:
        value = I_JSON.read(raw)
    except DuplicateKey as error:
        raise Unverified(reasons.DUPLICATE_CLAIMS) from error
    except JsonError as error:  # not JSON, not I-JSON, nested past what Python reads
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
    header = segment_json(encoded_header)
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
