"""The bot's settings: read once at start-up from the environment, typed, frozen, fail-fast.

Every process (`evalbot serve`, `evalbot worker`, the demo) builds one `Settings` with
`Settings.from_env(os.environ)` in its entry point and passes it down; nothing reads the
environment inside handlers or at import time. Secrets are wrapped in `Secret`, whose `repr` and
`str` never show the value, so a settings object can be logged safely.

Every variable is documented in the one table of `docs/operating.md`, and no more than 25 are
read: `tests/unit/test_settings_table.py` checks both.
"""

from __future__ import annotations

import dataclasses
import hmac
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bot import packaged_defaults
from bot.configfiles import (
    DEFAULT_RECONCILE_INTERVAL_S,
    ConfigError,
    reconcile_interval_s,
    refuse_moved_files,
)

DEFAULT_HF_ENDPOINT = "https://huggingface.co"
MIB = 1024 * 1024
#: `EVALBOT_HUB_TIMEOUT`: seconds a Hub request may wait to connect, or between two reads
#: (bot.hub.client).
DEFAULT_HUB_TIMEOUT_S = 30.0


log = logging.getLogger("evalbot.settings")

#: Settings evalbot no longer reads, each with what took its place: a tuning knob no deployment
#: needs to turn (now a named constant next to the code it tunes, with the reason for its
#: value), a section of a configuration file, or an option. One still present in the
#: environment has no effect, which an operator would not otherwise notice:
#: `warn_removed_settings` names it at start-up.
REMOVED_SETTINGS: Mapping[str, str] = {
    "EVALBOT_ISSUER_MAX_BODY_BYTES": "the issuer's fixed 256 KiB bound on a token request "
    "(bot.issuer.endpoints.MAX_BODY_BYTES)",
    "EVALBOT_ISSUER_BENCHMARK_CACHE_S": "the issuer's fixed 300 s benchmark cache "
    "(bot.issuer.lookups.BENCHMARK_CACHE_S)",
    "EVALBOT_ISSUER_AUTH_FAILURE_WINDOW_S": "the issuer's fixed 600 s window for failed "
    "authentications (bot.issuer.limits.AUTH_FAILURE_WINDOW_S); the limit itself is "
    "`auth_failures` in the `issuer:` section of the issuer's integrations.yaml",
    "EVALBOT_SHUTDOWN_TIMEOUT": "the Space's fixed grace after SIGTERM, 7 s for the bot's "
    "processes and 2 s for Redis (stopwaitsecs in bot/supervise/supervisord.conf)",
    "EVALBOT_REDIS_START_TIMEOUT": "nothing: the Space's Redis starts beside the bot's "
    "processes, which wait for it (bot/supervise/supervisord.conf)",
    "EVALBOT_WEB_PORT": "any free loopback port for the web pages, which the Space's start "
    "picks and tells the receiver (bot.supervise.plan.space_plan)",
    "EVALBOT_WORKER_HEARTBEAT": "each worker's fixed 10 s heartbeat and sweep of the ledger of "
    "accepted events (bot.queue.publishing.SWEEP_EVERY_S)",
    "EVALBOT_MAX_BODY_BYTES": "the receiver's fixed 1 MiB bound on a webhook body "
    "(bot.receiver.app.MAX_BODY_BYTES)",
    "EVALBOT_BODY_TIMEOUT": "the fixed 10 s a request's headers and body may take on every "
    "port (bot.httpguards.BODY_TIMEOUT_S)",
    "EVALBOT_REDIS_TIMEOUT": "the fixed 2 s every process waits on Redis "
    "(bot.store.REDIS_TIMEOUT_S)",
    "EVALBOT_DEDUPE_TTL": "the fixed one-day dedupe window of a delivery "
    "(bot.receiver.events.DEDUPE_TTL_S)",
    "EVALBOT_STATUS_DEDUPE_TTL": "the fixed 120 s dedupe window of a close or reopen without a "
    "Webhook-Id (bot.receiver.events.STATUS_DEDUPE_TTL_S)",
    "EVALBOT_QUEUE": "the fixed Celery queue `evalbot` (bot.queue.publishing.QUEUE); "
    "two deployments need two Redis databases",
    "EVALBOT_TASK_SOFT_TIME_LIMIT": "the workers' fixed 240 s soft time limit "
    "(workers.app.TASK_SOFT_TIME_LIMIT_S)",
    "EVALBOT_TASK_TIME_LIMIT": "the workers' fixed 300 s hard time limit "
    "(workers.app.TASK_TIME_LIMIT_S)",
    "EVALBOT_VISIBILITY_TIMEOUT": "the workers' fixed 900 s visibility timeout "
    "(workers.app.VISIBILITY_TIMEOUT_S)",
    "EVALBOT_RECHECK_INTERVAL": "the receiver's fixed 10 s window coalescing rechecks "
    "(bot.queue.publishing.RECHECK_INTERVAL_S)",
    "EVALBOT_HUB_THROTTLE_BUDGET": "the workers' fixed 6 h budget for events held back by the "
    "Hub's rate limit (workers.hub_pause.HUB_THROTTLE_BUDGET_S)",
    "EVALBOT_JWKS_REFETCH_INTERVAL": "the fixed 60 s between two JWKS fetches of one issuer "
    "(bot.tokens.issuers.REFETCH_INTERVAL_S)",
    "EVALBOT_WEB_SAMPLE_INTERVAL": "the web pages' fixed 60 s between two samples of the "
    "status charts (bot.web.config.SAMPLE_INTERVAL_S)",
    "EVALBOT_WEB_UPSTREAM": "the option `evalbot serve --web-upstream URL`, which the Space "
    "supervisor passes",
    "EVALBOT_ISSUER_AUDIENCE": "`audience` in the `issuer:` section of the issuer's "
    "integrations.yaml",
    "EVALBOT_ISSUER_TOKEN_AUDIENCE": "`token_audience` in the `issuer:` section of the issuer's "
    "integrations.yaml",
    "EVALBOT_ISSUER_KEYRING": "`keyring` in the `issuer:` section of the issuer's "
    "integrations.yaml",
    "EVALBOT_ISSUER_AUDIT_LOG": "`audit_log` in the `issuer:` section of the issuer's "
    "integrations.yaml",
    "EVALBOT_ISSUER_WHOAMI_CACHE_S": "`whoami_cache_s` in the `issuer:` section of the issuer's "
    "integrations.yaml",
    "EVALBOT_ISSUER_AUTH_FAILURES": "`auth_failures` in the `issuer:` section of the issuer's "
    "integrations.yaml",
    "EVALBOT_INTEGRATIONS_FILE": "integrations.yaml in EVALBOT_CONFIG_DIR, the issuer's one "
    "configuration file",
    "EVALBOT_RECONCILE_INTERVAL": "`interval_s` under `reconcile:` in config/bot.yaml, or in the "
    "file EVALBOT_BOT_CONFIG names",
    "EVALBOT_WEB_DOCS_URL": "`docs_url` in config/bot.yaml, or in the file EVALBOT_BOT_CONFIG "
    "names",
    "EVALBOT_HUB_IDENTITY": "the option `evalbot submit --hub-identity VAR`",
    "EVALBOT_COLLECTIONS_DIR": "the option `--collections DIR` of `evalbot gate` and "
    "`evalbot collections` (the bot: `collections_dir` in config/bot.yaml)",
    "EVALBOT_POLICY_FILE": "the `policy:` section of config/bot.yaml, or of the file "
    "EVALBOT_BOT_CONFIG names",
    "EVALBOT_ISSUERS_FILE": "the `issuers:` section of config/bot.yaml, or of the file "
    "EVALBOT_BOT_CONFIG names",
}


