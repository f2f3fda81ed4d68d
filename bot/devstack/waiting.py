"""Polling with a deadline: how tests wait for work to happen, never with a bare sleep."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class DeadlineExceeded(AssertionError):
    """Raised when the awaited condition did not hold before the deadline."""


def wait_until(
    probe: Callable[[], T | None],
    *,
    timeout: float = 10.0,
    interval: float = 0.01,
    what: str = "condition",
) -> T:
    """Call `probe` until it returns something truthy, and return that; fail after `timeout` s.

    Exceptions from `probe` count as "not yet" (a server that is still starting refuses
    connections); the last one is chained onto the failure so the cause is visible.
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
        if time.monotonic() >= deadline:
            raise DeadlineExceeded(f"{what} not reached within {timeout}s") from last_error
        time.sleep(interval)


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
