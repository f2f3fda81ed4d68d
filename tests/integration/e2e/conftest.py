"""One real bot for the end-to-end tests: redis-server, the Hub emulator, `evalbot serve` under
uvicorn and an `evalbot worker` (Celery, prefork), wired by webhooks as in production.

The stack is shared by the module's tests (start-up costs seconds); every test opens its own
PRs, so tests do not see each other's comments. Counters are compared as deltas. The `Bot`
helper lives in `tests.support.stackbot` (the fault suite uses it too).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.stackbot import BOT, SAMPLE_BENCHMARKS, Bot, running_bot

__all__ = ["BOT", "SAMPLE_BENCHMARKS", "Bot"]


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with running_bot(tmp_path_factory.mktemp("stack"), workers=1, concurrency=2) as running:
        yield running
