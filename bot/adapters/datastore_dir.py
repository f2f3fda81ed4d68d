"""An EEE datastore on disk, for `evalbot validate` and `evalbot eee impact`, alone or overlaid on a
checkout of its main (`--against`; docs/validate.md, "Every Eval Ever records")."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from bot.eee.dedupe import HashIndex, Holder, normalized_hash
from bot.eee.records import MAX_RECORD_BYTES
from bot.eee.submission import Change
from bot.strictjson import depth_of
from bot.validation.eee import MAX_DEPTH

CHUNK_BYTES = 1024 * 1024


def is_datastore(folder: Path) -> bool:
    return (folder / "data").is_dir()


def datastore_files(root: Path) -> list[str]:
    """Repo-relative paths of the `.json` and `.jsonl` files in `root` (hidden folders such
    as `.git` left out), sorted: a record outside `data/` is checked, and told to move."""
    found: list[str] = []
    for directory, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in names:
            if name.endswith((".json", ".jsonl")):
                found.append((Path(directory) / name).relative_to(root).as_posix())
    return sorted(found)


def changes_in(root: Path, main: Path | None) -> list[Change]:
    return [
        Change(path, "modified" if main is not None and (main / path).is_file() else "added")
        for path in datastore_files(root)
    ]


class OverlayFiles:
    """`bot.eee.submission.DatastoreFiles` over a folder, laid over main's checkout if any."""

    def __init__(self, root: Path, main: Path | None = None) -> None:
        self.root = root
        self.main = main

    def _where(self, path: str) -> Path | None:
        for base in (self.root, self.main):
            if base is not None and (base / path).is_file():
                return base / path
        return None

    def exists(self, path: str) -> bool:
        return self._where(path) is not None

    def read(self, path: str) -> bytes:
        where = self._where(path)
        if where is None:
            raise FileNotFoundError(path)
        with where.open("rb") as handle:
            return handle.read(MAX_RECORD_BYTES + 1)

    def chunks(self, path: str) -> Iterator[bytes]:
        where = self._where(path)
        if where is None:
            return
        with where.open("rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                yield chunk

    def read_main(self, path: str) -> bytes | None:
        if self.main is None or not (self.main / path).is_file():
            return None
        return (self.main / path).read_bytes()


class PlannedFiles(OverlayFiles):
    """Files about to be written (path -> bytes) laid over the datastore folder they go to,
    so that they are checked before anything is written (`evalbot convert --to eee`)."""

    def __init__(self, planned: dict[str, bytes], root: Path) -> None:
        super().__init__(root)
        self.planned = planned

    def exists(self, path: str) -> bool:
        return path in self.planned or super().exists(path)

    def read(self, path: str) -> bytes:
        if path in self.planned:
            return self.planned[path][: MAX_RECORD_BYTES + 1]
        return super().read(path)

    def chunks(self, path: str) -> Iterator[bytes]:
        if path not in self.planned:
            yield from super().chunks(path)
            return
        content = self.planned[path]
        for start in range(0, len(content), CHUNK_BYTES):
            yield content[start : start + CHUNK_BYTES]

    def read_main(self, path: str) -> bytes | None:
        where = self.root / path
        return where.read_bytes() if where.is_file() else None


def index_of(main: Path, overridden: set[str]) -> HashIndex:
    """The normalised hash of every record on main, except those the folder replaces."""
    index = HashIndex()
    for path in datastore_files(main):
        if not path.endswith(".json") or path in overridden:
            continue
        try:
            record = json.loads((main / path).read_bytes())
        except (ValueError, RecursionError):
            continue
        if depth_of(record, MAX_DEPTH) <= MAX_DEPTH:
            index.add(normalized_hash(record), Holder(path))
    return index
