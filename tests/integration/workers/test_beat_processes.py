"""The two ways to run beat, as real processes: `evalbot beat` next to a worker, and
`evalbot worker --beat`. Either way the reconcile task is sent every interval and a worker runs
it (here with nothing to reconcile: no watched repo, no verdict yet)."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from tests.support.processes import ChildProcess, bot_account_hub, bot_environment

pytestmark = pytest.mark.integration


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as resources:
        yield resources


def completed_runs(redis_server: RedisServer) -> int:
    client = redis_server.client()
    try:
        return int(client.hget("evalbot:stats", "reconcile-run:completed") or 0)
    finally:
        client.close()


def start(command: list[str], env: dict[str, str], log: Path) -> ChildProcess:
    child = ChildProcess([sys.executable, "-m", "bot", *command], env, log)
    child.spawn()
    return child


@pytest.mark.parametrize("embedded", [False, True], ids=["evalbot-beat", "worker--beat"])
def test_beat_sends_reconcile_runs_that_a_worker_runs(
    embedded: bool, redis_server: RedisServer, tmp_path: Path, stack: ExitStack
) -> None:
    (tmp_path / "config").mkdir()
    # a run every second, no watched repos
    (tmp_path / "config" / "bot.yaml").write_text("reconcile:\n  interval_s: 1\n")
    hub = stack.enter_context(bot_account_hub())  # the worker asks who its token belongs to
    env = bot_environment(
        redis_server.url,
        HF_ENDPOINT=hub.url,
        EVALBOT_CONFIG_DIR=str(tmp_path / "config"),
        EVALBOT_LOG_LEVEL="WARNING",
    )
    worker_command = ["worker", "--pool", "solo", "--hostname", f"w-{embedded}@%h"]
    children = [start([*worker_command, *(["--beat"] if embedded else [])], env, tmp_path / "w")]
    if not embedded:
        children.append(start(["beat"], env, tmp_path / "b"))
    try:
        wait_until(
            lambda: completed_runs(redis_server) >= 2,
            timeout=40,
            what="two reconciliation runs",
        )
    except AssertionError as error:
        logs = "\n".join(child.output()[-3000:] for child in children)
        raise AssertionError(f"{error}\n{logs}") from error
    finally:
        for child in children:
            child.stop(signal.SIGTERM)