def warn_removed_settings(environ: Mapping[str, str]) -> list[str]:
    """Log one warning per removed setting still set in `environ`, naming what replaced it;
    returns the names. Called by each process's settings at start-up."""
    present = [name for name in REMOVED_SETTINGS if environ.get(name, "").strip()]
    for name in present:
        log.warning(
            "%s is set but no longer read: it was replaced by %s; remove it from the environment",
            name,
            REMOVED_SETTINGS[name],
        )
    return present


class SettingsError(ValueError):
    """The environment is missing a setting or holds a malformed one; the message says which."""


@dataclass(frozen=True, slots=True)
class Secret:
    """A secret string that never shows itself in `repr`, `str`, logs or tracebacks."""

    _value: str

    def reveal(self) -> str:
        """The secret itself: call it only where the value is used (a header, a comparison)."""
        return self._value

    def matches(self, candidate: bytes) -> bool:
        """Constant-time comparison of `candidate` (raw header bytes) with the secret."""
        return hmac.compare_digest(candidate, self._value.encode("utf-8"))

    def __repr__(self) -> str:
        return "Secret('***')"

    def __str__(self) -> str:
        return "***"


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the receiver, the workers and the CLI need to know about their deployment."""

    hf_endpoint: str
    hf_token: Secret
    #: Left out of `repr`: a Redis URL may carry a password.
    redis_url: str = field(repr=False)
    webhook_secret: Secret
    #: Accepted next to `webhook_secret` while a rotation is under way (docs/operating.md).
    webhook_secret_previous: Secret | None
    #: The bot's Hub user name: `@<bot_name> recheck` addresses it.
    bot_name: str
    #: The bot's Hub user ObjectId, when known: comments whose author id equals it are the bot's
    #: own and are ignored by the receiver (a comment webhook names its author only by id).
    bot_user_id: str | None
    #: `config/bot.yaml`: maintainers, reconciliation, trusted issuers (`issuers:`), the
    #: benchmark policy (`policy:`) and the rest an operator configures in a file.
    bot_config_file: Path
    log_level: str = "INFO"
    #: Seconds between reconciliation runs (open PRs whose head has no verdict are queued);
    #: 0 disables the periodic task: `reconcile.interval_s` of the bot config, read with the
    #: settings (docs/operating.md, "Reconciliation").
    reconcile_interval_s: int = DEFAULT_RECONCILE_INTERVAL_S
    #: Seconds a Hub request may wait to connect or between reads before it fails (transient:
    #: the task retries). huggingface_hub's own client would wait for ever.
    hub_timeout_s: float = 30.0
    #: Where the bot's web pages are reachable from the internet (`evalbot web`, or the
    #: receiver's port on a Space); set, the PR comment's footer links each PR's details page.
    public_url: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        """Build and check the settings; raise `SettingsError` naming every problem at once."""
        warn_removed_settings(environ)
        reader = EnvReader(environ)
        config_dir, bot_config = reader.bot_config()
        settings = cls(
            hf_endpoint=reader.url("HF_ENDPOINT", DEFAULT_HF_ENDPOINT, schemes=("http", "https")),
            hf_token=Secret(reader.required("HF_TOKEN")),
            redis_url=reader.url("REDIS_URL", None, schemes=("redis", "rediss", "unix")),
            webhook_secret=Secret(reader.required("EVALBOT_WEBHOOK_SECRET")),
            webhook_secret_previous=_maybe_secret(
                reader.optional("EVALBOT_WEBHOOK_SECRET_PREVIOUS")
            ),
            bot_name=reader.required("EVALBOT_BOT_NAME").lstrip("@"),
            bot_user_id=reader.optional("EVALBOT_BOT_USER_ID"),
            bot_config_file=bot_config,
            log_level=(reader.optional("EVALBOT_LOG_LEVEL") or "INFO").upper(),
            hub_timeout_s=reader.number("EVALBOT_HUB_TIMEOUT", DEFAULT_HUB_TIMEOUT_S, minimum=0.1),
            public_url=(
                reader.url("EVALBOT_WEB_PUBLIC_URL", None, schemes=("http", "https"))
                if reader.optional("EVALBOT_WEB_PUBLIC_URL")
                else None
            ),
        )
        reader.check_relations(settings)
        reader.check_moved_files(config_dir, settings.bot_config_file)
        reader.raise_if_any()
        try:
            interval_s = reconcile_interval_s(settings.bot_config_file)
        except ConfigError as error:
            raise SettingsError(str(error)) from error
        return dataclasses.replace(settings, reconcile_interval_s=interval_s)

    def webhook_secrets(self) -> tuple[Secret, ...]:
        """The secrets a delivery may carry: the current one, and the previous during rotation."""
        if self.webhook_secret_previous is None:
            return (self.webhook_secret,)
        return (self.webhook_secret, self.webhook_secret_previous)


def hub_timeout_from_env(environ: Mapping[str, str]) -> float:
    """`EVALBOT_HUB_TIMEOUT` alone, checked as `Settings` checks it: for `evalbot validate`,
    which talks to the Hub but needs none of the bot's other settings."""
    reader = EnvReader(environ)
    timeout_s = reader.number("EVALBOT_HUB_TIMEOUT", DEFAULT_HUB_TIMEOUT_S, minimum=0.1)
    reader.raise_if_any()
    return timeout_s


