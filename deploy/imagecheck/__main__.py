"""`python -m deploy.imagecheck [--cache DIR] [--clean]`: build the image and check it.

Needs root (debootstrap, namespaces, mounts) and the network to Debian's mirror and PyPI for
the build. Prints each build step and one PASS/FAIL line per check; exits 1 on any FAIL.
`--clean` only removes what an interrupted run may have left (network namespaces, processes
rooted in the cache, mounts under it, container layers). One run per cache at a time: a
second one (or `--clean`) started while a run holds the cache's lock exits 2 untouched.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from deploy.imagecheck import build, netns, rootfs, scenarios, uploadset
from deploy.imagecheck.container import processes_rooted_under
from deploy.imagecheck.report import Report, say

PROJECT = Path(__file__).resolve().parents[2]
DEFAULT_CACHE = Path("/work/cache/imagecheck")


def clean(cache: Path) -> None:
    """Idempotent: delete our namespaces, kill processes rooted in the cache (ours: only this
    tool starts processes there), unmount anything under it, drop container layers."""
    for name in netns.ours():
        netns.delete(name)
    if cache.exists():
        for pid in processes_rooted_under(cache):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        prefix = str(cache.resolve())
        mounts = [
            line.split()[4]
            for line in Path("/proc/self/mountinfo").read_text().splitlines()
            if line.split()[4] == prefix or line.split()[4].startswith(prefix + "/")
        ]
        for mount_point in sorted(mounts, key=len, reverse=True):
            subprocess.run(["umount", "-l", mount_point], check=False)  # noqa: S603,S607
        shutil.rmtree(cache / "runs", ignore_errors=True)


@contextlib.contextmanager
def exclusive(cache: Path) -> Iterator[bool]:
    """One run per cache at a time (yields False when another holds it): `clean` kills every
    process rooted in the cache and deletes every namespace of ours, which would wreck a run
    in progress."""
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def clean_uninterrupted(cache: Path) -> None:
    """`clean`, with SIGINT and SIGTERM held off: a second signal must not cut it short and
    leave namespaces or mounts behind."""
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        clean(cache)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.imagecheck", description=__doc__)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="base and image cache")
    parser.add_argument("--clean", action="store_true", help="only clean up, then exit")
    args = parser.parse_args(argv)
    cache: Path = args.cache.resolve()
    if os.geteuid() != 0:
        print("imagecheck: needs root (debootstrap, namespaces, mounts)", file=sys.stderr)
        return 2
    # A SIGTERM (a CI timeout) unwinds like Ctrl-C does, through every cleanup below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started in background
    with exclusive(cache) as alone:
        if not alone:
            print(
                f"imagecheck: another run holds {cache / '.lock'}; wait for it to end",
                file=sys.stderr,
            )
            return 2
        return _checked(cache, args.clean)


def _checked(cache: Path, clean_only: bool) -> int:
    clean_uninterrupted(cache)
    if clean_only:
        say(f"imagecheck: cleaned {cache}")
        return 0
    rootfs.ensure_tool("ip", "iproute2")
    rootfs.ensure_tool("nsenter", "util-linux")
    report = Report()
    started = time.monotonic()
    try:
        _run(cache, report)
    except Exception as error:  # a crash is a FAIL with its reason, after the cleanup below
        report.check("imagecheck", False, f"{type(error).__name__}: {error}")
    except (KeyboardInterrupt, SystemExit):
        clean_uninterrupted(cache)
        say("imagecheck: interrupted; namespaces, processes and mounts cleaned up")
        raise
    finally:
        clean_uninterrupted(cache)
    say(f"imagecheck: {time.monotonic() - started:.0f}s in all")
    return report.summary()


def _run(cache: Path, report: Report) -> None:
    started = time.monotonic()
    base, built_now = rootfs.ensure_base(cache)
    say(
        f"base {base.name}: {'built' if built_now else 'cached'} in"
        f" {time.monotonic() - started:.1f}s"
    )
    # The build context is what a Space receives: the files docs/deploy.md's upload snippet
    # selects from the checkout's tracked files, laid out as the Space repository holds them.
    upload = cache / "runs" / "upload"
    files = uploadset.read_upload_set(PROJECT)
    uploadset.lay_out(files, upload)
    report.check(
        "upload set",
        (upload / "Dockerfile").is_file(),
        f"{len(files)} files from {uploadset.DEPLOY_DOC}'s upload snippet"
        + ("" if (upload / "Dockerfile").is_file() else ": no Dockerfile among them"),
    )
    image_root = cache / "image" / "rootfs"
    rootfs.fresh_copy(base, image_root)
    context = build.BuildContext(upload)
    started = time.monotonic()
    try:
        config, steps = build.build(
            (upload / "Dockerfile").read_text(), context, image_root, cache / "runs" / "build", say
        )
    except (build.BuildError, FileNotFoundError) as error:
        report.check("build", False, str(error))
        return
    base_bytes = rootfs.disk_usage(base)
    image_bytes = rootfs.disk_usage(image_root)
    report.check(
        "build",
        True,
        f"{len(steps)} steps in {time.monotonic() - started:.0f}s, every RUN exit 0; image"
        f" {image_bytes / 1e6:.0f} MB, {(image_bytes - base_bytes) / 1e6:.0f} MB over the"
        f" {base_bytes / 1e6:.0f} MB base",
    )
    image = scenarios.Image(image_root, config, PROJECT, upload, cache / "runs")
    for name, check in (
        ("user", scenarios.check_user),
        ("compose", scenarios.check_compose),
        ("space", scenarios.check_space),
    ):
        say(f"== {name}")
        section = time.monotonic()
        try:
            check(image, report)
        except Exception as error:
            report.check(name, False, f"{type(error).__name__}: {error}")
        say(f"== {name}: {time.monotonic() - section:.0f}s")


if __name__ == "__main__":
    raise SystemExit(main())
