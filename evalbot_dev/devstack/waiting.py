"""Polling with a deadline: how tests wait for work to happen, never with a bare sleep."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

T = TypeVar("T")


class DeadlineExceeded(AssertionError):
    """Raised when the awaited condition did not hold before the deadline."""


class ProcessExited(AssertionError):
    """Raised as soon as the process that was to bring the condition about has exited."""


class Pollable(Protocol):
    """What `wait_until` watches: a `subprocess.Popen` (None while it runs, else its status)."""

    def poll(self) -> int | None: ...


def wait_until(
    probe: Callable[[], T | None],
    *,
    timeout: float = 10.0,
    interval: float = 0.01,
    what: str = "condition",
    process: Pollable | None = None,
    log: Path | None = None,
) -> T:
    """Call `probe` until it returns something truthy, and return that; fail after `timeout` s.

    Exceptions from `probe` count as "not yet" (a server that is still starting refuses
    connections); the last one is chained onto the failure so the cause is visible.

    `process`: the child that is to make the condition true. Once it has exited the condition
    can no longer come, so the wait fails at once with `ProcessExited` (its status, and the
    end of `log` when given) instead of running out the whole deadline.
    """
    deadline = time.monotonic() + timeout
    last_error: BaseException | None = None
    while True:
        try:
            result = probe()
        except Exception as error:
            last_error = error
            result = None
        if result:
            return result
        status = process.poll() if process is not None else None
        if status is not None:
            raise ProcessExited(_exited(what, status, log)) from last_error
        if time.monotonic() >= deadline:
            raise DeadlineExceeded(f"{what} not reached within {timeout}s") from last_error
        time.sleep(interval)


def _exited(what: str, status: int, log: Path | None, tail: int = 4000) -> str:
    message = f"{what} not reached: the process exited with status {status}"
    if log is not None and log.exists():
        message += ":\n" + log.read_text(errors="replace")[-tail:]
    return message


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False
