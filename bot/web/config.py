"""What `evalbot web` needs besides the bot's `Settings`: read once at start-up, fail-fast."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.settings import Secret, Settings, SettingsError
from bot.web.guards import MIN_ADMIN_TOKEN_BYTES
from bot.web.hubsignin import SignInConfig

#: Seconds between two samples of the figures the status page charts (docs/web.md): a chart
#: covers hours, so one point a minute draws it finely, and the samples of a day stay a few
#: thousand small entries in Redis.
SAMPLE_INTERVAL_S = 60.0


@dataclass(frozen=True, slots=True)
class WebConfig:
    settings: Settings
    #: The fallback sign-in for deployments without an OAuth app (`EVALBOT_WEB_ADMIN_TOKEN`,
    #: at least 32 bytes), or None: never the webhook secret.
    admin_token: Secret | None
    #: "Sign in with Hugging Face" (`bot.web.hubsignin`), or None without an OAuth app.
    signin: SignInConfig | None = None
    #: The pages' public address is https (`EVALBOT_WEB_PUBLIC_URL`, else a Space's
    #: `SPACE_HOST`): the operator cookie is then `Secure` even when a request reads http
    #: (behind a Space's proxy), whichever way the operator signed in.
    public_https: bool = False
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
        if token and len(token.encode("utf-8")) < MIN_ADMIN_TOKEN_BYTES:
            raise SettingsError(
                "invalid settings:\n  - EVALBOT_WEB_ADMIN_TOKEN must be at least "
                f"{MIN_ADMIN_TOKEN_BYTES} bytes (make one with `openssl rand -hex 32`)"
            )
        webhook_secrets = settings.webhook_secrets()
        if token and any(secret.matches(token.encode("utf-8")) for secret in webhook_secrets):
            raise SettingsError(
                "invalid settings:\n  - EVALBOT_WEB_ADMIN_TOKEN must not be the webhook secret "
                "(whoever reads the Hub webhook's settings knows it)"
            )
        signin = SignInConfig.from_env(environ)
        if token and signin is not None:
            # The token is the fallback where no OAuth app is set up. Beside one it would be a
            # second door, letting in whoever holds it with no allow-listed Hub identity.
            raise SettingsError(
                "invalid settings:\n  - EVALBOT_WEB_ADMIN_TOKEN is only for deployments "
                "without OAuth: OAUTH_CLIENT_ID is set, so operators sign in with Hugging Face "
                "(unset EVALBOT_WEB_ADMIN_TOKEN)"
            )
        return cls(
            settings=settings,
            admin_token=Secret(token) if token else None,
            signin=signin,
            public_https=_public_https(environ),
            sample_interval_s=SAMPLE_INTERVAL_S,
        )


def _public_https(environ: Mapping[str, str]) -> bool:
    """Whether the pages' public address is https: `EVALBOT_WEB_PUBLIC_URL` when set, else a
    Space's (`SPACE_HOST`: always https)."""
    public = environ.get("EVALBOT_WEB_PUBLIC_URL", "").strip()
    if public:
        return public.startswith("https://")
    return bool(environ.get("SPACE_HOST", "").strip())
