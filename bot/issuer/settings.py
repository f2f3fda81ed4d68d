"""The issuer's settings, read once at start-up (docs/issuer.md, "Settings"): the environment,
and the `issuer:` section of `integrations.yaml` (`bot.issuer.integrations.IssuerOptions`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bot import packaged_defaults
from bot.issuer.integrations import load_issuer_options
from bot.settings import DEFAULT_HF_ENDPOINT, EnvReader, Secret
from bot.tokens.jwks import is_https_or_loopback, shown_url


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
        """The environment's settings and the configuration file's `issuer:` section; raises
        `SettingsError` (the environment) or `ConfigError` (the file: its name, line and
        field)."""
        reader = EnvReader(environ)
        config_dir = reader.directory("EVALBOT_CONFIG_DIR", Path("config"))
        integrations_file = config_dir / "integrations.yaml"
        if not integrations_file.is_file():
            integrations_file = packaged_defaults.config_file("integrations.yaml")
        issuer_url = reader.url("EVALBOT_ISSUER_URL", None, schemes=("http", "https"))
        # Callers send their credentials to it, and the bot fetches its keys from it. The
        # scheme as a URL parser reads it (any case: `HTTP://` is plain http too).
        if urlsplit(issuer_url).scheme == "http" and not is_https_or_loopback(issuer_url):
            reader.problems.append(
                "EVALBOT_ISSUER_URL must be an https URL (plain http only on loopback: "
                f"127.0.0.1, ::1, localhost), got {shown_url(issuer_url)!r}"
            )
        token = reader.optional("EVALBOT_ISSUER_HF_TOKEN")
        redis_url = reader.url("REDIS_URL", None, schemes=("redis", "rediss", "unix"))
        hf_endpoint = reader.url("HF_ENDPOINT", DEFAULT_HF_ENDPOINT, schemes=("http", "https"))
        hub_timeout_s = reader.number("EVALBOT_HUB_TIMEOUT", 30.0, minimum=0.1)
        log_level = (reader.optional("EVALBOT_LOG_LEVEL") or "INFO").upper()
        reader.raise_if_any()
        options = load_issuer_options(integrations_file)
        return cls(
            issuer_url=issuer_url,
            audience=options.audience or issuer_url,
            token_audience=options.token_audience,
            keyring_dir=options.keyring,
            integrations_file=integrations_file,
            audit_log=options.audit_log,
            redis_url=redis_url,
            hf_endpoint=hf_endpoint,
            hf_token=Secret(token) if token else None,
            hub_timeout_s=hub_timeout_s,
            whoami_cache_s=float(options.whoami_cache_s),
            auth_failures=options.auth_failures,
            log_level=log_level,
        )
