"""The environment an operator's command reads its settings from, for the CLI tests."""

from __future__ import annotations

import pytest


def operator_env(monkeypatch: pytest.MonkeyPatch, redis_url: str, **extra: str) -> None:
    """Set the variables every `evalbot` operator command needs, plus `extra`."""
    for name, value in {
        "HF_TOKEN": "hf_x",
        "REDIS_URL": redis_url,
        "EVALBOT_WEBHOOK_SECRET": "s",
        "EVALBOT_BOT_NAME": "evalbot",
        **extra,
    }.items():
        monkeypatch.setenv(name, value)
