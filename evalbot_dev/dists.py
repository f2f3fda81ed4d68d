"""Build evalbot's sdist and wheel from a checkout, as a release would, without touching it.

The tree is copied first (without the venv, git and caches), so a build leaves no `build/` or
`*.egg-info` in the checkout and parallel runs do not share one. The build calls setuptools'
PEP 517 hooks with the interpreter running this module: the build backend is the pinned one of
requirements/build.txt, and nothing is downloaded. `make release` (evalbot_dev.release) builds
with it; so do the wheel's tests.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
_SKIPPED = (
    ".git",
    ".venv",
    ".uv",
    "__pycache__",
    "build",
    "dist",
    "*.egg-info",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".import_linter_cache",
    "var",
)
_HOOK = (
    "import sys; from setuptools import build_meta as b; "
    "print(getattr(b, sys.argv[1])(sys.argv[2]))"
)


class BuildError(Exception):
    """The build failed, or the sdist's wheel differs from the checkout's."""


def _hook(source: Path, hook: str, out: Path) -> Path:
    done = subprocess.run(  # noqa: S603 - our own interpreter, a fixed hook
        [sys.executable, "-c", _HOOK, hook, str(out)],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise BuildError(f"{hook} failed in {source}:\n{done.stdout}\n{done.stderr}")
    return out / done.stdout.strip().splitlines()[-1]


def build(out: Path, root: Path = REPO_ROOT) -> tuple[Path, Path]:
    """The sdist and the wheel of the checkout at `root`, written into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="evalbot-build-") as work:
        source = Path(work) / "src"
        shutil.copytree(root, source, ignore=shutil.ignore_patterns(*_SKIPPED))
        sdist = _hook(source, "build_sdist", out)
        wheel = _hook(source, "build_wheel", out)
    return sdist, wheel


def contents(wheel: Path) -> dict[str, str]:
    """Each file of the wheel (but its RECORD) and the SHA-256 of its bytes."""
    with zipfile.ZipFile(wheel) as archive:
        return {
            name: hashlib.sha256(archive.read(name)).hexdigest()
            for name in archive.namelist()
            if not name.endswith(".dist-info/RECORD")
        }


def wheel_from_sdist(sdist: Path, out: Path) -> Path:
    """The wheel a user's `pip install evalbot-X.tar.gz` would build."""
    with tempfile.TemporaryDirectory(prefix="evalbot-sdist-") as work:
        with tarfile.open(sdist) as archive:
            archive.extractall(work, filter="data")
        (source,) = Path(work).iterdir()
        return _hook(source, "build_wheel", out)


def check_sdist(sdist: Path, wheel: Path) -> None:
    """Raise `BuildError` naming the files the sdist's wheel lacks, adds or changes."""
    with tempfile.TemporaryDirectory(prefix="evalbot-sdist-wheel-") as work:
        rebuilt = contents(wheel_from_sdist(sdist, Path(work)))
    direct = contents(wheel)
    differing = sorted(
        name for name in direct.keys() | rebuilt.keys() if direct.get(name) != rebuilt.get(name)
    )
    if differing:
        raise BuildError(
            f"the wheel built from {sdist.name} differs from the checkout's in "
            f"{len(differing)} file(s): {', '.join(differing[:10])}"
        )
