"""`evalbot beat` and `evalbot worker --beat`: registration and refusals (the running beat is
covered end to end in tests/integration/e2e/test_reconcile_e2e.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bot.cli import build_parser, main
from bot.cli.worker import worker_argv

ENV = {
    "HF_TOKEN": "hf_x",
    "REDIS_URL": "redis://127.0.0.1:6390/3",
    "EVALBOT_WEBHOOK_SECRET": "s",
    "EVALBOT_BOT_NAME": "evalbot-ci",
}


@pytest.mark.parametrize("command", [["beat"], ["worker", "--beat"]])
def test_disabled_reconciliation_leaves_beat_nothing_to_do(
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "bot.yaml").write_text("reconcile:\n  interval_s: 0\n")
    monkeypatch.setenv("EVALBOT_CONFIG_DIR", str(tmp_path))
    assert main(command) == 2
    assert "reconciliation is disabled" in capsys.readouterr().err


def test_beat_fails_fast_on_missing_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    assert main(["beat"]) == 2
    assert "REDIS_URL is required" in capsys.readouterr().err


def test_worker_beat_flag_embeds_beat() -> None:
    args = build_parser().parse_args(["worker", "--beat"])
    assert args.beat is True
    argv = worker_argv(args, queue="evalbot", log_level="INFO")
    assert argv[-1] == "--beat"
    plain = argparse.Namespace(concurrency=1, pool="solo", hostname=None, beat=False)
    assert "--beat" not in worker_argv(plain, queue="evalbot", log_level="INFO")
