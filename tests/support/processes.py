"""Child processes the integration tests start: the receiver (`evalbot serve`) and Celery workers.

Each runs the real entry point with an environment built for the test, on 127.0.0.1, and is
stopped (and its output kept for failure messages) when the test ends.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from evalbot_dev.devstack.environment import inherited_environment
from evalbot_dev.devstack.listening import ServerAddress
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.server import EmulatorServer
from evalbot_dev.emulator.state import HubState
from tests.support.tuning import tuned

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
TEST_SECRET = "integration-webhook-secret"
#: The bot's account and token in `bot_environment`; `bot_account_hub` knows both.
BOT_NAME = "evalbot-ci"
BOT_TOKEN = "hf_integration_token"
#: Redis list where `tests.support.celery_recorder` appends the events its task received.
RECORDED_EVENTS = "evalbot:test:recorded"
#: Events on this repo block the recorder's task on their first attempt (a task to kill).
SLOW_REPO = "acme-labs/slow-task"


#: The tests' receivers give up on Redis after 0.5 s (production: 2 s), so a test of Redis
#: down gets its 503 at once (`tests.support.tuning`).
TEST_TUNING: Mapping[str, float] = {"bot.store.REDIS_TIMEOUT_S": 0.5}


def bot_environment(redis_url: str, **overrides: str) -> dict[str, str]:
    """A complete evalbot environment for a test (settings the receiver and workers read);
    other tuning than `TEST_TUNING` is passed as `**tuned({**TEST_TUNING, ...})`."""
    env = inherited_environment()
    env.update(
        {
            "HF_TOKEN": BOT_TOKEN,
            "HF_ENDPOINT": "http://127.0.0.1:9",
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "REDIS_URL": redis_url,
            "EVALBOT_WEBHOOK_SECRET": TEST_SECRET,
            "EVALBOT_BOT_NAME": BOT_NAME,
            "EVALBOT_BOT_USER_ID": "6640ffee00112233445566bb",
            **tuned(TEST_TUNING),
        }
    )
    env.update(overrides)
    return env


@contextmanager
def bot_account_hub() -> Iterator[EmulatorServer]:
    """An emulated Hub that knows only the bot's account and token: enough for the start-up
    check of `evalbot worker` (who the token belongs to); point `HF_ENDPOINT` at its `url`."""
    state = HubState()
    state.add_user(BOT_NAME, fullname="Evalbot CI")
    state.add_token(BOT_TOKEN, BOT_NAME, "fineGrained", ["repo.content.read", "discussion.write"])
    with EmulatorServer(state) as hub:
        yield hub


@dataclass
class ChildProcess:
    command: list[str]
    env: Mapping[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def spawn(self, address: ServerAddress | None = None) -> None:
        """Start the command; a server gets `address`'s listening socket (`--fd`)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        listen, pass_fds = address.spawn_arguments() if address is not None else ([], ())
        try:
            with self.log_path.open("wb") as log:
                self.process = subprocess.Popen(
                    [*self.command, *listen],
                    env=dict(self.env),
                    cwd=REPO_ROOT,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    pass_fds=pass_fds,
                )
        finally:
            if address is not None:
                address.close()  # the child has its own copy

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None


@dataclass
class ReceiverProcess(ChildProcess):
    #: Bound before the receiver starts, and inherited by it (evalbot_dev/devstack/listening.py).
    address: ServerAddress = field(default_factory=ServerAddress)

    @classmethod
    def create(cls, env: Mapping[str, str], log_dir: Path) -> ReceiverProcess:
        command = [sys.executable, "-m", "bot", "serve"]
        return cls(command=command, env=env, log_path=log_dir / "receiver.log")

    @property
    def port(self) -> int:
        return self.address.port

    @property
    def url(self) -> str:
        return self.address.url

    def stop(self, sig: int = signal.SIGTERM) -> None:
        super().stop(sig)
        self.address.close()  # if it never started

    def start(self) -> ReceiverProcess:
        self.spawn(self.address)

        def healthy() -> bool:
            return httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200

        wait_until(
            healthy,
            timeout=20,
            what="receiver /healthz",
            process=self.process,
            log=self.log_path,
        )
        return self


def celery_worker(env: Mapping[str, str], app: str, log_dir: Path, queue: str) -> ChildProcess:
    """`celery -A <app> worker` with the solo pool, as a real deployment would run it."""
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        app,
        "worker",
        "--pool=solo",
        "--concurrency=1",
        f"--queues={queue}",
        "--without-mingle",
        "--without-gossip",
        "--loglevel=INFO",
    ]
    return ChildProcess(command=command, env=env, log_path=log_dir / "worker.log")
