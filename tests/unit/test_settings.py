"""Settings from the environment: defaults, fail-fast errors, secrets kept out of repr."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Secret, Settings, SettingsError
from workers import app

BASE = {
    "HF_TOKEN": "hf_token_value_123",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "EVALBOT_WEBHOOK_SECRET": "current-webhook-secret",
    "EVALBOT_BOT_NAME": "evalbot-ci",
}


def test_minimal_environment_gets_documented_defaults() -> None:
    settings = Settings.from_env(BASE)
    assert settings.hf_endpoint == "https://huggingface.co"
    assert settings.bot_config_file == Path("config/bot.yaml")
    assert settings.webhook_secrets() == (Secret("current-webhook-secret"),)
    assert settings.bot_user_id is None
    assert settings.hub_timeout_s == 30.0


def test_every_variable_is_read(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "bot.yaml").write_text("issuers: []\n")
    env = BASE | {
        "HF_ENDPOINT": "http://127.0.0.1:8123/",
        "EVALBOT_WEBHOOK_SECRET_PREVIOUS": "old-secret",
        "EVALBOT_BOT_NAME": "@evalbot-ci",
        "EVALBOT_BOT_USER_ID": "6640ffee00112233445566bb",
        "EVALBOT_CONFIG_DIR": str(tmp_path / "etc"),
        "EVALBOT_LOG_LEVEL": "debug",
        "EVALBOT_HUB_TIMEOUT": "7.5",
    }
    settings = Settings.from_env(env)
    assert settings.hf_endpoint == "http://127.0.0.1:8123"
    assert settings.bot_name == "evalbot-ci"
    assert settings.bot_user_id == "6640ffee00112233445566bb"
    assert settings.bot_config_file == tmp_path / "etc" / "bot.yaml"
    assert settings.log_level == "DEBUG"
    assert settings.hub_timeout_s == 7.5
    assert [s.reveal() for s in settings.webhook_secrets()] == [
        "current-webhook-secret",
        "old-secret",
    ]


def test_all_problems_are_reported_at_once() -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({"EVALBOT_HUB_TIMEOUT": "lots", "REDIS_URL": "http://x"})
    message = str(caught.value)
    for expected in (
        "HF_TOKEN is required",
        "EVALBOT_WEBHOOK_SECRET is required",
        "EVALBOT_BOT_NAME is required",
        "REDIS_URL must be a redis/rediss/unix URL",
        "EVALBOT_HUB_TIMEOUT must be a number",
    ):
        assert expected in message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"REDIS_URL": ""}, "REDIS_URL is required"),
        ({"HF_ENDPOINT": "ftp://hub"}, "HF_ENDPOINT must be a http/https URL"),
        ({"EVALBOT_HUB_TIMEOUT": "0.01"}, "at least 0.1"),
        ({"EVALBOT_HUB_TIMEOUT": "nan"}, "EVALBOT_HUB_TIMEOUT must be a number, got 'nan'"),
        # an infinite timeout is no timeout (every outbound call has one)
        ({"EVALBOT_HUB_TIMEOUT": "inf"}, "EVALBOT_HUB_TIMEOUT must be a number, got 'inf'"),
        ({"EVALBOT_LOG_LEVEL": "LOUD"}, "EVALBOT_LOG_LEVEL must be one of"),
        ({"EVALBOT_BOT_NAME": "evalbot ci"}, "without spaces"),
        ({"EVALBOT_WEBHOOK_SECRET": "sécret"}, "must be ASCII"),
        (
            {"EVALBOT_WEB_PUBLIC_URL": "evalbot.example"},
            "EVALBOT_WEB_PUBLIC_URL must be a http/https",
        ),
    ],
)
def test_malformed_values_fail_fast(change: dict[str, str], expected: str) -> None:
    with pytest.raises(SettingsError, match=expected):
        Settings.from_env(BASE | change)


def test_secrets_never_show_in_repr_or_errors() -> None:
    env = BASE | {
        "EVALBOT_WEBHOOK_SECRET_PREVIOUS": "old-secret",
        "REDIS_URL": "redis://:redis-password@127.0.0.1:6379/0",
    }
    settings = Settings.from_env(env)
    text = repr(settings) + str(settings)
    for secret in ("hf_token_value_123", "current-webhook-secret", "old-secret", "redis-password"):
        assert secret not in text
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(BASE | {"REDIS_URL": "http://:redis-password@host/0"})
    assert "redis-password" not in str(caught.value)


def test_secret_matches_in_constant_time_on_bytes() -> None:
    secret = Secret("abc")
    assert secret.matches(b"abc")
    assert not secret.matches(b"abd")
    assert not secret.matches(b"abcd")
    assert not secret.matches(b"")


def test_a_configured_file_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    """Not silently "none" (no trusted issuers, the default policy, no maintainers)."""
    missing = tmp_path / "nowhere.yaml"
    with pytest.raises(SettingsError) as raised:
        Settings.from_env(BASE | {"EVALBOT_BOT_CONFIG": str(missing)})
    expected = f"invalid settings: EVALBOT_BOT_CONFIG names {missing}, which does not exist"
    assert str(raised.value) == expected


@pytest.mark.parametrize(
    ("moved", "section"), [("policy.yaml", "policy"), ("issuers.yaml", "issuers")]
)
def test_a_file_folded_into_bot_yaml_is_refused_where_it_is_left(
    tmp_path: Path, moved: str, section: str
) -> None:
    """In the configuration folder, or beside a bot config kept elsewhere."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "bot.yaml").write_text("maintainers: []\n")
    (tmp_path / moved).write_text("errors: [FILE-NAME]\n")
    for environ in (
        {"EVALBOT_CONFIG_DIR": str(tmp_path)},
        {"EVALBOT_BOT_CONFIG": str(tmp_path / moved).replace(moved, "bot.yaml")},
    ):
        (tmp_path / "bot.yaml").write_text("maintainers: []\n")
        with pytest.raises(SettingsError) as raised:
            Settings.from_env(BASE | environ)
        assert f"{tmp_path / moved}: {moved} is no longer read" in str(raised.value)
        assert f"now goes under `{section}:` in bot.yaml" in str(raised.value)
    Settings.from_env(BASE | {"EVALBOT_BOT_CONFIG": str(elsewhere / "bot.yaml")})


def test_a_configured_directory_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"EVALBOT_CONFIG_DIR names .*, which is not a dir"):
        Settings.from_env(BASE | {"EVALBOT_CONFIG_DIR": str(tmp_path / "none")})


def test_every_problem_is_on_one_line() -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({})
    assert "\n" not in str(raised.value)
    assert "HF_TOKEN is required but not set; REDIS_URL is required" in str(raised.value)


def test_the_pages_public_url_is_optional_and_kept_without_a_trailing_slash() -> None:
    assert Settings.from_env(BASE).public_url is None
    changed = Settings.from_env(BASE | {"EVALBOT_WEB_PUBLIC_URL": "https://bot.example/"})
    assert changed.public_url == "https://bot.example"


def test_the_task_limits_keep_their_order() -> None:
    """The soft limit comes before the hard one, and Redis redelivers an unacknowledged task
    only after the hard limit: else a task still running is handed to a second worker."""
    assert app.TASK_SOFT_TIME_LIMIT_S < app.TASK_TIME_LIMIT_S < app.VISIBILITY_TIMEOUT_S
