"""Shared pieces of the fault suite: short timeouts, process control, the end-state checks.

Every stack here runs with a visibility timeout of a few seconds (and task limits below it, as
the settings require), so a task lost with its worker comes back within seconds, and with fast
webhook retries, so a 503 from the receiver is retried quickly. Tests that only disturb their
own PRs share a module-scoped stack; counters are compared as deltas.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.settings import Settings
from evalbot_dev.devstack.signing import LocalIssuer
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.devstack.workload import hle_entry
from evalbot_dev.emulator.delivery import DeliveryRecord, DeliverySettings
from tests.support.emulator import MODEL
from tests.support.jwks_server import JwksServer, running_jwks_server
from tests.support.stackbot import SAMPLE_BENCHMARKS, Bot, open_pr, running_bot
from tests.support.tuning import tuned
from workers.app import RECONCILE_TASK, create_celery_app

#: Seconds before Redis hands an unacked task to another worker (production: 900).
VISIBILITY_TIMEOUT_S = 6
#: The suite's short task limits (production: 240, 300 and 900 s).
FAULT_TUNING: Mapping[str, float] = {
    "workers.app.VISIBILITY_TIMEOUT_S": VISIBILITY_TIMEOUT_S,
    "workers.app.TASK_TIME_LIMIT_S": 5,
    "workers.app.TASK_SOFT_TIME_LIMIT_S": 4,
}
FAULT_ENV = tuned(FAULT_TUNING)
#: Webhook retries that outlast a Redis restart: 12 attempts over about 10 s.
FAULT_DELIVERY = DeliverySettings(
    max_attempts=12, backoff_s=0.2, max_backoff_s=1.0, timeout_s=10.0, workers=4
)

#: The suite's usual result: one live-format entry on the sample GPQA benchmark.
GPQA_PATH = ".eval_results/gpqa_mini.yaml"
GPQA_ENTRY = """\
- dataset:
    id: emulator-samples/gpqa-mini
    task_id: diamond
  value: {value}
"""


#: Where the fault tests put their signable entry (`evalbot_dev.devstack.workload.hle_entry`).
HLE_PATH = ".eval_results/hle_mini.yaml"


def results(value: float) -> dict[str, str]:
    return {GPQA_PATH: GPQA_ENTRY.format(value=value)}


@contextmanager
def fault_bot(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    *,
    env: Mapping[str, str] | None = None,
    tuning: Mapping[str, float] = FAULT_TUNING,
    **options: Any,
) -> Iterator[Bot]:
    """A stack with short timeouts (`tuning`, by default the suite's: `tests.support.tuning`)
    and fast webhook retries (`running_bot`); `env` adds to the environment."""
    with running_bot(
        tmp_path_factory.mktemp(name),
        env={**tuned(tuning), **(env or {})},
        delivery=FAULT_DELIVERY,
        **options,
    ) as running:
        yield running


def route_count(bot: Bot, route: str) -> int:
    return bot.stack.hub.counters().get(route, 0)


def wait_for_request(bot: Bot, route: str, before: int, timeout: float = 30) -> None:
    """Until the emulator has received one more `route` request than `before` (it is in
    flight now if the route is slowed by a latency fault)."""
    wait_until(lambda: route_count(bot, route) > before, timeout=timeout, what=f"a {route} request")


def about_pr(record: DeliveryRecord, num: int) -> bool:
    """A delivery about PR `num`: its discussion, or its `refs/pr/<num>` ref (opening a PR
    fires both, and the receiver takes them for one event)."""
    if record.payload.get("discussion", {}).get("num") == num:
        return True
    refs = record.payload.get("updatedRefs") or []
    return any(ref.get("ref") == f"refs/pr/{num}" for ref in refs)


def records_for(bot: Bot, num: int) -> list[DeliveryRecord]:
    """The emulator's delivery log (every attempt) for the deliveries about PR `num`."""
    return [r for r in bot.stack.hub.deliveries() if about_pr(r, num)]


def kill_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Signal a child's whole process group (a worker and its pool, as a container stop or an
    OOM kill of the machine would)."""
    os.killpg(process.pid, sig)


def kill_worker(bot: Bot, index: int = -1) -> subprocess.Popen[bytes]:
    """SIGKILL a worker's process group and reap it; returns the dead process."""
    worker = bot.stack.workers[index]
    kill_group(worker, signal.SIGKILL)
    worker.wait(timeout=10)
    return worker


def live_workers(bot: Bot) -> list[subprocess.Popen[bytes]]:
    return [worker for worker in bot.stack.workers if worker.poll() is None]


def ensure_one_worker(bot: Bot) -> None:
    """Leave the stack with exactly one live worker for the next test."""
    live = live_workers(bot)
    for extra in live[:-1]:
        kill_group(extra, signal.SIGCONT)
        kill_group(extra, signal.SIGTERM)
        extra.wait(timeout=30)
    if not live:
        bot.stack.start_worker()


def pool_children(pid: int) -> list[int]:
    """The worker's pool processes (Linux: /proc/<pid>/task/<tid>/children)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text()
        children.extend(int(child) for child in text.split())
    return children


def assert_one_report(bot: Bot, num: int, head: str) -> None:
    """The end-state invariant: exactly one report comment on the PR, for its latest head."""
    comments = bot.bot_comments(num)
    assert len(comments) == 1, [c.content[:200] for c in comments]
    assert f"evalbot:head={head}" in comments[0].content


class Stopwatch:
    def __init__(self) -> None:
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started


#: Set to a file path to collect the measured figures (JSON lines) for docs/reliability.md.
FIGURES_ENV = "EVALBOT_FAULT_FIGURES"


@pytest.fixture
def record_figure() -> Callable[[str, float], None]:
    """Record a measured figure (seconds, counts) when `EVALBOT_FAULT_FIGURES` names a file."""
    path = os.environ.get(FIGURES_ENV)

    def record(name: str, value: float) -> None:
        if path:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"figure": name, "value": round(value, 3)}) + "\n")

    return record


@pytest.fixture(scope="module")
def jwks() -> Iterator[JwksServer]:
    """An issuer's JWKS endpoint on 127.0.0.1, for the modules that trust it."""
    with running_jwks_server() as server:
        yield server


def signed_pr(bot: Bot, signer: LocalIssuer, value: float) -> tuple[int, str]:
    """Open a PR adding one HLE entry signed by `signer`; returns its number and head."""
    entry = hle_entry(value)
    token = signer.token_for(entry, 0, model_repo=MODEL, benchmarks=SAMPLE_BENCHMARKS)
    return open_pr(bot, {HLE_PATH: entry + f"  verify_token: {token}\n"})


def run_reconciliation_once(bot: Bot) -> None:
    """Send `evalbot.reconcile` once, as `evalbot beat` does every interval."""
    app = create_celery_app(Settings.from_env(bot.stack.environment()))
    try:
        app.send_task(RECONCILE_TASK)
    finally:
        app.close()
