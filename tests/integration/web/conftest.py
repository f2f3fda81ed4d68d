"""One running bot with its web pages for the module (starting a stack costs seconds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import browser, screenshots
from tests.support.stackbot import Bot, running_bot

__all__ = ["browser", "screenshots", "web_bot"]


@pytest.fixture(scope="module")
def web_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    work_dir: Path = tmp_path_factory.mktemp("web-stack")
    with running_bot(work_dir, web=True, env={"EVALBOT_WEB_SAMPLE_INTERVAL": "1"}) as bot:
        yield bot
