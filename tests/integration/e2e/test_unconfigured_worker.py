"""An event a worker cannot run because of its own broken configuration is parked, never
dropped, and a replay brings it back once the configuration is fixed.

`evalbot worker` refuses to start with a broken file (tests/integration/workers/
test_startup_checks.py); a worker started with Celery's own command line
(`celery -A workers.app worker`) skips that check and builds its runtime on its first task.
Before the fix, that task failed outside the code that parks failures: the event was lost
while the receiver had answered 202, and the Hub's retries were answered "duplicate"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evalbot_dev.devstack.waiting import wait_until
from tests.support.processes import REPO_ROOT, celery_worker
from tests.support.stackbot import open_pr, running_bot

pytestmark = pytest.mark.integration

GPQA_PATH = ".eval_results/gpqa_mini.yaml"
GPQA = "- dataset:\n    id: emulator-samples/gpqa-mini\n    task_id: diamond\n  value: 40.5\n"


def test_a_broken_bot_yaml_parks_the_event_and_replay_reports_it_once_fixed(
    tmp_path: Path,
) -> None:
    bot_yaml = tmp_path / "workers-bot.yaml"
    bot_yaml.write_text("maintainers: alice\n")  # not a list
    good = tmp_path / "receiver-bot.yaml"
    good.write_text("maintainers: [alice]\n")
    with running_bot(
        tmp_path / "stack",
        workers=0,
        env={"EVALBOT_BOT_CONFIG": str(bot_yaml)},
        receiver_env={"EVALBOT_BOT_CONFIG": str(good)},
    ) as bot:
        lazy = celery_worker(bot.stack.environment(), "workers.app", tmp_path, "evalbot")
        lazy.spawn()
        try:
            num, _ = open_pr(bot, {GPQA_PATH: GPQA})

            def parked_for_config() -> bool:
                assert lazy.process is not None
                assert lazy.process.poll() is None, f"the worker exited:\n{lazy.output()}"
                return any(record["reason"] == "bot-config" for record in bot.parked())

            wait_until(parked_for_config, timeout=30, what="the event parked as bot-config")
        finally:
            lazy.stop()
        record = next(record for record in bot.parked() if record["reason"] == "bot-config")
        assert f"{bot_yaml}:1: `maintainers` must be a list" in record["detail"]
        assert record["event"]["pr_num"] == num
        assert bot.bot_comments(num) == []

        bot_yaml.write_text("maintainers: [alice]\n")  # the operator fixes the file...
        bot.stack.start_worker()  # ... starts a worker ...
        replay = subprocess.run(  # ... and replays what was parked
            [sys.executable, "-m", "bot", "replay", "--all"],
            env=bot.stack.environment(),
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert replay.returncode == 0, replay.stdout + replay.stderr
        report = bot.wait_for_report(num)
        assert "gpqa" in report.content.lower()
        bot.wait_until_quiet()
        assert len(bot.bot_comments(num)) == 1
