"""The bot finds its own comment by the account its token belongs to.

`EVALBOT_BOT_NAME=Evalbot` for the Hub account `evalbot` is the same account (Hub names are
case-insensitive); before the fix, three pushes gave three report comments because the
worker compared comment authors case-sensitively with the configured spelling."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.stackbot import open_pr, push, running_bot

pytestmark = pytest.mark.integration

GPQA_PATH = ".eval_results/gpqa_mini.yaml"
GPQA = """\
- dataset:
    id: emulator-samples/gpqa-mini
    task_id: diamond
  value: {value}
"""


def test_three_pushes_with_the_name_spelt_otherwise_keep_one_report(tmp_path: Path) -> None:
    with running_bot(tmp_path, env={"EVALBOT_BOT_NAME": "Evalbot"}) as bot:
        num, head = open_pr(bot, {GPQA_PATH: GPQA.format(value="41.0")})
        first = bot.wait_for_report(num, head=head)
        for value in ("42.0", "43.0"):
            head = push(bot, num, GPQA_PATH, GPQA.format(value=value))
            bot.wait_for_report(num, head=head)
        bot.wait_until_quiet()
        reports = bot.bot_comments(num)
        assert [report.id for report in reports] == [first.id], bot.stack.logs()
        assert "43.0" in reports[0].content
