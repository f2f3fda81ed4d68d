"""`evalbot web` stops at start with the file and the problem (exit 2), before serving."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main

BASE = {
    "HF_TOKEN": "hf_x",
    "EVALBOT_WEBHOOK_SECRET": "secret",
    "EVALBOT_BOT_NAME": "evalbot",
    "REDIS_URL": "redis://127.0.0.1:1/0",
}


@pytest.fixture
def environ(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name, value in BASE.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("EVALBOT_CONFIG_DIR", str(tmp_path))
    return monkeypatch


def test_a_short_admin_token_stops_the_start(
    environ: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    environ.setenv("EVALBOT_WEB_ADMIN_TOKEN", "short")
    assert main(["web"]) == 2
    assert "EVALBOT_WEB_ADMIN_TOKEN must be at least 16 characters" in capsys.readouterr().err


def test_a_bad_sample_interval_stops_the_start(
    environ: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    environ.setenv("EVALBOT_WEB_SAMPLE_INTERVAL", "0.1")
    assert main(["web"]) == 2
    assert "EVALBOT_WEB_SAMPLE_INTERVAL" in capsys.readouterr().err


def test_a_missing_collections_dir_names_the_bot_config(
    environ: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bot.yaml").write_text("collections_dir: nowhere\n")
    assert main(["web"]) == 2
    error = capsys.readouterr().err
    assert str(tmp_path / "bot.yaml") in error
    assert "collections_dir" in error
