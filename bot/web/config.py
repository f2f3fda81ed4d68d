"""What `evalbot web` needs besides the bot's `Settings`: read once at start-up, fail-fast."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.settings import Secret, Settings, SettingsError


@dataclass(frozen=True, slots=True)
class WebConfig:
    settings: Settings
    #: Unlocks the operator details on the status page (parked events, per-reason figures).
    #: Absent: the webhook secret does; an operator pastes it into the status page's form.
    admin_token: Secret
    #: Seconds between two samples of the figures the status page charts (docs/web.md).
    sample_interval_s: float = 60.0
    #: Playground validations run at once; beyond, the page answers "busy" (503).
    playground_slots: int = 2
    #: Distinct benchmarks one pasted file may name (each is a Hub lookup).
    playground_max_benchmarks: int = 20

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> WebConfig:
        settings = Settings.from_env(environ)
        token = environ.get("EVALBOT_WEB_ADMIN_TOKEN", "").strip()
        if token and len(token) < 16:
            raise SettingsError(
                "invalid settings:\n  - EVALBOT_WEB_ADMIN_TOKEN must be at least 16 characters"
            )
        raw_interval = environ.get("EVALBOT_WEB_SAMPLE_INTERVAL", "").strip() or "60"
        try:
            interval = float(raw_interval)
        except ValueError:
            interval = 0.0
        if not interval >= 1.0:
            raise SettingsError(
                "invalid settings:\n  - EVALBOT_WEB_SAMPLE_INTERVAL must be a number of "
                f"seconds, at least 1, got {raw_interval!r}"
            )
        return cls(
            settings=settings,
            admin_token=Secret(token) if token else settings.webhook_secret,
            sample_interval_s=interval,
        )
