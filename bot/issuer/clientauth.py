"""OAuth client credentials (RFC 6749 §2.3.1, HTTP Basic), checked in constant time against the
SHA-256 of each secret (docs/issuer.md, "Authentication")."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from urllib.parse import unquote

from bot.issuer.identity import Identity
from bot.issuer.integrations import IntegrationsConfig
from bot.issuer.refusals import Unauthenticated

_UNKNOWN = "0" * 64


def secret_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_client_secret() -> tuple[str, str]:
    """A fresh secret and the digest to configure for it."""
    secret = "evs_" + secrets.token_urlsafe(32)
    return secret, secret_digest(secret)


def decode_basic(basic: str) -> tuple[str, str]:
    """The client id and secret of HTTP Basic credentials (the part after `Basic `)."""
    try:
        decoded = base64.b64decode(basic, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as error:
        raise Unauthenticated("client-credentials-malformed") from error
    client_id, colon, secret = decoded.partition(":")
    if not colon:
        raise Unauthenticated("client-credentials-malformed")
    return unquote(client_id), unquote(secret)


def presented_client_id(basic: str) -> str | None:
    """The client id HTTP Basic credentials name, before they are checked (None if unreadable):
    failed attempts are counted per client id too (`limits.RedisLimits.record_auth_failure`)."""
    try:
        return decode_basic(basic)[0]
    except Unauthenticated:
        return None


@dataclass
class ClientAuthenticator:
    config: IntegrationsConfig

    def authenticate(self, basic: str) -> Identity:
        client_id, secret = decode_basic(basic)
        matcher = self.config.matcher_for_client(client_id)
        expected = (matcher.client_secret_sha256 if matcher else None) or _UNKNOWN
        if not hmac.compare_digest(secret_digest(secret), expected) or matcher is None:
            raise Unauthenticated("client-credentials-rejected")
        return Identity(kind="client", name=client_id)
