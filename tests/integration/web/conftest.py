"""One running bot with its web pages for the module (starting a stack costs seconds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import browser, screenshots
from tests.support.emulator import MINI_GATE
from tests.support.stackbot import Bot, running_bot
from tests.support.tuning import tuned

__all__ = ["DATASTORE", "OPERATOR_TOKEN", "PRIVATE_DATASTORE", "browser", "screenshots", "web_bot"]

#: The operator token of `web_bot`'s pages (the fallback sign-in; never the webhook secret).
OPERATOR_TOKEN = "operator-token-for-the-web-tests-0123456789"

#: Every Eval Ever datastores the bot checks (seeded by the tests that use them).
DATASTORE = "alice/eee-pages"
PRIVATE_DATASTORE = "evals-org/eee-private"

#: Where the PR comments say the pages are (the stack's own port is known only once it runs).
PAGES_URL = "http://evalbot-pages.example"


@pytest.fixture(scope="module")
def web_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    work_dir: Path = tmp_path_factory.mktemp("web-stack")
    collections = work_dir / "collections"
    collections.mkdir()
    (collections / "mini-gate.yaml").write_text(MINI_GATE)
    with running_bot(
        work_dir / "stack",
        web=True,
        env={
            **tuned({"bot.web.config.SAMPLE_INTERVAL_S": 1}),
            "EVALBOT_WEB_ADMIN_TOKEN": OPERATOR_TOKEN,
            "EVALBOT_WEB_PUBLIC_URL": PAGES_URL,
        },
        bot_config={
            "collections_dir": str(collections),
            "datastores": {DATASTORE: {}, PRIVATE_DATASTORE: {}},
        },
    ) as bot:
        yield bot
