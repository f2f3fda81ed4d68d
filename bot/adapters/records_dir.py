"""Datastore records from a local checkout, for `evalbot validate --datastore DIR`: a
`source.url`'s path read under `DIR`, capped as on the Hub."""

from __future__ import annotations

from pathlib import Path

from bot.eee.links import RecordLink
from bot.eee.records import MAX_RECORD_BYTES
from bot.eee.sourcecheck import RecordMissing, RecordUnreadable


class DirectoryRecordReader:
    """`bot.eee.sourcecheck.RecordReader` over a datastore checkout."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def read(self, link: RecordLink) -> bytes:
        target = self.root.joinpath(*link.path.split("/"))
        try:
            with target.open("rb") as handle:
                return handle.read(MAX_RECORD_BYTES + 1)
        except FileNotFoundError as error:
            raise RecordMissing(f"{link.path} is not in {self.root}") from error
        except OSError as error:
            raise RecordUnreadable(f"{link.path}: {error.strerror or error}") from error
