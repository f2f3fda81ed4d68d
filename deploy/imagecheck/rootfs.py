"""The stand-in for `python:3.11-slim`: a debootstrapped Debian 12 root, cached by version.

`python:3.11-slim` is debian:bookworm-slim plus CPython built from source in /usr/local, pip,
setuptools and wheel, and ca-certificates, netbase and tzdata. The stand-in is
`debootstrap --variant=minbase bookworm` plus Debian's own python3 (3.11, the image's minor
version), python3-pip (with Debian's setuptools and wheel), ca-certificates, netbase and
tzdata, a `python` symlink, and no `EXTERNALLY-MANAGED` marker (the official image has none,
so `pip install` as root just works). docs/deploy.md lists every difference.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

#: Bump when the recipe below changes: the cached base is rebuilt under the new key.
BASE_VERSION = "bookworm-minbase-py311-v1"
MIRROR = "http://deb.debian.org/debian"
PACKAGES = ("python3", "python3-pip", "ca-certificates", "netbase", "tzdata")
#: debian:bookworm-slim's suites (its debian.sources), so `apt-get update` sees the same.
SOURCES = f"""\
deb {MIRROR} bookworm main
deb {MIRROR} bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
"""
#: The environment python:3.11-slim's config sets (GPG_KEY, PYTHON_VERSION and
#: PYTHON_SHA256 left out: they describe its source build, which the stand-in does not have).
BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG": "C.UTF-8",
}
BASE_CMD = ("python3",)


def ensure_tool(binary: str, package: str) -> None:
    if shutil.which(binary) is None:
        subprocess.run(["apt-get", "update", "-qq"], check=True)  # noqa: S607
        subprocess.run(["apt-get", "install", "-y", "-qq", package], check=True)  # noqa: S603,S607


def ensure_base(cache: Path) -> tuple[Path, bool]:
    """The cached base root (built now when missing); and whether it was built now."""
    base = cache / f"base-{BASE_VERSION}"
    if (base / ".complete").exists():
        return base, False
    ensure_tool("debootstrap", "debootstrap")
    partial = cache / f"base-{BASE_VERSION}.partial"
    if partial.exists():
        shutil.rmtree(partial)
    cache.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    subprocess.run(  # noqa: S603
        [  # noqa: S607
            "debootstrap",
            "--variant=minbase",
            f"--include={','.join(PACKAGES)}",
            "bookworm",
            str(partial),
            MIRROR,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (partial / "etc/apt/sources.list").write_text(SOURCES)
    # Bring the suites' updates in (bookworm-slim is rebuilt with them), then leave no
    # package lists or archives behind, as the official images do.
    _chroot_sh(
        partial,
        "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -y -qq upgrade"
        " && apt-get clean && rm -rf /var/lib/apt/lists/*"
        " && ln -sf /usr/bin/python3 /usr/local/bin/python"
        " && rm -f /usr/lib/python3.11/EXTERNALLY-MANAGED",
    )
    (partial / ".complete").write_text(
        f"{BASE_VERSION} built in {time.monotonic() - started:.0f}s\n"
    )
    partial.rename(base)
    return base, True


def _chroot_sh(root: Path, script: str) -> None:
    """A shell script in `root` while the base is prepared (host network, /proc mounted in
    a private mount namespace, so the mount ends with the script whatever happens)."""
    subprocess.run(  # noqa: S603
        [  # noqa: S607
            "unshare",
            "--mount",
            "--propagation=private",
            "--",
            "sh",
            "-c",
            'mount -t proc proc "$1/proc" && exec chroot "$1" /bin/sh -c "$2"',
            "sh",
            str(root),
            script,
        ],
        check=True,
    )


def fresh_copy(base: Path, target: Path) -> None:
    """A copy of the base to build on (the base itself stays pristine for the next build)."""
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", str(base), str(target)], check=True)  # noqa: S603,S607
    (target / ".complete").unlink(missing_ok=True)


def disk_usage(path: Path) -> int:
    """Bytes used on disk by `path` (du -s, one file system)."""
    result = subprocess.run(  # noqa: S603
        ["du", "-sx", "--block-size=1", str(path)],  # noqa: S607
        check=True,
        capture_output=True,
        text=True,
    )
    return int(result.stdout.split()[0])
