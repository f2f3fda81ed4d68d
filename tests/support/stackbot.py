"""A whole running bot for end-to-end and fault tests, and the helpers those tests speak in.

`running_bot(work_dir, ...)` starts a `LocalStack` (redis-server with AOF, the Hub emulator,
`evalbot serve`, Celery workers) for the standard emulator cast; `Bot` wraps it with what the
tests ask: open a PR, push to it, wait for the report, read the bot's counters and parked
events. Everything is checked on the emulator's state (the comments a user would see).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.queue.publishing import QUEUE
from bot.report.comment_texts import REPORT_MARKER
from bot.store import keys
from bot.store.keys import LEDGER
from evalbot_dev.devstack.signing import LocalIssuer
from evalbot_dev.devstack.stack import LOCAL_DELIVERY, LocalStack, StackOptions
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.delivery import DeliverySettings
from evalbot_dev.emulator.seed import SAMPLES
from evalbot_dev.emulator.server import CommentView
from tests.support.emulator import MODEL, TOKENS, client, standard_state
from workers.pr_lease import as_text

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

    def runs(self) -> int:
        """Task runs that reached an outcome (parked ones excluded), over the stack's life."""
        return sum(v for k, v in self.stats().items() if k.startswith("outcome:"))

    def parked(self) -> list[dict[str, Any]]:
        """Parked events, newest first (as `bot.store.deadletters` stores them)."""
        return [json.loads(raw) for raw in self.redis.lrange(keys.DEAD_LETTERS, 0, -1)]

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

    def wait_for_outcome(
        self, name: str, before: Mapping[str, int], count: int = 1, timeout: float = 30
    ) -> None:
        key = f"outcome:{name}"
        wait_until(
            lambda: self.stats().get(key, 0) - before.get(key, 0) >= count,
            timeout=timeout,
            what=f"{count} run(s) ending {name!r}",
        )

    def wait_for_deliveries(self, timeout: float = 30) -> None:
        wait_until(self.stack.hub.emulator.dispatcher.idle, timeout=timeout, what="webhooks sent")

    def queue_drained(self) -> bool:
        """Nothing waiting in the queue and every accepted event finished: the ledger is
        empty (an event running, or waiting for a retry's countdown, is still in it)."""
        return self.redis.llen(QUEUE) == 0 and self.redis.zcard(LEDGER) == 0

    def wait_until_quiet(self, timeout: float = 30) -> None:
        """Webhooks sent, the queue empty, every accepted event finished."""
        self.wait_for_deliveries(timeout)
        wait_until(self.queue_drained, timeout=timeout, what="the queue to drain")


def open_pr(bot: Bot, files: Mapping[str, str], user: str = "alice") -> tuple[int, str]:
    """Open a PR on alice/model adding `files`; returns its number and head commit."""
    from huggingface_hub import CommitOperationAdd

    operations = [
        CommitOperationAdd(path_in_repo=path, path_or_fileobj=text.encode())
        for path, text in files.items()
    ]
    info: Any = bot.api(user).create_commit(
        repo_id=MODEL, operations=operations, commit_message="Add results", create_pr=True
    )
    return int(info.pr_num), str(info.oid)


def push(bot: Bot, num: int, path: str, text: str) -> str:
    """Push `text` to `path` on PR `num`; returns the new head commit."""
    info: Any = bot.api("alice").upload_file(
        path_or_fileobj=text.encode(), path_in_repo=path, repo_id=MODEL, revision=f"refs/pr/{num}"
    )
    return str(info.oid)


@contextmanager
def running_bot(
    work_dir: Path,
    *,
    workers: int = 1,
    concurrency: int = 2,
    env: Mapping[str, str] | None = None,
    delivery: DeliverySettings = LOCAL_DELIVERY,
    issuer_config: Mapping[str, Any] | None = None,
    receiver_env: Mapping[str, str] | None = None,
    watched_repos: Sequence[str] = (),
    beat: bool = False,
    bot_config: Mapping[str, Any] | None = None,
    web: bool = False,
) -> Iterator[Bot]:
    """A whole bot for the standard cast, watching alice and evals-org; stopped on exit.

    The bot trusts `issuer_config` when given, else the `Bot.issuer`'s inline key;
    `receiver_env`, `watched_repos`, `beat`, `bot_config` and `web` are passed to `StackOptions`."""
    with pytest.MonkeyPatch.context() as patch:
        from huggingface_hub import constants

        patch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
        patch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
        issuer = LocalIssuer()
        options = StackOptions(
            bot_token=TOKENS["evalbot"],
            bot_name=BOT,
            watched=[{"type": "user", "name": "alice"}, {"type": "org", "name": "evals-org"}],
            issuers=[issuer_config or issuer.config()],
            workers=workers,
            concurrency=concurrency,
            env=dict(env or {}),
            receiver_env=dict(receiver_env or {}),
            watched_repos=list(watched_repos),
            delivery=delivery,
            beat=beat,
            bot_config=dict(bot_config or {}),
            web=web,
        )
        with LocalStack(standard_state(), work_dir, options) as stack:
            client_redis = redis.Redis.from_url(stack.redis_url, socket_timeout=5)
            try:
                yield Bot(stack, issuer, client_redis)
            finally:
                client_redis.close()
