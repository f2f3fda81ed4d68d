"""The defaults that ship inside the package, found through `importlib.resources`.

An installed evalbot has no checkout beside it: a command run from an empty folder still needs
the system collections, the converter's mapping table and the default configuration files.
They live under `bot/data/` and are located here, in one place, so every reader finds them the
same way whether evalbot runs from a checkout, an installed wheel or the image.

`config/` at the top of a checkout holds the operator's copies of the configuration files;
`tests/unit/test_packaged_defaults.py` fails when those copies and the ones here drift apart.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: Configuration files the bot and the issuer fall back to when the operator's copy is absent.
CONFIG_FILES = ("bot.yaml", "integrations.yaml")


def _data(*parts: str) -> Path:
    # A wheel installs as plain files (evalbot is never imported from a zip), so the
    # Traversable is a real path that callers may list and name in their messages.
    return Path(str(resources.files("bot").joinpath("data", *parts)))


def collections_dir() -> Path:
    """The folder of system collections (read-only; `evalbot collections list`)."""
    return _data("collections")


def mappings_file() -> Path:
    """The converter's mapping table shipped with evalbot (`evalbot convert`)."""
    return _data("convert", "mappings.yaml")


def config_file(name: str) -> Path:
    """The shipped default of one of `CONFIG_FILES`."""
    if name not in CONFIG_FILES:
        raise ValueError(f"no packaged configuration file {name!r}")
    return _data("config", name)