def _maybe_secret(value: str | None) -> Secret | None:
    return None if value is None else Secret(value)


_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class EnvReader:
    """Reads variables and collects every problem, so one start-up failure lists them all.

    The one reader of environment variables: the bot's settings here, the issuer's
    (`bot.issuer.settings`) and the Space's (`bot.supervise.plan`)."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ
        self.problems: list[str] = []

    def optional(self, name: str) -> str | None:
        value = self._environ.get(name, "").strip()
        return value or None

    def required(self, name: str) -> str:
        value = self.optional(name)
        if value is None:
            self.problems.append(f"{name} is required but not set")
            return "<missing>"
        return value

    def file(self, name: str, default: Path, *, shipped: Path | None = None) -> Path:
        """A configuration file: a path set in the environment must name an existing file
        (never silently "none"); when the default place holds none, the copy `shipped` with
        evalbot (`bot.packaged_defaults`) is used, so an installed bot starts from its documented
        defaults."""
        raw = self.optional(name)
        if raw is None:
            return default if shipped is None or default.is_file() else shipped
        path = Path(raw)
        if not path.is_file():
            what = "is not a file" if path.exists() else "does not exist"
            self.problems.append(f"{name} names {raw}, which {what}")
        return path

    def bot_config(self) -> tuple[Path, Path]:
        """`EVALBOT_CONFIG_DIR` and the bot config file in it (or `EVALBOT_BOT_CONFIG`): what
        the bot's processes and the Space supervisor read."""
        config_dir = self.directory("EVALBOT_CONFIG_DIR", Path("config"))
        bot_config = self.file(
            "EVALBOT_BOT_CONFIG",
            config_dir / "bot.yaml",
            shipped=packaged_defaults.config_file("bot.yaml"),
        )
        return config_dir, bot_config

    def directory(self, name: str, default: Path) -> Path:
        raw = self.optional(name)
        if raw is None:
            return default
        if not Path(raw).is_dir():
            self.problems.append(f"{name} names {raw}, which is not a directory")
        return Path(raw)

    def url(self, name: str, default: str | None, *, schemes: tuple[str, ...]) -> str:
        value = self.optional(name) or default
        if value is None:
            self.problems.append(f"{name} is required but not set")
            return "<missing>"
        parts = urlsplit(value)
        if parts.scheme not in schemes or not (parts.netloc or parts.scheme == "unix"):
            shown = f"{parts.scheme}://{parts.hostname or ''}"  # never echo credentials
            self.problems.append(f"{name} must be a {'/'.join(schemes)} URL, got {shown!r}")
        return value.rstrip("/")

    def integer(self, name: str, default: int, *, minimum: int) -> int:
        raw = self.optional(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            self.problems.append(f"{name} must be an integer, got {raw!r}")
            return default
        if value < minimum:
            self.problems.append(f"{name} must be at least {minimum}, got {value}")
        return value

    def number(self, name: str, default: float, *, minimum: float) -> float:
        raw = self.optional(name)
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):  # `nan` and `inf` parse, but no timeout or size is either
            self.problems.append(f"{name} must be a number, got {raw!r}")
            return default
        if value < minimum:
            self.problems.append(f"{name} must be at least {minimum}, got {raw}")
        return value

    def check_relations(self, settings: Settings) -> None:
        if settings.log_level not in _LOG_LEVELS:
            self.problems.append(f"EVALBOT_LOG_LEVEL must be one of {', '.join(_LOG_LEVELS)}")
        if not settings.bot_name or any(char.isspace() for char in settings.bot_name):
            self.problems.append("EVALBOT_BOT_NAME must be a Hub user name without spaces")
        secrets = [settings.webhook_secret, settings.webhook_secret_previous]
        if any(secret is not None and not secret.reveal().isascii() for secret in secrets):
            self.problems.append("webhook secrets must be ASCII (the Hub sends them as-is)")

    def check_moved_files(self, config_dir: Path, bot_config: Path) -> None:
        """A `policy.yaml` or `issuers.yaml` left in the configuration folder (or beside the
        bot config) stops the start: its content now goes into `bot.yaml`."""
        for folder in dict.fromkeys((config_dir, bot_config.parent)):
            if folder == packaged_defaults.config_file("bot.yaml").parent:
                continue
            try:
                refuse_moved_files(folder)
            except ConfigError as error:
                self.problems.append(str(error))

    def raise_if_any(self) -> None:
        if self.problems:
            # One line, so a supervisor's log shows the whole reason for the exit.
            raise SettingsError("invalid settings: " + "; ".join(self.problems))
