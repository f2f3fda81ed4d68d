"""A local stack with many PRs to process: what the end-to-end benchmark, the load test and the
soak test share.

`Workload` seeds an emulator with one model repo and the sample benchmarks, starts a
`LocalStack`, and opens PRs that each add one results file with one signed entry (so every run
goes through the whole pipeline: details, file, benchmark, token verification, comment). PRs
are opened through `huggingface_hub`, concurrently from a thread pool when asked, as a burst
of framework uploads would arrive. The verdict is read from the emulator (`outcomes`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from huggingface_hub import CommitOperationAdd, HfApi

from bot.queue.publishing import QUEUE
from bot.store import keys
from evalbot_dev.devstack.outcomes import PrOutcome, all_reported, pr_outcomes
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.signing import LocalIssuer
from evalbot_dev.devstack.stack import LocalStack, StackOptions
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.seed import SAMPLES, load_benchmarks
from evalbot_dev.emulator.state import HubState
from workers.pr_lease import as_text

MODEL = "alice/model"
BOT = "evalbot"
#: Tokens of the emulator's own accounts (they exist nowhere else).
TOKENS = {"alice": "hf_alice_write", BOT: "hf_evalbot_discussions"}
OWNER_TOKEN = TOKENS["alice"]
BOT_TOKEN = TOKENS[BOT]
BENCHMARKS = SAMPLES / "benchmarks"
#: Routes only the PR opener calls (`create_commit` with `create_pr`); every other request
#: the emulator counts during a run is the bot's.
OPENER_ROUTES = frozenset({"repos.preupload", "repos.commit"})


def hle_entry(
    accuracy: object, *, calibration_error: object = None, source_url: str | None = None
) -> str:
    """One results entry on the sample HLE benchmark with what a verify token binds (the
    framework and the metrics); a second metric and a source when given. Values are written
    as given (`"20.90"` stays `20.90`): tests compare the text the bot quotes back."""
    text = (
        "- dataset:\n"
        "    id: emulator-samples/hle-mini\n"
        "    task_id: hle\n"
        "  framework:\n"
        "    name: inspect-ai\n"
        '    version: "0.3.120"\n'
        "  metrics:\n"
        "    - metric_id: accuracy\n"
        f"      value: {accuracy}\n"
    )
    if calibration_error is not None:
        text += f"    - metric_id: calibration_error\n      value: {calibration_error}\n"
    if source_url is not None:
        text += f"  source:\n    url: {source_url}\n"
    return text


def seeded_state() -> HubState:
    """alice's model repo, the bot's token (read content, write discussions), the benchmarks."""
    state = HubState()
    state.add_user("alice", fullname="Alice")
    state.add_user(BOT, fullname="evalbot")
    state.add_token(OWNER_TOKEN, "alice", "write")
    state.add_token(BOT_TOKEN, BOT, "fineGrained", ["repo.content.read", "discussion.write"])
    state.seed_repo("model", MODEL, {"README.md": b"# model\n"})
    load_benchmarks(state, BENCHMARKS)
    return state


def signed_results_file(issuer: LocalIssuer, index: int) -> str:
    """A one-entry results file signed by `issuer`, distinct per `index`."""
    entry = hle_entry(
        f"{20 + (index % 7000) / 100:.2f}",
        calibration_error="12.5",
        source_url=f"https://example.org/runs/{index}",
    )
    token = issuer.token_for(entry, 0, model_repo=MODEL, benchmarks=BENCHMARKS)
    return entry + f"  verify_token: {token}\n"


def open_results_pr(api: Any, index: int | str, content: str) -> int:
    """Open a PR on the model adding `.eval_results/run-<index>.yaml`, as a framework's upload
    does (`create_commit` with `create_pr`); returns its number."""
    info: Any = api.create_commit(
        repo_id=MODEL,
        operations=[
            CommitOperationAdd(
                path_in_repo=f".eval_results/run-{index}.yaml",
                path_or_fileobj=content.encode(),
            )
        ],
        commit_message=f"Add results of run {index}",
        create_pr=True,
    )
    return int(info.pr_num)


def bot_calls(counters: dict[str, int]) -> int:
    """Requests the bot made, from the emulator's per-route counters."""
    return sum(count for route, count in counters.items() if route not in OPENER_ROUTES)


