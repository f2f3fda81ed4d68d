"""The issuer's abuse settings from the environment: defaults, and bad values stop the start."""

from __future__ import annotations

import logging

import pytest

from bot.issuer.limits import AUTH_FAILURE_WINDOW_S, AuthFailureLimits
from bot.issuer.settings import IssuerSettings, SettingsError

BASE = {"EVALBOT_ISSUER_URL": "https://tokens.example.org", "REDIS_URL": "redis://localhost/0"}


def test_defaults_cache_whoami_for_a_minute_and_allow_ten_failures_per_ten_minutes() -> None:
    settings = IssuerSettings.from_env(BASE)
    assert settings.whoami_cache_s == 60.0
    assert settings.auth_failures == 10
    assert AuthFailureLimits(settings.auth_failures).window_s == AUTH_FAILURE_WINDOW_S == 600


def test_settings_are_read_and_zero_turns_the_cache_off() -> None:
    settings = IssuerSettings.from_env(
        {
            **BASE,
            "EVALBOT_ISSUER_WHOAMI_CACHE_S": "0",
            "EVALBOT_ISSUER_AUTH_FAILURES": "3",
        }
    )
    assert settings.whoami_cache_s == 0.0
    assert settings.auth_failures == 3


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("EVALBOT_ISSUER_WHOAMI_CACHE_S", "-1"),
        ("EVALBOT_ISSUER_AUTH_FAILURES", "0"),
    ],
)
def test_bad_values_name_the_setting(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        IssuerSettings.from_env({**BASE, name: value})


@pytest.mark.parametrize(
    "url",
    [
        "http://tokens.example.org",
        "http://10.0.0.5:8100",
        "http://127.0.0.1.nip.io",
        # the scheme in capitals is plain http all the same (it was taken for something else)
        "HTTP://tokens.example.org",
        "Http://tokens.example.org/v1",
    ],
)
def test_the_issuer_url_is_https_except_on_loopback(url: str) -> None:
    """Callers send their identity to this URL, and the bot fetches the keys from it."""
    with pytest.raises(SettingsError, match="EVALBOT_ISSUER_URL must be an https URL"):
        IssuerSettings.from_env({**BASE, "EVALBOT_ISSUER_URL": url})
    for local in ("http://127.0.0.1:8100", "http://[::1]:8100", "http://localhost:8100"):
        assert IssuerSettings.from_env({**BASE, "EVALBOT_ISSUER_URL": local}).issuer_url == local


def test_a_refused_issuer_url_is_shown_without_its_credentials() -> None:
    url = "http://operator:s3cret-token@tokens.example.org:8100/path?key=also-secret"
    with pytest.raises(SettingsError) as refused:
        IssuerSettings.from_env({**BASE, "EVALBOT_ISSUER_URL": url})
    assert "http://tokens.example.org:8100" in str(refused.value)
    assert "s3cret" not in str(refused.value)
    assert "also-secret" not in str(refused.value)


@pytest.mark.parametrize(
    ("name", "replacement"),
    [
        ("EVALBOT_ISSUER_MAX_BODY_BYTES", "bot.issuer.endpoints.MAX_BODY_BYTES"),
        ("EVALBOT_ISSUER_BENCHMARK_CACHE_S", "bot.issuer.lookups.BENCHMARK_CACHE_S"),
        ("EVALBOT_ISSUER_AUTH_FAILURE_WINDOW_S", "bot.issuer.limits.AUTH_FAILURE_WINDOW_S"),
    ],
)
def test_a_removed_setting_still_set_is_named_in_a_warning_with_its_replacement(
    name: str, replacement: str, caplog: pytest.LogCaptureFixture
) -> None:
    """It no longer stops the start, even with a value it used to refuse, but the operator is
    told it has no effect."""
    with caplog.at_level(logging.WARNING, logger="evalbot.settings"):
        IssuerSettings.from_env({**BASE, name: "0"})
    [record] = caplog.records
    assert name in record.getMessage()
    assert replacement in record.getMessage()
