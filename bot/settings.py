"""The bot's settings: read once at start-up from the environment into a frozen `Settings` that
entry points pass down (docs/operating.md, "Settings"); secrets never shown by `repr`."""

from __future__ import annotations

import dataclasses
import hmac
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bot import packaged_defaults
from bot.botconfig.document import ConfigError
from bot.botconfig.files import load_bot_config, moved_files
from bot.botconfig.sections import BotConfig

DEFAULT_HF_ENDPOINT = "https://huggingface.co"
MIB = 1024 * 1024
#: `EVALBOT_HUB_TIMEOUT`: seconds a Hub request may wait to connect, or between two reads
#: (bot.hub.timeouts).
DEFAULT_HUB_TIMEOUT_S = 30.0


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
    #: Where `config/bot.yaml` is: maintainers, reconciliation, trusted issuers (`issuers:`),
    #: the benchmark policy (`policy:`) and the rest an operator configures in a file.
    bot_config_file: Path
    log_level: str = "INFO"
    #: Seconds a Hub request may wait to connect or between reads before it fails (transient:
    #: the task retries). huggingface_hub's own client would wait for ever.
    hub_timeout_s: float = 30.0
    #: Where the bot's web pages are reachable from the internet (`evalbot web`, or the
    #: receiver's port on a Space); set, the PR comment's footer links each PR's details page.
    public_url: str | None = None
    #: The content of `bot_config_file`, read and checked with the settings (`BotConfig()`
    #: when built with `read_bot_config=False`).
    bot: BotConfig = field(default_factory=BotConfig)

    @property
    def reconcile_interval_s(self) -> int:
        """Seconds between reconciliation runs, 0 for none (docs/operating.md,
        "Reconciliation")."""
        return self.bot.reconcile.interval_s

    @classmethod
    def from_env(cls, environ: Mapping[str, str], *, read_bot_config: bool = True) -> Settings:
        """Build and check the settings and the bot config file they name; raise
        `SettingsError` naming every problem at once. `read_bot_config=False`: the environment
        alone, for a process that needs no section of the file."""
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
        if not read_bot_config or not bot_config.is_file():
            reader.raise_if_any()  # a configured path that is no file is one of its problems
            return settings
        try:
            bot = load_bot_config(bot_config)
        except ConfigError as error:
            if not reader.problems:  # the file's problems alone: each names the file
                raise SettingsError(str(error)) from error
            reader.problems.extend(str(problem) for problem in error.problems)
        reader.raise_if_any()
        return dataclasses.replace(settings, bot=bot)

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
            if folder != packaged_defaults.config_file("bot.yaml").parent:
                self.problems.extend(str(problem) for problem in moved_files(folder))

    def raise_if_any(self) -> None:
        if self.problems:
            # One line, so a supervisor's log shows the whole reason for the exit.
            raise SettingsError("invalid settings: " + "; ".join(self.problems))