@dataclass
class Workload:
    """A running stack plus PR openers; build with `running_workload`."""

    stack: LocalStack
    issuer: LocalIssuer
    redis: redis.Redis
    opened: list[int] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _local: threading.local = field(default_factory=threading.local)

    def _api(self) -> Any:
        api = getattr(self._local, "api", None)
        if api is None:
            api = HfApi(endpoint=self.stack.hub.url, token=OWNER_TOKEN)
            self._local.api = api
        return api

    def results_file(self, index: int) -> str:
        """A one-entry results file, signed by the stack's issuer, distinct per `index`."""
        return signed_results_file(self.issuer, index)

    def open_pr(self, index: int, content: str) -> int:
        num = open_results_pr(self._api(), index, content)
        with self._lock:
            self.opened.append(num)
        return num

    def open_many(self, contents: Sequence[tuple[int, str]], threads: int) -> list[int]:
        """Open one PR per (index, content), `threads` at a time; returns their numbers."""
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="opener") as pool:
            return list(pool.map(lambda item: self.open_pr(*item), contents))

    def open_paced(
        self, contents: Sequence[tuple[int, str]], rate: float, threads: int
    ) -> list[int]:
        """Open one PR per (index, content) at `rate` PRs per second (the i-th one no earlier
        than i / rate seconds after the call), `threads` at a time: a steady stream instead of
        a burst, for finding the arrival rate a stack keeps up with."""
        started = time.monotonic()

        def open_at(position: int, item: tuple[int, str]) -> int:
            delay = started + position / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # pacing the load generator, not waiting for work
            return self.open_pr(*item)

        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="opener") as pool:
            return list(pool.map(open_at, range(len(contents)), contents))

    def outcomes(self, nums: Sequence[int]) -> list[PrOutcome]:
        return pr_outcomes(self.stack.hub.state, "model", MODEL, nums, BOT)

    def wait_reported(
        self, nums: Sequence[int], timeout: float, on_poll: Callable[[int], None] | None = None
    ) -> list[PrOutcome]:
        """Every PR in `nums` has a report for its head; polls the emulator's state."""

        def done() -> list[PrOutcome] | None:
            outcomes = self.outcomes(nums)
            if on_poll is not None:
                on_poll(sum(1 for o in outcomes if o.reports))
            return outcomes if all_reported(outcomes) else None

        return wait_until(done, timeout=timeout, interval=0.2, what=f"{len(nums)} reports")

    def wait_settled(self, timeout: float = 120) -> None:
        """No webhook left to send, nothing queued or unacked: nothing more can happen."""
        queue = QUEUE

        def settled() -> bool:
            return (
                self.stack.hub.dispatcher.idle()
                and self.redis.llen(queue) == 0
                and self.redis.zcard("unacked_index") == 0
            )

        wait_until(settled, timeout=timeout, interval=0.1, what="the stack to settle")

    def stats(self) -> dict[str, int]:
        raw = self.redis.hgetall(keys.STATS)
        return {as_text(key): int(value) for key, value in raw.items()}


@contextmanager
def running_workload(
    work_dir: Path,
    *,
    workers: int,
    concurrency: int,
    env: dict[str, str] | None = None,
    appendfsync: str = "everysec",
) -> Iterator[Workload]:
    """Start Redis (AOF with `appendfsync`, production's `everysec` by default) and the stack
    (with a fresh issuer it trusts), and hand back the workload. `work_dir` must be fresh: the
    AOF of an earlier run would hold its dedupe keys."""
    redis_server = RedisServer(
        directory=work_dir / "redis", appendonly=True, appendfsync=appendfsync
    ).start()
    try:
        with _stack(work_dir, workers, concurrency, env or {}, redis_server.url) as workload:
            yield workload
    finally:
        redis_server.stop(kill=True)


@contextmanager
def _stack(
    work_dir: Path, workers: int, concurrency: int, env: dict[str, str], redis_url: str
) -> Iterator[Workload]:
    issuer = LocalIssuer()
    options = StackOptions(
        bot_token=BOT_TOKEN,
        bot_name=BOT,
        watched=[{"type": "user", "name": "alice"}],
        issuers=[issuer.config()],
        workers=workers,
        concurrency=concurrency,
        env=env,
        redis_url=redis_url,
    )
    with LocalStack(seeded_state(), work_dir, options) as stack:
        client = redis.Redis.from_url(stack.redis_url)
        try:
            yield Workload(stack, issuer, client)
        finally:
            client.close()
