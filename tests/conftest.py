"""Suite-wide guards: no network beyond loopback, and shared fixtures for real servers."""

from __future__ import annotations

import atexit
import ipaddress
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The user's caches and Hub settings are not the tests': evalbot's cache (XDG_CACHE_HOME) and
# huggingface_hub's (HF_HOME) live in a folder of this run, inherited by every process a test
# starts, and set before anything reads them (huggingface_hub reads them on import).
_CACHES = Path(tempfile.mkdtemp(prefix="evalbot-test-caches-"))
atexit.register(shutil.rmtree, _CACHES, ignore_errors=True)
os.environ["XDG_CACHE_HOME"] = str(_CACHES / "xdg")
os.environ["HF_HOME"] = str(_CACHES / "huggingface")
for _name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HUB_OFFLINE", "HF_TOKEN"):
    os.environ.pop(_name, None)

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from evalbot_dev.devstack.redis import RedisServer  # noqa: E402

# Speed is measured in bench/, never asserted in tests: Hypothesis's two wall-clock checks (an
# example's deadline, slow input generation) fail a property test when other processes share
# the cores (the suite runs on two workers beside its servers), whatever the code does. The
# examples and their assertions are the same; a test's own @settings still win.
settings.register_profile("evalbot", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("evalbot")
#: pytest-timeout's guard for a property test (pyproject's 120 s is for the others): its run
#: is hundreds of examples, each slower on a busy machine; a hang is still caught.
PROPERTY_TEST_TIMEOUT_S = 600

REPO_ROOT = Path(__file__).resolve().parent.parent
#: Real public files (verbatim copies, provenance in
#: tests/samples/real-world/README.md), inside the repository so that a clone anywhere runs the
#: whole suite.
REAL_WORLD = REPO_ROOT / "tests" / "samples" / "real-world"


class NetworkBlocked(RuntimeError):
    """A test tried to reach a non-loopback address."""


def _is_loopback(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        host = address[0]
    else:
        return True  # AF_UNIX paths and the like never leave the machine
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost would need DNS: not allowed


@pytest.fixture(autouse=True)
def _block_non_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if not _is_loopback(address):
            raise NetworkBlocked(f"tests may only reach loopback, not {address!r}")
        real_connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        if not _is_loopback(address):
            raise NetworkBlocked(f"tests may only reach loopback, not {address!r}")
        return real_connect_ex(self, address)

    real_getaddrinfo = socket.getaddrinfo

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and not _is_loopback((name,)):
            raise NetworkBlocked(f"tests may only resolve loopback names, not {name!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A fresh redis-server for one test (AOF on, so restart tests see what production sees)."""
    server = RedisServer(directory=tmp_path / "redis", appendonly=True).start()
    try:
        yield server
    finally:
        server.stop(kill=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        test = getattr(item, "obj", None)
        if getattr(test, "is_hypothesis_test", False) and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(PROPERTY_TEST_TIMEOUT_S))
