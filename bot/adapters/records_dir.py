"""Datastore records from a local checkout, for `evalbot validate --datastore DIR`.

A `source.url` names a record by its path in the datastore (`data/...` or `flat/objects/...`);
offline the same path is read under `DIR`, whatever commit or branch the link names (a checkout is
one revision, the one its owner chose; records are named by uuid and not rewritten); a link to a
datastore's pull request is not read (`bot.eee.sourcecheck`). A file that is not there is missing
from the datastore; a file that cannot be read is unreadable. Reads stop one byte past the
record cap, as on the Hub.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bot.eee.links import RecordLink
from bot.eee.records import MAX_RECORD_BYTES
from bot.eee.sourcecheck import RecordMissing, RecordUnreadable


class DirectoryRecordReader:
    """`bot.eee.sourcecheck.RecordReader` over a datastore checkout."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def prepare(self, links: Sequence[RecordLink]) -> None:
        """Nothing to ask ahead: each record is one local file."""

    def read(self, link: RecordLink) -> bytes:
        target = self.root.joinpath(*link.path.split("/"))
        try:
            with target.open("rb") as handle:
                return handle.read(MAX_RECORD_BYTES + 1)
        except FileNotFoundError as error:
            raise RecordMissing(f"{link.path} is not in {self.root}") from error
        except OSError as error:
            raise RecordUnreadable(f"{link.path}: {error.strerror or error}") from error
