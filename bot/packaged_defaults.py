"""The defaults shipped inside the package (`bot/data/`), found through `importlib.resources`,
so a command run from an empty folder, the wheel or the image finds them as a checkout does."""

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
