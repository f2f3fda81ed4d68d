"""`LocalStack`: Redis, the Hub emulator, the receiver and Celery workers, really started.

The receiver (`evalbot serve`) and each worker (`evalbot worker`) run as child processes with
the same environment production uses (`docs/operating.md`), so what the demo shows and the
end-to-end tests check is the deployed code path: webhook -> receiver -> Redis -> worker ->
Hub comment. The emulator runs in this process, so tests can read its state directly.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import httpx2
import yaml

from evalbot_dev.devstack.environment import inherited_environment
from evalbot_dev.devstack.listening import ServerAddress
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.delivery import DeliverySettings
from evalbot_dev.emulator.server import EmulatorServer
from evalbot_dev.emulator.state import HubState

#: Webhook delivery tuned for a local stack: quick retries, several senders (the Hub's own
#: pacing is undocumented; see docs/hub-emulator.md).
LOCAL_DELIVERY = DeliverySettings(max_attempts=6, backoff_s=0.2, timeout_s=10.0, workers=4)


@dataclass
class StackOptions:
    """How to run the stack. `bot_token` must be a token the emulator state knows."""

    bot_token: str
    bot_name: str = "evalbot"
    watched: Sequence[Mapping[str, str]] = ()  # webhook scope: [{"type": "user", "name": ...}]
    issuers: Sequence[Mapping[str, Any]] = ()  # written to `issuers:` of config/bot.yaml
    maintainers: Sequence[str] = ()  # written to config/bot.yaml
    watched_repos: Sequence[str] = ()  # written to config/bot.yaml, for reconciliation
    bot_config: Mapping[str, Any] = field(default_factory=dict)  # more keys for config/bot.yaml
    beat: bool = False  # run `evalbot beat` (reconciliation every `reconcile.interval_s`)
    web: bool = False  # run `evalbot web` (the pages of docs/web.md) at `LocalStack.web_url`
    workers: int = 1  # worker processes
    concurrency: int = 1  # Celery pool size per worker process
    redis_url: str | None = None  # use this Redis instead of starting one
    env: Mapping[str, str] = field(default_factory=dict)  # extra environment for children
    #: Extra environment for the receiver only, applied after `env`: e.g. a `REDIS_URL` through
    #: a fault-injecting proxy the workers must not use, or a second webhook secret.
    receiver_env: Mapping[str, str] = field(default_factory=dict)
    delivery: DeliverySettings = field(default_factory=lambda: LOCAL_DELIVERY)


class LocalStack:
    """`with LocalStack(state, work_dir, options) as stack:` starts it all, and stops it on exit."""

    def __init__(self, state: HubState, work_dir: Path, options: StackOptions) -> None:
        self.work_dir = work_dir
        self.options = options
        self.secret = secrets.token_urlsafe(24)
        self.hub = EmulatorServer(state, delivery=options.delivery)
        self.redis: RedisServer | None = None
        self.redis_url = options.redis_url or ""
        # Bound on first use, before the child starts, and inherited by it: no port race
        # (evalbot_dev/devstack/listening.py).
        self.receiver_address = ServerAddress()
        self.receiver: subprocess.Popen[bytes] | None = None
        self.receiver_env: dict[str, str] = dict(options.receiver_env)
        self.workers: list[subprocess.Popen[bytes]] = []
        self.beat: subprocess.Popen[bytes] | None = None
        self.web_address = ServerAddress()
        self.web: subprocess.Popen[bytes] | None = None
        self._logs: list[IO[bytes]] = []

    # -- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> LocalStack:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        if not self.redis_url:
            self.redis = RedisServer(directory=self.work_dir / "redis", appendonly=True).start()
            self.redis_url = self.redis.url
        self.hub.start()
        self._write_config()
        # Every process started before any is waited for: their start-ups (imports, mostly)
        # overlap. Their sockets are bound already, so none misses a request made early.
        self._spawn_receiver()
        for _ in range(self.options.workers):
            self.start_worker()
        if self.options.beat:
            self.beat = self._spawn(["beat"], "beat")
        if self.options.web:
            self.web = self._spawn(["web"], "web", address=self.web_address)
        self._wait_receiver()
        if self.options.web:
            self._wait_web()
        self.hub.state.add_webhook(
            owner=self.options.bot_name,
            url=f"{self.receiver_url}/webhooks/hub",
            watched=[dict(item) for item in self.options.watched],
            domains=["repo", "discussion"],
            secret=self.secret,
        )

    def stop(self) -> None:
        if self.web is not None:
            _terminate(self.web)
            self.web = None
        if self.beat is not None:
            _terminate(self.beat)
            self.beat = None
        for worker in self.workers:
            _terminate(worker)
        self.workers.clear()
        if self.receiver is not None:
            _terminate(self.receiver)
            self.receiver = None
        self.hub.stop()
        if self.redis is not None:
            self.redis.stop(kill=True)
            self.redis = None
        self.receiver_address.close()
        self.web_address.close()
        for handle in self._logs:
            handle.close()
        self._logs.clear()

    # -- processes -------------------------------------------------------------------------

    @property
    def receiver_port(self) -> int:
        return self.receiver_address.port

    @property
    def receiver_url(self) -> str:
        return self.receiver_address.url

    @property
    def config_dir(self) -> Path:
        return self.work_dir / "config"

    def environment(self) -> dict[str, str]:
        """The children's environment: the production variables, pointed at this stack."""
        env = inherited_environment()
        env.update(
            {
                "HF_ENDPOINT": self.hub.url,
                "HF_TOKEN": self.options.bot_token,
                "HF_HUB_DISABLE_TELEMETRY": "1",
                "HF_HOME": str(self.work_dir / "hf-home"),
                "REDIS_URL": self.redis_url,
                "EVALBOT_WEBHOOK_SECRET": self.secret,
                "EVALBOT_BOT_NAME": self.options.bot_name,
                "EVALBOT_CONFIG_DIR": str(self.config_dir),
                "EVALBOT_LOG_LEVEL": "WARNING",
            }
        )
        env.update(self.options.env)
        return env

    def receiver_environment(self) -> dict[str, str]:
        """The receiver's environment: the children's, then its own `receiver_env`."""
        return {**self.environment(), **self.receiver_env}

    def start_receiver(self) -> None:
        self._spawn_receiver()
        self._wait_receiver()

    def _spawn_receiver(self) -> None:
        # With the web pages on, the receiver forwards them, as on a Space (docs/web.md).
        pages = ["--web-upstream", self.web_url] if self.options.web else []
        self.receiver = self._spawn(
            ["serve", *pages],
            "receiver",
            env=self.receiver_environment(),
            address=self.receiver_address,
        )

    def _wait_receiver(self) -> None:
        wait_until(
            lambda: httpx2.get(f"{self.receiver_url}/readyz", timeout=1).status_code == 200,
            timeout=30,
            what="the receiver to answer /readyz",
            process=self.receiver,
            log=self.work_dir / "receiver.log",
        )

    @property
    def web_port(self) -> int:
        return self.web_address.port

    @property
    def web_url(self) -> str:
        return self.web_address.url

    def _wait_web(self) -> None:
        wait_until(
            lambda: httpx2.get(f"{self.web_url}/web/healthz", timeout=1).status_code == 200,
            timeout=30,
            what="the web pages to answer /web/healthz",
            process=self.web,
            log=self.work_dir / "web.log",
        )

    def restart_receiver(self, receiver_env: Mapping[str, str] | None = None) -> None:
        """Stop the receiver and start it again on the same port, as a deploy does (say, to
        change its webhook secrets); `receiver_env`, when given, replaces its own environment."""
        if receiver_env is not None:
            self.receiver_env = dict(receiver_env)
        if self.receiver is not None:
            _terminate(self.receiver)
            self.receiver = None
        self.start_receiver()

    def start_worker(self, *, module: str = "bot") -> subprocess.Popen[bytes]:
        """Start one more `evalbot worker`; `module` is what `python -m` runs with the worker's
        arguments (tests pass a wrapper that reconfigures the Celery app, see tests/faults)."""
        index = len(self.workers)
        command = [
            "worker",
            "--concurrency",
            str(self.options.concurrency),
            "--hostname",
            f"worker{index}-{os.getpid()}@%h",
        ]
        worker = self._spawn(command, f"worker{index}", module=module)
        self.workers.append(worker)
        return worker

    def _spawn(
        self,
        arguments: list[str],
        name: str,
        *,
        env: Mapping[str, str] | None = None,
        module: str = "bot",
        address: ServerAddress | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start `python -m module *arguments`; a server gets `address`'s socket (`--fd`)."""
        listen, pass_fds = address.spawn_arguments() if address is not None else ([], ())
        log = (self.work_dir / f"{name}.log").open("ab")
        self._logs.append(log)
        try:
            return subprocess.Popen(  # noqa: S603 - our own interpreter and module, fixed argv
                [sys.executable, "-m", module, *arguments, *listen],
                env=dict(env) if env is not None else self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=pass_fds,
                start_new_session=True,  # so a stop reaches the worker's pool children too
            )
        finally:
            if address is not None:
                address.close()  # the child has its own copy; when it exits, nothing listens

    def logs(self) -> str:
        """Everything the children wrote, for a failing test's report."""
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-6000:]}"
            for path in sorted(self.work_dir.glob("*.log"))
        )

    def _write_config(self) -> None:
        self.config_dir.mkdir(parents=True, exist_ok=True)
        bot = {
            "maintainers": list(self.options.maintainers),
            "watched_repos": list(self.options.watched_repos),
            "issuers": [dict(issuer) for issuer in self.options.issuers],
            **self.options.bot_config,
        }
        (self.config_dir / "bot.yaml").write_text(yaml.safe_dump(bot))


def _terminate(process: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """SIGTERM the child's whole process group (a worker's pool too), then SIGKILL if stuck."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=timeout)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        process.wait(timeout=timeout)
