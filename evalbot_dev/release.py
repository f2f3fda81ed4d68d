"""`make release`: the sdist and wheel of this checkout, checked as users get them, their SHA-256
sums, and the changelog's Unreleased section turned into the release's.

1. The sdist and the wheel are built into `dist/` (`evalbot_dev.dists`: a copy of the tree, the
   pinned backend); the wheel built from the sdist must hold the same files.
2. `twine check --strict`: the metadata, and the README as PyPI renders it.
3. Each install in a fresh virtualenv, from its lock (`requirements/base.txt` for
   `pip install evalbot`, `requirements/server.txt` for `evalbot[server]`), the wheel on top
   with `--no-deps` (uv installs): `uv pip check`, every requirement of the install present
   (the extra's too), the user install without the server's libraries, and a command of each
   run from an empty folder.
4. `dist/SHA256SUMS`, in `sha256sum -c`'s format.
5. `CHANGELOG.md`: `## Unreleased` becomes `## VERSION - DATE`, under a fresh empty one. Last,
   so that a failed check leaves it as it was.

`python -m evalbot_dev.release [--dist DIR] [--changelog FILE | --no-changelog] [--venvs DIR]
[--date DATE]`; `make dist` is the recipe without its last step (a wheel to install, the
changelog left alone); `.ci/installed-smoke` runs it on a copy of the changelog and keeps the
two virtualenvs for `tests/installed`.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from evalbot_dev import dists

REPO_ROOT = Path(__file__).resolve().parent.parent
UV = REPO_ROOT / ".uv" / "bin" / "uv"
SUMS = "SHA256SUMS"
UNRELEASED = "## Unreleased"
#: What the user install must not hold (the server's engine and web stack).
NOT_IN_BASE = ("celery", "kombu", "redis", "uvicorn", "starlette")
SERVER_INSTALL = "pip install 'evalbot[server]'"
PIP_TIMEOUT_S = 900
COMMAND_TIMEOUT_S = 120


class ReleaseError(Exception):
    """A step of the recipe failed; the message says which and why."""


@dataclass(frozen=True)
class Install:
    """One way users install evalbot: its lock and the extras it asks for."""

    name: str
    lock: str
    extras: tuple[str, ...]


INSTALLS = (
    Install("base", "requirements/base.txt", ()),
    Install("server", "requirements/server.txt", ("server",)),
)


def project_version(root: Path = REPO_ROOT) -> str:
    """pyproject.toml's version, refused unless it is a release (no dev, pre or local part)."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    written = str(tomllib.loads(text)["project"]["version"])
    version = Version(written)
    if version.is_prerelease or version.is_devrelease or version.local:
        raise ReleaseError(f"pyproject.toml: version {written} is not a release version")
    return written


def cut_changelog(text: str, version: str, date: datetime.date) -> str:
    """The changelog with its Unreleased section titled `## VERSION - DATE` under a new, empty
    `## Unreleased`."""
    lines = text.splitlines(keepends=True)
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    found = [i for i in headings if lines[i].rstrip() == UNRELEASED]
    if not found:
        raise ReleaseError(f"CHANGELOG.md: no `{UNRELEASED}` section to release")
    released = [i for i in headings if re.match(rf"## v?{re.escape(version)}(\s|$)", lines[i])]
    if released:
        raise ReleaseError(f"CHANGELOG.md:{released[0] + 1}: {version} is already released")
    start = found[0]
    end = next((i for i in headings if i > start), len(lines))
    if not "".join(lines[start + 1 : end]).strip():
        raise ReleaseError(f"CHANGELOG.md:{start + 1}: the Unreleased section is empty")
    heading = f"## {version} - {date.isoformat()}\n"
    return "".join([*lines[:start], f"{UNRELEASED}\n\n", heading, *lines[start + 1 :]])


def sha256sums(files: Sequence[Path]) -> str:
    """`sha256sum`'s lines for `files` (by name, as they sit beside the sums file)."""
    return "".join(
        f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}\n"
        for path in sorted(files, key=lambda path: path.name)
    )


def _run(
    command: Sequence[str | Path], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - fixed argv (python, uv, twine), no shell
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT_S,
        check=False,
    )


