"""The version is written once, in pyproject.toml, as a release version; every pin the docs, the
Action and the hook's comments show names that version (`make release` publishes it)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version

import bot
from bot.cli import main
from tests.conftest import REPO_ROOT

VERSION = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "version"
]
#: The ways a text pins evalbot: a pip requirement, the Action or the repository at a tag, a
#: pre-commit `rev:`, the release's file names.
PINS = (
    re.compile(r"\bevalbot==(\d[^\s\"'`,\]]*)"),
    re.compile(r"\bevalbot(?:\.git)?@v?(\d[^\s\"'`#]*)"),
    re.compile(r"^\s*#?\s*rev: v?(\d[^\s\"'`#]*)", re.MULTILINE),
    re.compile(r"\bevalbot-(\d[^-\s]*?)(?:-py3-none-any\.whl|\.tar\.gz)"),
)
PINNING_FILES = [
    REPO_ROOT / "README.md",
    *sorted((REPO_ROOT / "docs").glob("*.md")),
    REPO_ROOT / "action.yml",
    REPO_ROOT / ".pre-commit-hooks.yaml",
]


def pins(text: str) -> list[tuple[int, str]]:
    """(line, version) of every pin of evalbot in `text`."""
    return sorted(
        (text.count("\n", 0, found.start()) + 1, found.group(1).rstrip("."))
        for pattern in PINS
        for found in pattern.finditer(text)
    )


def test_the_version_is_a_release() -> None:
    version = Version(VERSION)
    assert not version.is_prerelease, VERSION
    assert not version.is_devrelease, VERSION
    assert version.local is None, VERSION
    assert str(version) == VERSION


def test_the_package_reports_pyprojects_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert bot.__version__ == VERSION
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"evalbot {VERSION}\n"


def test_no_module_writes_a_version_of_its_own() -> None:
    written = [
        path.relative_to(REPO_ROOT).as_posix()
        for package in ("bot", "workers")
        for path in (REPO_ROOT / package).rglob("*.py")
        if re.search(r"^__version__\s*=", path.read_text(encoding="utf-8"), re.MULTILINE)
    ]
    assert written == []


@pytest.mark.parametrize("path", PINNING_FILES, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_every_pin_names_the_version(path: Path) -> None:
    found = pins(path.read_text(encoding="utf-8"))
    where = path.relative_to(REPO_ROOT)
    wrong = [f"{where}:{line} pins {version}" for line, version in found if version != VERSION]
    assert wrong == [], f"pyproject.toml's version is {VERSION}"


def test_the_pins_are_found() -> None:
    """The patterns see the pins the docs show (a test that finds none could not fail)."""
    every = {
        name: pins((REPO_ROOT / name).read_text(encoding="utf-8"))
        for name in ("README.md", ".pre-commit-hooks.yaml", "docs/frameworks.md")
    }
    assert all(every.values()), every
    assert len(every["README.md"]) >= 5


def test_a_pin_of_another_version_is_named() -> None:
    text = (
        "pip install evalbot==0.0.9\n"
        "      - uses: acme/evalbot@v0.2.0\n"
        "    rev: v0.1.0rc1\n"
        'additional_dependencies: ["evalbot==1.0"]\n'
        "pip install dist/evalbot-0.3.0-py3-none-any.whl\n"
        "pip install git+https://github.com/acme/evalbot.git@v0.4.0\n"
    )
    assert pins(text) == [
        (1, "0.0.9"),
        (2, "0.2.0"),
        (3, "0.1.0rc1"),
        (4, "1.0"),
        (5, "0.3.0"),
        (6, "0.4.0"),
    ]
