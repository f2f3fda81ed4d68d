"""Start-up checks: a worker whose configuration or token is refused stops before it takes any
work, with one line naming the file, line, problem and fix (docs/operating.md, "Start-up
checks")."""

from __future__ import annotations

from collections.abc import Mapping

from huggingface_hub import HfApi

from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.identity import HubIdentity, whoami
from bot.hub.timeouts import use_hub_timeout
from bot.settings import Settings, SettingsError
from workers.runtime import Runtime, build_runtime


class StartupError(Exception):
    """The process must not start; `str()` is the one line to print."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


def settings_from(environ: Mapping[str, str]) -> Settings:
    """The settings and the bot config they name; their problems are a `StartupError`."""
    try:
        return Settings.from_env(environ)
    except SettingsError as error:
        raise StartupError(str(error)) from error


def verify_identity(settings: Settings) -> HubIdentity:
    """Ask the Hub who `HF_TOKEN` belongs to (one call, bounded by `EVALBOT_HUB_TIMEOUT`) and
    check that it is the account `EVALBOT_BOT_NAME` names (case-insensitively, as the Hub
    compares names). A token the Hub refuses, a Hub that cannot answer, or another account is
    a `StartupError`."""
    use_hub_timeout(settings.hub_timeout_s)
    api = HfApi(endpoint=settings.hf_endpoint, token=settings.hf_token.reveal())
    try:
        identity = whoami(api, settings.hf_token.reveal())
    except (HubPermanentError, ValueError) as error:  # ValueError: an answer without a name
        status = error.status if isinstance(error, HubPermanentError) else None
        raise StartupError(
            f"HF_TOKEN: the Hub at {settings.hf_endpoint} refuses the token "
            f"(HTTP {status or '?'}: {_first_line(error)}) "
            "(fix: set HF_TOKEN to a valid token of the bot's Hub account)"
        ) from error
    except HubTransientError as error:
        raise StartupError(
            f"HF_TOKEN: could not ask the Hub at {settings.hf_endpoint} whom the token belongs "
            f"to: {_first_line(error)} (fix: check HF_ENDPOINT and the network, then start "
            "again)"
        ) from error
    if not identity.is_named(settings.bot_name):
        raise StartupError(
            f"EVALBOT_BOT_NAME is {settings.bot_name!r} but HF_TOKEN belongs to the Hub "
            f"account {identity.name!r} (fix: set EVALBOT_BOT_NAME={identity.name}, or "
            "HF_TOKEN to a token of the bot's account)"
        )
    return identity


def worker_runtime(settings: Settings) -> Runtime:
    """A worker's runtime, the token checked (the configuration was, with the settings)."""
    return build_runtime(settings, verify_identity(settings))


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
