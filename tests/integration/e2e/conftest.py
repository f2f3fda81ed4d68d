"""One real bot for the end-to-end tests: redis-server, the Hub emulator, `evalbot serve` under
uvicorn and an `evalbot worker` (Celery, prefork), wired by webhooks as in production.

The stack is shared by the module's tests (start-up costs seconds); every test opens its own
PRs, so tests do not see each other's comments. Counters are compared as deltas.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.devstack.signing import LocalIssuer
from bot.devstack.stack import LocalStack, StackOptions
from bot.devstack.waiting import wait_until
from bot.emulator.seed import SAMPLES
from bot.emulator.server import CommentView
from bot.report.texts import REPORT_MARKER
from tests.support.emulator import MODEL, TOKENS, client, standard_state
from workers.locks import as_text

BOT = "evalbot"
SAMPLE_BENCHMARKS = SAMPLES / "benchmarks"


@dataclass
class Bot:
    """The running stack plus the helpers the tests speak in."""

    stack: LocalStack
    issuer: LocalIssuer
    redis: redis.Redis

    def api(self, user: str) -> Any:
        return client(self.stack.hub, user)

    def stats(self) -> dict[str, int]:
        raw = self.redis.hgetall("evalbot:stats")
        return {as_text(key): int(value) for key, value in raw.items()}

    def bot_comments(self, num: int, repo_id: str = MODEL) -> list[CommentView]:
        return [
            comment
            for comment in self.stack.hub.comments(repo_id, num)
            if comment.author == BOT and REPORT_MARKER in comment.content
        ]

    def wait_for_report(
        self, num: int, *, head: str | None = None, repo_id: str = MODEL, timeout: float = 30
    ) -> CommentView:
        """The PR's report once it exists (and reflects `head`, when given)."""

        def ready() -> CommentView | None:
            comments = self.bot_comments(num, repo_id)
            if not comments:
                return None
            latest = comments[-1]
            if head is not None and f"evalbot:head={head}" not in latest.content:
                return None
            return latest

        try:
            return wait_until(ready, timeout=timeout, what=f"the report on PR #{num}")
        except AssertionError as error:
            raise AssertionError(f"{error}\n{self.stack.logs()}") from error

    def wait_for_outcome(self, name: str, before: dict[str, int], count: int = 1) -> None:
        key = f"outcome:{name}"
        wait_until(
            lambda: self.stats().get(key, 0) - before.get(key, 0) >= count,
            timeout=30,
            what=f"{count} run(s) ending {name!r}",
        )

    def wait_for_deliveries(self) -> None:
        wait_until(self.stack.hub.emulator.dispatcher.idle, timeout=30, what="webhooks sent")


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with pytest.MonkeyPatch.context() as patch:
        from huggingface_hub import constants

        patch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
        patch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
        issuer = LocalIssuer()
        options = StackOptions(
            bot_token=TOKENS["evalbot"],
            bot_name=BOT,
            watched=[{"type": "user", "name": "alice"}, {"type": "org", "name": "evals-org"}],
            issuers=[issuer.config()],
            workers=1,
            concurrency=2,
        )
        work_dir: Path = tmp_path_factory.mktemp("stack")
        with LocalStack(standard_state(), work_dir, options) as stack:
            client_redis = redis.Redis.from_url(stack.redis_url)
            try:
                yield Bot(stack, issuer, client_redis)
            finally:
                client_redis.close()
