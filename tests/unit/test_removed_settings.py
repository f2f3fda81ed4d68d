"""Settings evalbot no longer reads: one still set is named at start-up with what replaced it,
and never stops the start (its value, even one the setting used to refuse, is ignored)."""

from __future__ import annotations

import importlib
import logging
import re

import pytest

from bot.settings import REMOVED_SETTINGS, Settings, warn_removed_settings

BASE = {
    "HF_TOKEN": "hf_token_value_123",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "EVALBOT_WEBHOOK_SECRET": "current-webhook-secret",
    "EVALBOT_BOT_NAME": "evalbot-ci",
}


@pytest.mark.parametrize(
    ("name", "replacement"),
    [
        ("EVALBOT_SHUTDOWN_TIMEOUT", "stopwaitsecs in bot/supervise/supervisord.conf"),
        ("EVALBOT_REDIS_START_TIMEOUT", "bot/supervise/supervisord.conf"),
        ("EVALBOT_ISSUER_MAX_BODY_BYTES", "bot.issuer.endpoints.MAX_BODY_BYTES"),
    ],
)
def test_the_bot_names_a_removed_setting_and_its_replacement(
    name: str, replacement: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="evalbot.settings"):
        Settings.from_env({**BASE, name: "nan"})
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert name in record.getMessage()
    assert replacement in record.getMessage()


def test_settings_still_read_and_empty_removed_ones_are_not_warned_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    environ = {**BASE, "EVALBOT_HUB_TIMEOUT": "3", "EVALBOT_SHUTDOWN_TIMEOUT": " "}
    with caplog.at_level(logging.WARNING, logger="evalbot.settings"):
        assert warn_removed_settings(environ) == []
    assert caplog.records == []


def test_every_replacement_named_exists() -> None:
    """A warning must not send the operator to a constant that is not there."""
    for name, replacement in REMOVED_SETTINGS.items():
        for path in re.findall(r"\(([\w.]+)\)", replacement):
            module, _, constant = path.rpartition(".")
            assert hasattr(importlib.import_module(module), constant), (name, path)
