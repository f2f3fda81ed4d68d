"""The wheel is the product: it carries the packages and data a user's commands need, and no
development tooling (the Hub emulator, the dev stack, the demo, tests, benchmarks).

Built from a copy of the checkout with the pinned build backend (`evalbot_dev.dists`); the
sdist's own wheel must hold the same files, since `pip install` from the sdist builds that one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import packaged_defaults
from evalbot_dev import dists, release
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.integration

#: What a user's install holds, and nothing else: the product packages and their metadata.
PRODUCT = {"bot", "workers"}
#: Names of development tooling, wherever they would sit in the wheel.
DEV_TOOLING = ("evalbot_dev", "emulator", "devstack", "demo", "imagecheck", "tests", "bench")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return dists.build(tmp_path_factory.mktemp("dists"))


def test_the_wheel_holds_the_product_packages_only(built: tuple[Path, Path]) -> None:
    names = dists.contents(built[1])
    tops = {name.split("/", 1)[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == PRODUCT


def test_the_wheel_carries_no_development_tooling(built: tuple[Path, Path]) -> None:
    carried = [
        name
        for name in dists.contents(built[1])
        if any(part.removesuffix(".py") in DEV_TOOLING for part in name.split("/"))
    ]
    assert carried == []


def test_the_wheel_carries_every_packaged_default(built: tuple[Path, Path]) -> None:
    names = set(dists.contents(built[1]))
    package = REPO_ROOT / "bot"
    shipped = [
        *sorted(packaged_defaults.collections_dir().glob("*.yaml")),
        packaged_defaults.mappings_file(),
        *(packaged_defaults.config_file(name) for name in packaged_defaults.CONFIG_FILES),
    ]
    assert len(shipped) > 2 + len(packaged_defaults.CONFIG_FILES) - 1
    for path in shipped:
        assert f"bot/{path.relative_to(package).as_posix()}" in names


def test_the_sdists_wheel_is_the_same(built: tuple[Path, Path]) -> None:
    sdist, wheel = built
    dists.check_sdist(sdist, wheel)


def test_a_wheel_that_differs_is_named(built: tuple[Path, Path], tmp_path: Path) -> None:
    """The comparison can fail: an sdist missing a data file gives a different wheel."""
    import tarfile

    sdist, wheel = built
    cut = tmp_path / sdist.name
    with tarfile.open(sdist) as source, tarfile.open(cut, "w:gz") as target:
        for member in source.getmembers():
            if not member.name.endswith("collections/leaderboard-v2.yaml"):
                target.addfile(member, source.extractfile(member) if member.isfile() else None)
    with pytest.raises(dists.BuildError, match=r"leaderboard-v2\.yaml"):
        dists.check_sdist(cut, wheel)


def test_the_release_check_passes_the_built_files(built: tuple[Path, Path]) -> None:
    """`make release`'s twine check: the metadata is complete and PyPI renders the README."""
    release.twine_check(list(built))


def test_the_release_check_names_a_wheel_pypi_would_not_render(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    """The check can fail: without its content type, the README is read as reStructuredText,
    which it is not."""
    import zipfile

    wheel = built[1]
    broken = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(broken, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename.endswith(".dist-info/METADATA"):
                data = data.replace(b"Description-Content-Type: text/markdown\n", b"")
            target.writestr(item, data)
    with pytest.raises(release.ReleaseError, match="twine check failed"):
        release.twine_check([broken])
