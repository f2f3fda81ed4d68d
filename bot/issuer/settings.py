"""The issuer's settings, read once from the environment at start-up (docs/issuer.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bot import packaged
from bot.settings import (
    DEFAULT_HF_ENDPOINT,
    EnvReader,
    Secret,
    SettingsError,
    warn_removed_settings,
)
from bot.tokens.jwks import is_https_or_loopback, shown_url

__all__ = ["IssuerSettings", "SettingsError"]


@dataclass(frozen=True)
class IssuerSettings:
    #: This issuer's `iss`, also the base of its public URLs (JWKS, metadata).
    issuer_url: str
    #: The `aud` CI ID tokens must be minted for (default: `issuer_url`).
    audience: str
    #: The `aud` put into verify tokens, when the bot's config/bot.yaml sets one for us.
    token_audience: str | None
    keyring_dir: Path
    integrations_file: Path
    audit_log: Path
    redis_url: str = field(repr=False)
    hf_endpoint: str
    #: Read benchmarks with this token (gated benchmarks); None reads anonymously.
    hf_token: Secret | None
    hub_timeout_s: float = 30.0
    #: Seconds a `whoami-v2` answer (or a refusal) is reused for one Hub token; 0: never. It is
    #: also how long a revoked Hub token keeps working, hence an operator's choice.
    whoami_cache_s: float = 60.0
    #: Failed authentications per client address (and per presented client id) within
    #: `limits.AUTH_FAILURE_WINDOW_S` before that address or client id gets 429 until the
    #: window ends. Raised where many honest callers share one address (a CI provider's NAT).
    auth_failures: int = 10
    log_level: str = "INFO"

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> IssuerSettings:
        warn_removed_settings(environ)
        reader = EnvReader(environ)
        config_dir = Path(reader.optional("EVALBOT_CONFIG_DIR") or "config")
        issuer_url = reader.url("EVALBOT_ISSUER_URL", None, schemes=("http", "https"))
        # Callers send their credentials to it, and the bot fetches its keys from it. The
        # scheme as a URL parser reads it (any case: `HTTP://` is plain http too).
        if urlsplit(issuer_url).scheme == "http" and not is_https_or_loopback(issuer_url):
            reader.problems.append(
                "EVALBOT_ISSUER_URL must be an https URL (plain http only on loopback: "
                f"127.0.0.1, ::1, localhost), got {shown_url(issuer_url)!r}"
            )
        token = reader.optional("EVALBOT_ISSUER_HF_TOKEN")
        settings = cls(
            issuer_url=issuer_url,
            audience=reader.optional("EVALBOT_ISSUER_AUDIENCE") or issuer_url,
            token_audience=reader.optional("EVALBOT_ISSUER_TOKEN_AUDIENCE"),
            keyring_dir=Path(reader.optional("EVALBOT_ISSUER_KEYRING") or "keys"),
            integrations_file=reader.file(
                "EVALBOT_INTEGRATIONS_FILE",
                config_dir / "integrations.yaml",
                shipped=packaged.config_file("integrations.yaml"),
            ),
            audit_log=Path(reader.optional("EVALBOT_ISSUER_AUDIT_LOG") or "audit/issuer.jsonl"),
            redis_url=reader.url("REDIS_URL", None, schemes=("redis", "rediss", "unix")),
            hf_endpoint=reader.url("HF_ENDPOINT", DEFAULT_HF_ENDPOINT, schemes=("http", "https")),
            hf_token=Secret(token) if token else None,
            hub_timeout_s=reader.number("EVALBOT_HUB_TIMEOUT", 30.0, minimum=0.1),
            whoami_cache_s=reader.number("EVALBOT_ISSUER_WHOAMI_CACHE_S", 60.0, minimum=0.0),
            auth_failures=reader.integer("EVALBOT_ISSUER_AUTH_FAILURES", 10, minimum=1),
            log_level=(reader.optional("EVALBOT_LOG_LEVEL") or "INFO").upper(),
        )
        reader.raise_if_any()
        return settings
