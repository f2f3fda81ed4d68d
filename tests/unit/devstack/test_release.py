"""`make release`'s steps that need no build: the changelog cut, the sums, the version check and
the check of what an install holds. `.ci/installed-smoke` runs the whole recipe (builds, twine
check, both installs) on a copy of the changelog; `tests/integration/test_wheel.py` runs its
twine check on a built wheel."""

from __future__ import annotations

import datetime
import re
import subprocess
from pathlib import Path

import pytest

from evalbot_dev.release import (
    ReleaseError,
    check_requirements,
    cut_changelog,
    project_version,
    sha256sums,
)
from tests.conftest import REPO_ROOT

DAY = datetime.date(2026, 12, 1)
CHANGELOG = """\
# Changelog

Intro.

## Unreleased

### Added
- A thing.

## 0.0.9 - 2026-01-02

### Fixed
- An older thing.
"""


def test_the_unreleased_section_becomes_the_releases_under_a_fresh_one() -> None:
    assert cut_changelog(CHANGELOG, "0.1.0", DAY) == CHANGELOG.replace(
        "## Unreleased\n", "## Unreleased\n\n## 0.1.0 - 2026-12-01\n"
    )


def test_the_projects_changelog_is_cut_and_nothing_else_moves() -> None:
    text = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    version = project_version()
    cut = cut_changelog(text, version, DAY)
    headings = [line for line in cut.splitlines() if line.startswith("## ")]
    assert headings[:2] == ["## Unreleased", f"## {version} - 2026-12-01"]
    assert cut.replace(f"\n## {version} - 2026-12-01\n", "", 1) == text
    with pytest.raises(ReleaseError, match="already released"):
        cut_changelog(cut, version, DAY)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (CHANGELOG.replace("## Unreleased", "## Next"), "no `## Unreleased` section"),
        (CHANGELOG.replace("### Added\n- A thing.\n", ""), r"CHANGELOG.md:5: .* is empty"),
        (CHANGELOG.replace("0.0.9", "0.1.0"), r"CHANGELOG.md:10: 0.1.0 is already released"),
    ],
    ids=["no-unreleased", "empty", "released"],
)
def test_a_changelog_that_cannot_be_cut_is_refused(text: str, message: str) -> None:
    with pytest.raises(ReleaseError, match=message):
        cut_changelog(text, "0.1.0", DAY)


def test_the_sums_are_sha256sums_own(tmp_path: Path) -> None:
    files = [tmp_path / "evalbot-0.1.0.tar.gz", tmp_path / "evalbot-0.1.0-py3-none-any.whl"]
    for index, path in enumerate(files):
        path.write_bytes(bytes([index]) * 1000)
    (tmp_path / "SHA256SUMS").write_text(sha256sums(files))
    done = subprocess.run(
        ["sha256sum", "--check", "--strict", "SHA256SUMS"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "evalbot-0.1.0-py3-none-any.whl: OK",
        "evalbot-0.1.0.tar.gz: OK",
    ]
    files[0].write_bytes(b"tampered")
    assert (
        subprocess.run(
            ["sha256sum", "--check", "--quiet", "SHA256SUMS"],
            cwd=tmp_path,
            capture_output=True,
            timeout=30,
            check=False,
        ).returncode
        == 1
    )


@pytest.mark.parametrize("version", ["0.2.0.dev0", "0.2.0rc1", "0.2.0+local"])
def test_only_a_release_version_is_released(tmp_path: Path, version: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f'[project]\nversion = "{version}"\n')
    with pytest.raises(ReleaseError, match=re.escape(f"version {version} is not a release")):
        project_version(tmp_path)


def distribution(site: Path, name: str, version: str, *requires: str) -> None:
    """A dist-info folder as pip leaves it, with the metadata fields the check reads."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    lines = [f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n"]
    lines += [f"Requires-Dist: {requirement}\n" for requirement in requires]
    (info / "METADATA").write_text("".join(lines))


EVALBOT = ("pyyaml>=6", "celery>=5; extra == 'server'")


def test_an_install_holding_what_it_requires_passes(tmp_path: Path) -> None:
    distribution(tmp_path / "base", "evalbot", "0.1.0", *EVALBOT)
    distribution(tmp_path / "base", "PyYAML", "6.0.4")
    check_requirements(tmp_path / "base", ())
    distribution(tmp_path / "server", "evalbot", "0.1.0", *EVALBOT)
    distribution(tmp_path / "server", "PyYAML", "6.0.4")
    distribution(tmp_path / "server", "celery", "5.7.0", "kombu>=5")
    distribution(tmp_path / "server", "kombu", "5.7.0")
    check_requirements(tmp_path / "server", ("server",))


@pytest.mark.parametrize(
    ("installed", "extras", "message"),
    [
        ([("PyYAML", "5.4")], (), r"pyyaml>=6 is required, 5.4 installed"),
        ([], (), r"pyyaml>=6 is required and not installed"),
        ([("PyYAML", "6.0.4")], ("server",), r"celery>=5; extra == \"server\" is required"),
        ([("PyYAML", "6.0.4"), ("celery", "5.7.0")], (), "the user install holds celery"),
        ([("PyYAML", "6.0.4"), ("rich", "15.0.0")], (), "needed by nothing: rich"),
    ],
    ids=["too-old", "missing", "extra-missing", "server-in-base", "stray"],
)
def test_an_install_missing_or_holding_too_much_is_named(
    tmp_path: Path, installed: list[tuple[str, str]], extras: tuple[str, ...], message: str
) -> None:
    distribution(tmp_path, "evalbot", "0.1.0", *EVALBOT)
    for name, version in installed:
        distribution(tmp_path, name, version)
    with pytest.raises(ReleaseError, match=message):
        check_requirements(tmp_path, extras)
