"""The container shim: `python -m deploy.imagecheck.launch SPEC.json`, run as root.

It does what a container runtime does for one container, with the kernel's own primitives
(through libc, since Python 3.11 has no `os.unshare`/`os.setns`): join the scenario's network
namespace, unshare mount, UTS, IPC and PID namespaces, set the hostname, then fork the
container's PID 1, which mounts its root (an overlay: the image read-only plus a writable
layer of its own), /proc, /sys, /dev and the volumes, chroots, drops to the image's user and
execs the entrypoint. Every mount lives in the container's private mount namespace, so the
kernel removes them all when its last process exits: nothing can leak onto the host.

The shim stays as the parent (like containerd's shim): it forwards the signals it gets to
PID 1 and exits with PID 1's status (128 + signal when it was killed), so `docker stop`
semantics are `os.kill(init_pid, SIGTERM)`, then SIGKILL after the grace period.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import signal
import socket
import sys
import traceback
from pathlib import Path
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {source} on {target}",
    )


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def setns(path: str, nstype: int) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        _check(_libc.setns(fd, nstype), f"setns {path}")
    finally:
        os.close(fd)


def main(spec_path: str) -> int:
    spec: dict[str, Any] = json.loads(Path(spec_path).read_text())
    if spec.get("netns"):
        setns(f"/run/netns/{spec['netns']}", CLONE_NEWNET)
    unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    socket.sethostname(spec["hostname"])
    # Signals stay blocked across the fork, so one that arrives before the handlers are in
    # place is forwarded, not lost (nor fatal to the shim, which would orphan the container).
    forwarded = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT}
    signal.pthread_sigmask(signal.SIG_BLOCK, forwarded)
    child = os.fork()
    if child == 0:  # PID 1 of the new PID namespace
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, forwarded)  # execve keeps the mask
            _become_container(spec)
        except BaseException:
            traceback.print_exc()
            os._exit(127)
    for number in forwarded:
        signal.signal(number, lambda received, _frame: os.kill(child, received))
    Path(spec["pidfile"]).write_text(str(child))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, forwarded)
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def _become_container(spec: dict[str, Any]) -> None:
    root = spec["root"]
    overlay = spec.get("overlay")
    if overlay:
        options = f"lowerdir={root},upperdir={overlay['upper']},workdir={overlay['work']}"
        mount("overlay", overlay["merged"], "overlay", 0, options)
        root = overlay["merged"]
    mount("proc", f"{root}/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount("sysfs", f"{root}/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    # The host's /dev, recursively (pts and shm included), in this namespace only.
    mount("/dev", f"{root}/dev", None, MS_BIND | MS_REC)
    for bind in spec.get("binds", []):
        target = Path(root + bind["target"])
        if Path(bind["source"]).is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch(exist_ok=True)
        mount(bind["source"], str(target), None, MS_BIND | MS_REC)
        if bind.get("read_only"):
            mount(None, str(target), None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC)
    os.chroot(root)
    os.chdir(spec["cwd"])
    os.setgroups(spec["groups"])
    os.setgid(spec["gid"])
    os.setuid(spec["uid"])
    argv: list[str] = spec["argv"]
    os.execvpe(argv[0], argv, spec["env"])  # noqa: S606 - the container's own command


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
