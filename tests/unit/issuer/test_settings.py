"""The issuer's abuse settings from the environment: defaults, and bad values stop the start."""

from __future__ import annotations

import pytest

from bot.issuer.settings import IssuerSettings, SettingsError

BASE = {"EVALBOT_ISSUER_URL": "https://tokens.example.org", "REDIS_URL": "redis://localhost/0"}


def test_defaults_cache_whoami_for_a_minute_and_allow_ten_failures_per_ten_minutes() -> None:
    settings = IssuerSettings.from_env(BASE)
    assert settings.whoami_cache_s == 60.0
    assert (settings.auth_failures, settings.auth_failure_window_s) == (10, 600)


def test_settings_are_read_and_zero_turns_the_cache_off() -> None:
    settings = IssuerSettings.from_env(
        {
            **BASE,
            "EVALBOT_ISSUER_WHOAMI_CACHE_S": "0",
            "EVALBOT_ISSUER_AUTH_FAILURES": "3",
            "EVALBOT_ISSUER_AUTH_FAILURE_WINDOW_S": "60",
        }
    )
    assert settings.whoami_cache_s == 0.0
    assert (settings.auth_failures, settings.auth_failure_window_s) == (3, 60)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("EVALBOT_ISSUER_WHOAMI_CACHE_S", "-1"),
        ("EVALBOT_ISSUER_AUTH_FAILURES", "0"),
        ("EVALBOT_ISSUER_AUTH_FAILURE_WINDOW_S", "ten"),
    ],
)
def test_bad_values_name_the_setting(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        IssuerSettings.from_env({**BASE, name: value})
