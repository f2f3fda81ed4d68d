"""What a child of the dev stack inherits: everything but the bot's own settings."""

from __future__ import annotations

import pytest

from evalbot_dev.devstack.environment import inherited_environment


def test_the_bots_settings_are_dropped_and_the_rest_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("HF_TOKEN", "REDIS_URL", "EVALBOT_BOT_NAME", "SPACE_ID"):
        monkeypatch.setenv(name, "from-the-developers-shell")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("MY_HF_TOKEN", "not a bot setting")
    env = inherited_environment()
    assert not {"HF_TOKEN", "REDIS_URL", "EVALBOT_BOT_NAME", "SPACE_ID"} & set(env)
    assert env["LANG"] == "C.UTF-8"
    assert env["MY_HF_TOKEN"] == "not a bot setting"