def _must(done: subprocess.CompletedProcess[str], what: str) -> str:
    if done.returncode != 0:
        raise ReleaseError(f"{what} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def build(dist: Path, root: Path = REPO_ROOT) -> tuple[Path, Path]:
    """A fresh `dist`: the sdist and the wheel, the sdist's own wheel checked the same."""
    if dist.exists():
        shutil.rmtree(dist)
    try:
        sdist, wheel = dists.build(dist, root)
        dists.check_sdist(sdist, wheel)
    except dists.BuildError as error:
        raise ReleaseError(str(error)) from error
    return sdist, wheel


def twine_check(files: Sequence[Path]) -> None:
    """The metadata and the README's rendering as PyPI checks them (warnings are failures)."""
    _must(_run([sys.executable, "-m", "twine", "check", "--strict", *files]), "twine check")


def _clean_environment(home: Path) -> dict[str, str]:
    """A user's shell: no PYTHONPATH, token, settings or active virtualenv of ours."""
    kept = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {name: os.environ[name] for name in kept if name in os.environ}
    env |= {name: value for name, value in os.environ.items() if name.startswith("PIP_")}
    return env | {"HOME": str(home), "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}


def _installed(site: Path) -> dict[str, metadata.Distribution]:
    return {
        canonicalize_name(dist.metadata["Name"]): dist
        for dist in metadata.distributions(path=[str(site)])
    }


def _needed(dist: metadata.Distribution, extras: Sequence[str]) -> list[Requirement]:
    wanted = []
    for text in dist.requires or []:
        requirement = Requirement(text)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": extra}) for extra in ("", *extras)):
            wanted.append(requirement)
    return wanted


def _closure(installed: dict[str, metadata.Distribution], extras: Sequence[str]) -> set[str]:
    """evalbot and every distribution its requirements (with `extras`) pull in."""
    seen: set[str] = set()
    todo: list[tuple[str, Sequence[str]]] = [("evalbot", extras)]
    while todo:
        name, asked = todo.pop()
        if name in seen or name not in installed:
            continue
        seen.add(name)
        for requirement in _needed(installed[name], asked):
            todo.append((canonicalize_name(requirement.name), sorted(requirement.extras)))
    return seen


def check_requirements(site: Path, extras: Sequence[str]) -> None:
    """Every requirement of evalbot with `extras` is installed within its bounds; without the
    server extra, none of the server's libraries is."""
    installed = _installed(site)
    if "evalbot" not in installed:
        raise ReleaseError(f"{site}: evalbot is not installed")
    for requirement in _needed(installed["evalbot"], extras):
        dist = installed.get(canonicalize_name(requirement.name))
        if dist is None:
            raise ReleaseError(f"{site}: {requirement} is required and not installed")
        if not requirement.specifier.contains(dist.version, prereleases=True):
            raise ReleaseError(f"{site}: {requirement} is required, {dist.version} installed")
    if "server" not in extras:
        present = sorted(set(NOT_IN_BASE) & set(installed))
        if present:
            raise ReleaseError(f"{site}: the user install holds {', '.join(present)}")
        stray = sorted(set(installed) - _closure(installed, extras) - {"pip", "setuptools"})
        if stray:
            raise ReleaseError(f"{site}: installed, and needed by nothing: {', '.join(stray)}")


def install(venv: Path, lock: Path, wheel: Path, extras: Sequence[str]) -> Path:
    """A fresh virtualenv with the lock and the wheel (no resolution); its site-packages.

    uv installs (the tool `make` installs the locks with, from requirements/uv.txt): it fetches
    side by side, where pip takes most of a minute per install. The wheel goes in with
    `--no-deps`, so what the install needs is checked from its metadata, not resolved."""
    if not UV.is_file():
        raise ReleaseError(f"{UV} is missing: run `make .venv/.installed` first")
    _must(_run([sys.executable, "-m", "venv", "--clear", "--without-pip", venv]), f"making {venv}")
    python = venv / "bin" / "python"
    uv: list[str | Path] = [UV, "pip", "install", "--quiet", "--python", python]
    _must(_run([*uv, "--require-hashes", "-r", lock]), f"installing {lock.name} into {venv}")
    _must(_run([*uv, "--no-deps", wheel]), f"installing {wheel.name} into {venv}")
    _must(_run([UV, "pip", "check", "--quiet", "--python", python]), f"uv pip check in {venv}")
    where: list[str | Path] = [
        python,
        "-c",
        "import sysconfig; print(sysconfig.get_path('purelib'))",
    ]
    site = Path(_must(_run(where), "finding site-packages").strip())
    check_requirements(site, extras)
    return site


def _evalbot(venv: Path, *args: str | Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - the installed evalbot, fixed argv
        [str(venv / "bin" / "evalbot"), *map(str, args)],
        cwd=home,
        env=_clean_environment(home),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        check=False,
    )


def run_commands(venv: Path, install: Install, root: Path = REPO_ROOT) -> None:
    """A user command on the user install, a server command on each, from an empty folder."""
    with tempfile.TemporaryDirectory(prefix="evalbot-release-user-") as folder:
        home = Path(folder)
        examples = root / "examples"
        validate = _evalbot(
            venv, "validate", examples / "model-good", "--benchmarks", examples / "benchmarks",
            home=home,
        )  # fmt: skip
        if validate.returncode != 0 or "0 errors" not in validate.stdout:
            raise ReleaseError(
                f"{install.name} install: `evalbot validate` exit {validate.returncode}:\n"
                f"{validate.stdout}{validate.stderr}"
            )
        serve = _evalbot(venv, "serve", home=home)
        told = SERVER_INSTALL in serve.stderr
        expected = "invalid settings" in serve.stderr if install.extras else told
        if serve.returncode != 2 or not expected or "Traceback" in serve.stderr:
            raise ReleaseError(
                f"{install.name} install: `evalbot serve` with no settings exit "
                f"{serve.returncode}:\n{serve.stderr}"
            )


def check_installs(wheel: Path, venvs: Path, root: Path = REPO_ROOT) -> dict[str, Path]:
    """Each install made and run, side by side (an install waits on the network more than on
    the CPU); the virtualenvs by install name."""

    def made(each: Install) -> Path:
        venv = venvs / each.name
        install(venv, root / each.lock, wheel, each.extras)
        run_commands(venv, each, root)
        return venv

    with ThreadPoolExecutor(max_workers=len(INSTALLS)) as pool:
        running = {each.name: pool.submit(made, each) for each in INSTALLS}
        return {name: future.result() for name, future in running.items()}


def release(
    *,
    root: Path,
    dist: Path,
    changelog: Path | None,
    venvs: Path,
    date: datetime.date,
) -> str:
    """The whole recipe (without the changelog's step when `changelog` is None); returns the
    version built."""
    version = project_version(root)
    if changelog is not None:  # refused early, before the long steps
        cut = cut_changelog(changelog.read_text(encoding="utf-8"), version, date)
    sdist, wheel = build(dist, root)
    _say(f"built {sdist.name} and {wheel.name} (the sdist's wheel holds the same files)")
    twine_check([sdist, wheel])
    _say("twine check: metadata and README render")
    for name, venv in check_installs(wheel, venvs, root).items():
        _say(f"{name} install: made in {venv}, `evalbot validate` and `evalbot serve` ran")
    (dist / SUMS).write_text(sha256sums([sdist, wheel]), encoding="utf-8")
    _say(f"wrote {dist / SUMS}")
    if changelog is not None:
        changelog.write_text(cut, encoding="utf-8")
        _say(f"{changelog}: Unreleased is now `## {version} - {date.isoformat()}`")
    return version


def _say(line: str) -> None:
    print(f"release: {line}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evalbot_dev.release", description=__doc__)
    parser.add_argument("--dist", type=Path, default=REPO_ROOT / "dist")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--changelog", type=Path, default=REPO_ROOT / "CHANGELOG.md")
    chosen.add_argument("--no-changelog", action="store_true", help="build and check only")
    parser.add_argument("--venvs", type=Path, help="keep the two virtualenvs here")
    parser.add_argument("--date", type=datetime.date.fromisoformat, default=datetime.date.today())
    args = parser.parse_args(argv)
    try:
        with tempfile.TemporaryDirectory(prefix="evalbot-release-") as scratch:
            version = release(
                root=REPO_ROOT,
                dist=args.dist,
                changelog=None if args.no_changelog else args.changelog,
                venvs=args.venvs or Path(scratch),
                date=args.date,
            )
    except ReleaseError as error:
        print(f"release: {error}", file=sys.stderr)
        return 1
    wheel = args.dist / f"evalbot-{version}-py3-none-any.whl"
    if args.no_changelog:
        _say(f"next: pip install {wheel}   (or '{wheel}[server]')")
    else:
        _say(
            f"evalbot {version} is ready in {args.dist}. next: commit the changelog, "
            f"`git tag v{version}`, push the tag, `twine upload {args.dist}/evalbot-{version}*`"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
