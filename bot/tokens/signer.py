"""The reference signer: keys and tokens exactly as the verifier expects them.

For framework authors and issuers (see docs/verification.md) and for the tests, which sign
real tokens with real keys rather than stubbing verification. An issuer in production keeps
its private key in its own service; nothing here is used by the bot when it verifies.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Mapping
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bot.tokens.claims import CONTENT_CLAIMS
from bot.tokens.jwks import KID_PATTERN

TOKEN_TYPE = "eval-result+jwt"  # noqa: S105 - the JWT `typ`, not a secret
DEFAULT_LIFETIME_S = 900


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def check_kid(kid: str) -> str:
    if not KID_PATTERN.fullmatch(kid):
        raise ValueError(f"kid must match {KID_PATTERN.pattern}")
    return kid


def generate_private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def private_key_pem(key: Ed25519PrivateKey) -> bytes:
    """PKCS#8 PEM, unencrypted: protect the file (the CLI writes it with mode 0600)."""
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def load_private_key(pem: bytes) -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("the private key is not an Ed25519 key")
    return key


def public_jwk(key: Ed25519PrivateKey, kid: str) -> dict[str, str]:
    """The public JWK to register inline in `issuers.yaml` or publish in the issuer's JWKS."""
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {
        "kty": "OKP",
        "crv": "Ed25519",
        "kid": check_kid(kid),
        "use": "sig",
        "alg": "EdDSA",
        "x": _b64url(raw),
    }


def token_claims(
    content: Mapping[str, Any],
    *,
    issuer: str,
    subject: str,
    issued_at: int,
    lifetime_s: int = DEFAULT_LIFETIME_S,
    audience: str | None = None,
    jti: str | None = None,
) -> dict[str, Any]:
    """The full claim set: registered claims plus the entry's content claims.

    `subject` is the caller identity the issuer authenticated (a CI workload, a framework
    integration). A fresh random `jti` is drawn unless one is given.
    """
    claims: dict[str, Any] = {
        "iss": issuer,
        "sub": subject,
        "iat": issued_at,
        "exp": issued_at + lifetime_s,
        "jti": jti if jti is not None else secrets.token_urlsafe(18),
    }
    if audience is not None:
        claims["aud"] = audience
    claims.update(content)
    return claims


def sign(claims: Mapping[str, Any], *, key: Ed25519PrivateKey, kid: str) -> str:
    """A compact JWS over `claims`: `alg` EdDSA, the given `kid`, `typ` eval-result+jwt."""
    return jwt.encode(
        dict(claims),
        key,
        algorithm="EdDSA",
        headers={"kid": check_kid(kid), "typ": TOKEN_TYPE},
    )


#: Claims the signer sets itself; content may not carry them (it could not override `iss`).
REGISTERED_CLAIMS = frozenset({"iss", "sub", "aud", "iat", "nbf", "exp", "jti"})
REQUIRED_CONTENT = ("model_repo", "benchmark_repo", "task_id", "metrics", "framework", "digest")


def validate_content(content: Any) -> None:
    """Refuse content claims the verifier could never accept; raises ValueError saying why."""
    if not isinstance(content, dict):
        raise ValueError("expected a JSON object of content claims")
    registered = sorted(REGISTERED_CLAIMS & set(content))
    if registered:
        raise ValueError(f"registered claims are set by the signer, not the content: {registered}")
    unknown = sorted(set(content) - set(CONTENT_CLAIMS))
    if unknown:
        raise ValueError(f"unknown content claims {unknown}")
    missing = [name for name in REQUIRED_CONTENT if name not in content]
    if missing:
        raise ValueError(f"missing content claims {missing}")
    framework = content["framework"]
    if not isinstance(framework, dict) or not isinstance(framework.get("name"), str):
        raise ValueError("framework must be an object with a name")
