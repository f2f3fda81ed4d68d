"""Containers of the built image: start, exec into, stop, as `docker run/exec/stop` do.

Each container is one `deploy.imagecheck.launch` shim (see there for the namespaces and
mounts). This module decides the container's process: the image's ENTRYPOINT + CMD (or the
service's command), its environment (the image's ENV, then the run's, then what Docker adds:
HOSTNAME, HOME), its user (the image's USER resolved in the image's /etc/passwd) and its own
/etc/hosts, /etc/hostname and /etc/resolv.conf, which Docker also bind-mounts per container.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from evalbot_dev.devstack.waiting import wait_until

#: Docker's PATH when the image sets none.
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True, slots=True)
class Credentials:
    uid: int
    gid: int
    groups: tuple[int, ...]
    home: str


def resolve_user(rootfs: Path, user: str) -> Credentials:
    """USER (`name`, `uid`, `name:group` or `uid:gid`) as Docker resolves it in the image."""
    passwd = [line.split(":") for line in (rootfs / "etc/passwd").read_text().splitlines()]
    groups = [line.split(":") for line in (rootfs / "etc/group").read_text().splitlines()]
    name, _, group = (user or "root").partition(":")
    entry = next((row for row in passwd if name in (row[0], row[2])), None)
    if entry is None:
        if not name.isdigit():
            raise ValueError(f"user {name!r} is not in the image's /etc/passwd")
        uid, gid, home, login = int(name), int(name), "/", ""
    else:
        uid, gid, home, login = int(entry[2]), int(entry[3]), entry[5], entry[0]
    if group:
        row = next((row for row in groups if group in (row[0], row[2])), None)
        gid = int(row[2]) if row else int(group)
    supplementary = sorted(
        {gid} | {int(row[2]) for row in groups if login and login in row[3].split(",")}
    )
    return Credentials(uid, gid, tuple(supplementary), home)


@dataclass
class ContainerSpec:
    """Everything the shim needs; `overlay=False` runs in the rootfs itself (a build step)."""

    name: str
    rootfs: Path
    argv: Sequence[str]
    env: Mapping[str, str]
    user: str
    cwd: str
    netns: str | None = None
    hostname: str = field(default_factory=lambda: secrets.token_hex(6))
    overlay: bool = True
    binds: Sequence[tuple[Path, str, bool]] = ()  # (host source, container target, read-only)
    extra_hosts: Mapping[str, str] = field(default_factory=dict)  # name -> address


class Container:
    """A started container; `state_dir` holds its writable layer, spec, pidfile and log."""

    def __init__(self, spec: ContainerSpec, state_dir: Path) -> None:
        self.spec = spec
        self.state_dir = state_dir
        self.credentials = resolve_user(spec.rootfs, spec.user)
        self.env = container_env(spec.env, spec.hostname, self.credentials.home)
        self.log_path = state_dir / "output.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.init_pid = 0
        self._log: IO[bytes] | None = None

    def start(self, *, stdout: int | IO[bytes] | None = None) -> Container:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        shim_spec = self._shim_spec()
        spec_path = self.state_dir / "spec.json"
        spec_path.write_text(json.dumps(shim_spec))
        if stdout is None:
            self._log = self.log_path.open("ab")
            stdout = self._log
        self.process = subprocess.Popen(  # noqa: S603 - our own shim, fixed argv
            [sys.executable, "-m", "deploy.imagecheck.launch", str(spec_path)],
            stdout=stdout,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=Path(__file__).resolve().parents[2],
        )
        pidfile = self.state_dir / "init.pid"
        wait_until(
            lambda: (pidfile.exists() and pidfile.read_text().strip()) or self.process_exited(),
            timeout=10,
            what=f"container {self.spec.name} to start",
        )
        if pidfile.exists() and pidfile.read_text().strip():
            self.init_pid = int(pidfile.read_text())
        return self

    def process_exited(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def wait(self, timeout: float) -> int:
        assert self.process is not None
        code = self.process.wait(timeout=timeout)
        self._close_log()
        return code

    def exec(self, argv: Sequence[str], timeout: float) -> subprocess.CompletedProcess[bytes]:
        """`docker exec`: run `argv` in the container's namespaces, root and env, as its user."""
        command = [
            "nsenter",
            f"--target={self.init_pid}",
            "--mount",
            "--uts",
            "--ipc",
            "--net",
            "--pid",
            "--root",
            "--wd",
            f"--setuid={self.credentials.uid}",
            f"--setgid={self.credentials.gid}",
            "--",
            "/usr/bin/env",
            "-i",
            *(f"{key}={value}" for key, value in self.env.items()),
            *argv,
        ]
        return subprocess.run(  # noqa: S603 - fixed argv
            command, capture_output=True, timeout=timeout, check=False
        )

    def stop(self, grace_s: float) -> tuple[int, float]:
        """`docker stop`: SIGTERM to PID 1, SIGKILL after `grace_s`; (exit code, seconds)."""
        assert self.process is not None
        started = time.monotonic()
        if self.process.poll() is None:
            os.kill(self.init_pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                os.kill(self.init_pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        self._close_log()
        return self.process.returncode, time.monotonic() - started

    def kill(self) -> None:
        """Last-resort cleanup: SIGKILL PID 1 (the kernel then ends its whole namespace)."""
        if self.process is not None and self.process.poll() is None:
            if self.init_pid:
                os.kill(self.init_pid, signal.SIGKILL)
            else:
                self.process.kill()
            self.process.wait(timeout=30)
        self._close_log()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def _shim_spec(self) -> dict[str, object]:
        spec = self.spec
        etc = self.state_dir / "etc"
        etc.mkdir(exist_ok=True)
        hosts = [
            "127.0.0.1\tlocalhost",
            "::1\tlocalhost ip6-localhost ip6-loopback",
            f"127.0.0.1\t{spec.hostname}",
            *(f"{address}\t{name}" for name, address in spec.extra_hosts.items()),
        ]
        (etc / "hosts").write_text("\n".join(hosts) + "\n")
        (etc / "hostname").write_text(spec.hostname + "\n")
        resolv = Path("/etc/resolv.conf")
        (etc / "resolv.conf").write_text(resolv.read_text() if resolv.exists() else "")
        binds = [
            {"source": str(etc / name), "target": f"/etc/{name}", "read_only": False}
            for name in ("hosts", "hostname", "resolv.conf")
        ]
        binds += [
            {"source": str(source), "target": target, "read_only": read_only}
            for source, target, read_only in spec.binds
        ]
        overlay = None
        if spec.overlay:
            layers = {name: self.state_dir / name for name in ("upper", "work", "merged")}
            for path in layers.values():
                path.mkdir(exist_ok=True)
            overlay = {name: str(path) for name, path in layers.items()}
        return {
            "root": str(spec.rootfs),
            "overlay": overlay,
            "netns": spec.netns,
            "hostname": spec.hostname,
            "pidfile": str(self.state_dir / "init.pid"),
            "binds": binds,
            "cwd": spec.cwd,
            "uid": self.credentials.uid,
            "gid": self.credentials.gid,
            "groups": list(self.credentials.groups),
            "env": self.env,
            "argv": list(spec.argv),
        }


def container_env(env: Mapping[str, str], hostname: str, home: str) -> dict[str, str]:
    """The process environment Docker gives a container: PATH and HOSTNAME first, the image's
    and the run's variables, and HOME from the user's passwd entry unless one was set."""
    result = {"PATH": DEFAULT_PATH, "HOSTNAME": hostname}
    result.update(env)
    result.setdefault("HOME", home or "/")
    return result


def processes_rooted_under(directory: Path) -> list[int]:
    """Host PIDs whose root directory lies under `directory`: what a stopped container must
    not leave behind."""
    found = []
    prefix = str(directory.resolve())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            root = os.readlink(entry / "root")
        except OSError:
            continue
        if root == prefix or root.startswith(prefix + "/"):
            found.append(int(entry.name))
    return found
