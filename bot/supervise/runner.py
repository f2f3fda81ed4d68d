"""Start the planned children, watch them, stop them in order: the supervisor's I/O half.

Each child runs in its own session (process group), so the supervisor can take down whatever
a child left behind (Celery's pool processes) with one `killpg`, and so a terminal's Ctrl-C
reaches the supervisor only, which then stops the children in order. Signals and child exits
wake the loop through `signal.set_wakeup_fd`, so it reacts at once and polls nothing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import socket
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import FrameType

from bot.sockets import listening_socket
from bot.supervise import texts
from bot.supervise.plan import Bound, ChildSpec, EmbeddedRedis, Listener, Plan

log = logging.getLogger("bot.supervise")

#: Exit status when a child died on its own (the platform should restart the container).
CHILD_DIED_STATUS = 1


@dataclass
class Child:
    spec: ChildSpec
    process: subprocess.Popen[bytes]

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def pid(self) -> int:
        return self.process.pid


def start_child(spec: ChildSpec) -> Child:
    # argv comes from plan.py: fixed commands, never user input.
    process = subprocess.Popen(  # noqa: S603
        spec.argv, env=dict(spec.env), start_new_session=True, pass_fds=spec.pass_fds
    )
    log.info(texts.STARTED.format(name=spec.name, pid=process.pid, command=spec.command_line()))
    return Child(spec, process)


class ListenError(RuntimeError):
    """A port the supervisor must serve on cannot be bound (in use, or a bad address)."""


def open_listener(listener: Listener) -> socket.socket:
    try:
        return listening_socket(listener.port, listener.host)
    except OSError as error:
        template = texts.CANNOT_LISTEN if listener.variable else texts.CANNOT_LISTEN_INTERNAL
        raise ListenError(
            template.format(
                host=listener.host, port=listener.port, variable=listener.variable, error=error
            )
        ) from error


def inherited_listener(fd: int) -> socket.socket:
    """`EVALBOT_LISTEN_FD`: must be a listening TCP socket, checked before anything starts."""
    try:
        sock = socket.socket(fileno=fd)
    except OSError as error:
        raise ListenError(texts.BAD_LISTEN_FD.format(fd=fd, error=error)) from error
    if sock.type != socket.SOCK_STREAM or not sock.getsockopt(
        socket.SOL_SOCKET, socket.SO_ACCEPTCONN
    ):
        sock.detach()  # not ours to close
        raise ListenError(texts.BAD_LISTEN_FD.format(fd=fd, error="not a listening TCP socket"))
    return sock


def _bound(sock: socket.socket) -> Bound:
    return Bound(fd=sock.fileno(), port=int(sock.getsockname()[1]))


def redis_answers(port: int) -> bool:
    """One PING over a raw socket: the supervisor needs no Redis client for it."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class Supervisor:
    plan: Plan
    redis: Child | None = None
    bot_children: list[Child] = field(default_factory=list)
    _stop_signal: int | None = None
    _wakeup_read: int = -1

    def run(self) -> int:
        """Start everything, wait for a signal or a death, stop everything; the exit status."""
        self._install_signal_handlers()
        status = 0
        sockets: list[socket.socket] = []
        try:
            # Bound before anything starts: a port in use stops the supervisor here, and
            # the children serve on these sockets (`--fd`), so nothing can take them meanwhile.
            public, web = self._open_listeners(sockets)
            if self.plan.redis is not None and not self._start_redis(self.plan.redis):
                status = CHILD_DIED_STATUS
            else:
                if self._stop_signal is None:  # a SIGTERM while Redis started: start no more
                    specs = self.plan.bot_children(public, web)
                    self.bot_children = [start_child(spec) for spec in specs]
                # The children hold their copies: a server that dies leaves nothing listening.
                _close_all(sockets)
                status = self._watch()
        except ListenError as error:
            log.error(str(error))
            status = CHILD_DIED_STATUS
        finally:
            _close_all(sockets)
            self._stop_all()
        log.info(texts.STOPPED.format(status=status))
        return status

    def _open_listeners(self, sockets: list[socket.socket]) -> tuple[Bound, Bound | None]:
        """The receiver's public socket (bound, or inherited) and the web pages' one; each is
        added to `sockets` as soon as it is open, for the caller to close."""
        if self.plan.public_fd is not None:
            sockets.append(inherited_listener(self.plan.public_fd))
        else:
            sockets.append(open_listener(self.plan.public))
        public = _bound(sockets[-1])
        log.info(texts.LISTENING.format(name="receiver", port=public.port))
        web: Bound | None = None
        if self.plan.web is not None:
            sockets.append(open_listener(self.plan.web))
            web = _bound(sockets[-1])
            log.info(texts.LISTENING.format(name="web", port=web.port))
        return public, web

    def _start_redis(self, embedded: EmbeddedRedis) -> bool:
        embedded.directory.mkdir(parents=True, exist_ok=True)
        log.info(texts.EMBEDDED_REDIS.format(port=embedded.port, directory=embedded.directory))
        self.redis = start_child(embedded.spec)
        deadline = time.monotonic() + self.plan.redis_start_timeout_s
        while not redis_answers(embedded.port):
            dead = self._first_dead([self.redis])
            if dead is not None:
                self._report_death(dead)
                return False
            if self._stop_signal is not None:
                return True  # run() starts nothing more; _watch reports the signal
            if time.monotonic() >= deadline:
                log.error(texts.REDIS_NOT_READY.format(seconds=self.plan.redis_start_timeout_s))
                return False
            self._wait_for_wakeup(0.05)
        return True

    def _watch(self) -> int:
        everyone = [*([self.redis] if self.redis else []), *self.bot_children]
        while True:
            if self._stop_signal is not None:
                log.info(
                    texts.SIGNAL_RECEIVED.format(signal=signal.Signals(self._stop_signal).name)
                )
                return 0
            dead = self._first_dead(everyone)
            if dead is not None:
                self._report_death(dead)
                return CHILD_DIED_STATUS
            self._wait_for_wakeup(1.0)

    def _stop_all(self) -> None:
        """Bot processes first (SIGTERM: uvicorn drains, Celery warm-shuts down), Redis last."""
        _terminate(self.bot_children, self.plan.shutdown_timeout_s)
        if self.redis is not None:
            _terminate([self.redis], self.plan.shutdown_timeout_s)

    @staticmethod
    def _first_dead(children: Iterable[Child]) -> Child | None:
        return next((child for child in children if child.process.poll() is not None), None)

    @staticmethod
    def _report_death(child: Child) -> None:
        log.error(
            texts.CHILD_DIED.format(name=child.name, pid=child.pid, status=child.process.returncode)
        )

    def _install_signal_handlers(self) -> None:
        read_end, write_end = os.pipe()
        os.set_blocking(read_end, False)
        os.set_blocking(write_end, False)
        self._wakeup_read = read_end
        signal.set_wakeup_fd(write_end)

        def request_stop(signum: int, _frame: FrameType | None) -> None:
            if self._stop_signal is None:
                self._stop_signal = signum

        signal.signal(signal.SIGTERM, request_stop)
        signal.signal(signal.SIGINT, request_stop)
        # A handler (even one doing nothing) makes SIGCHLD write to the wakeup fd.
        signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)

    def _wait_for_wakeup(self, timeout: float) -> None:
        readable, _, _ = select.select([self._wakeup_read], [], [], timeout)
        if readable:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wakeup_read, 4096)


def _close_all(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        sock.close()
    sockets.clear()


def _terminate(children: list[Child], timeout: float) -> None:
    """SIGTERM every live child, wait up to `timeout` s in total, SIGKILL what is left, then
    kill each child's process group so nothing it started outlives it."""
    alive = [child for child in children if child.process.poll() is None]
    if alive:
        log.info(texts.STOPPING.format(names=", ".join(child.name for child in alive)))
    for child in alive:
        _signal_child(child, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for child in alive:
        try:
            child.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log.warning(texts.KILLING.format(name=child.name, pid=child.pid, seconds=timeout))
            _signal_child(child, signal.SIGKILL)
            child.process.wait()
    for child in children:
        child.process.poll()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)


def _signal_child(child: Child, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        child.process.send_signal(signum)
