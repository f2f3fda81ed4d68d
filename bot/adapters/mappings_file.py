"""The converter's mapping table, read from files for every command that converts
(docs/convert.md, "The mapping table")."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bot import packaged_defaults
from bot.convert.mapping import MappingError, MappingTable, parse_mappings

#: The user's table, in the working directory: replaces the shipped one when present.
WORKING_DIRECTORY_MAPPINGS = Path("config") / "convert" / "mappings.yaml"


class MappingsFileError(ValueError):
    """A mapping file that cannot be read or parsed; the message names the file."""


def mapping_files(extra: Sequence[str | Path] = ()) -> list[Path]:
    """The files the table is read from, in order (later rows win)."""
    base = (
        WORKING_DIRECTORY_MAPPINGS
        if WORKING_DIRECTORY_MAPPINGS.is_file()
        else packaged_defaults.mappings_file()
    )
    return [base, *(Path(name) for name in extra)]


def load_mapping_table(files: Sequence[Path]) -> MappingTable:
    """The rows of `files`, later files winning."""
    table = MappingTable()
    for path in files:
        try:
            table = table.merged(parse_mappings(str(path), path.read_bytes()))
        except OSError as error:
            raise MappingsFileError(f"{path}: {error.strerror}") from error
        except MappingError as error:
            raise MappingsFileError(str(error)) from error
    return table
