"""Network namespaces for the scenarios: created with iproute2, always deleted.

`entered(name)` moves the calling thread (and the threads and processes it starts from then
on) into the namespace, and back on exit: the Hub emulator then listens inside it, next to
the containers.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

from deploy.imagecheck.launch import CLONE_NEWNET, setns

PREFIX = "imagecheck-"


def create(name: str) -> None:
    subprocess.run(["ip", "netns", "add", name], check=True)  # noqa: S603,S607
    subprocess.run(  # noqa: S603
        ["ip", "netns", "exec", name, "ip", "link", "set", "lo", "up"],  # noqa: S607
        check=True,
    )


def delete(name: str) -> None:
    if name in ours():
        subprocess.run(["ip", "netns", "del", name], check=True)  # noqa: S603,S607


def ours() -> list[str]:
    listing = subprocess.run(
        ["ip", "netns", "list"],  # noqa: S607
        capture_output=True,
        text=True,
        check=True,
    )
    names = [line.split()[0] for line in listing.stdout.splitlines() if line.strip()]
    return [name for name in names if name.startswith(PREFIX)]


@contextmanager
def entered(name: str) -> Iterator[None]:
    original = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        setns(f"/run/netns/{name}", CLONE_NEWNET)
        try:
            yield
        finally:
            setns(f"/proc/self/fd/{original}", CLONE_NEWNET)
    finally:
        os.close(original)


@contextmanager
def scenario_namespace(name: str) -> Iterator[str]:
    """A fresh namespace `imagecheck-<name>` (loopback up), deleted on exit."""
    full = PREFIX + name
    delete(full)
    create(full)
    try:
        yield full
    finally:
        delete(full)
