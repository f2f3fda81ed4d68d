"""Issuer public keys: JWK and JWKS parsing, and which URLs a JWKS may come from (pure).

The fetch itself is `bot.adapters.jwks_http.HttpxJwksFetcher`, injected as a `JwksFetcher`.

Only Ed25519 keys (`kty: OKP`, `crv: Ed25519`) are ever accepted: each key is used with exactly
one algorithm (RFC 8725 §3.1), so no token can choose how its key is interpreted. The JWKS URL
comes from `issuers:` in `config/bot.yaml` only, never from a token header.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

#: What a well-formed `kid` looks like; anything else is refused before any lookup.
KID_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,128}")

#: Caps on what one JWKS response may cost us.
MAX_JWKS_BYTES = 64 * 1024
MAX_JWKS_KEYS = 64
FETCH_TIMEOUT_S = 5.0
MAX_REDIRECTS = 3

#: A fetcher returns the raw body of the JWKS at a URL or raises `JwksFetchError`.
JwksFetcher = Callable[[str], bytes]


class KeyFormatError(ValueError):
    """A JWK that is not a usable Ed25519 public key."""


class JwksFetchError(RuntimeError):
    """The JWKS could not be fetched or is not a usable key set; the cache must be kept."""


def _b64url_decode(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        raise KeyFormatError("not unpadded base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as error:
        raise KeyFormatError("not base64url") from error


def parse_ed25519_jwk(jwk: Mapping[str, Any]) -> tuple[str, Ed25519PublicKey]:
    """(kid, key) of a public Ed25519 JWK; raises `KeyFormatError` for anything else.

    Private keys (`d`) are refused: a published or configured key set must never hold one.
    """
    if not isinstance(jwk, Mapping):
        raise KeyFormatError("a JWK must be a mapping")
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
        raise KeyFormatError("only kty OKP with crv Ed25519 is accepted")
    if "d" in jwk:
        raise KeyFormatError("a private key must not be published or configured")
    if jwk.get("use", "sig") != "sig" or jwk.get("alg", "EdDSA") != "EdDSA":
        raise KeyFormatError("the key is not for EdDSA signatures")
    kid = jwk.get("kid")
    if not isinstance(kid, str) or not KID_PATTERN.fullmatch(kid):
        raise KeyFormatError(f"kid must match {KID_PATTERN.pattern}")
    x = jwk.get("x")
    if not isinstance(x, str):
        raise KeyFormatError("x is missing")
    raw = _b64url_decode(x)
    if len(raw) != 32:
        raise KeyFormatError("x must hold 32 bytes")
    return kid, Ed25519PublicKey.from_public_bytes(raw)


def parse_jwks(body: bytes) -> dict[str, Ed25519PublicKey]:
    """The usable keys of a JWKS document by kid; raises `JwksFetchError` when there are none.

    Keys of other types are skipped (an issuer may publish RSA keys for other purposes); a
    document without a single usable key is garbage and must not replace a cached one.
    """
    try:
        document = json.loads(body)
    except ValueError as error:
        raise JwksFetchError("the JWKS is not JSON") from error
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list):
        raise JwksFetchError("the JWKS has no `keys` list")
    usable: dict[str, Ed25519PublicKey] = {}
    for jwk in keys[:MAX_JWKS_KEYS]:
        try:
            kid, key = parse_ed25519_jwk(jwk)
        except KeyFormatError:
            continue
        usable.setdefault(kid, key)
    if not usable:
        raise JwksFetchError("the JWKS holds no usable Ed25519 key")
    return usable


def _host_is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_https_or_loopback(url: str) -> bool:
    """Whether `url` is https, or plain http to this machine (tests, a local proxy): what keys
    and credentials may travel over."""
    parts = urlsplit(url)
    if not parts.hostname:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and _host_is_loopback(parts.hostname))


def shown_url(url: str) -> str:
    """`url` as an error message may show it: scheme, host and port, never the userinfo a URL
    can carry (`https://user:secret@host`), nor its path or query."""
    parts = urlsplit(url)
    try:
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        port = ""
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{port}"


def check_jwks_url(url: str) -> None:
    """Refuse URLs a JWKS must not come from: anything but https (http on loopback only)."""
    if not is_https_or_loopback(url):
        raise JwksFetchError(f"refusing JWKS URL {url!r}: https only (http on loopback)")
