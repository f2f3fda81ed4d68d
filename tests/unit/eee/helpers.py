"""An in-memory datastore for `bot.eee.submission`, and the fixtures' folders."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DATASTORE = Path(__file__).parents[2] / "samples" / "real-world" / "every_eval_ever" / "datastore"


class MemoryFiles:
    """Head files and main files by path; samples served in `chunk`-byte pieces."""

    def __init__(
        self, head: dict[str, bytes], main: dict[str, bytes] | None = None, chunk: int = 7
    ) -> None:
        self.head = head
        self.main = main or {}
        self.chunk = chunk
        self.streamed: list[str] = []

    def exists(self, path: str) -> bool:
        return path in self.head

    def read(self, path: str) -> bytes:
        return self.head[path]

    def chunks(self, path: str) -> Iterator[bytes]:
        self.streamed.append(path)
        content = self.head[path]
        for start in range(0, len(content), self.chunk):
            yield content[start : start + self.chunk]

    def read_main(self, path: str) -> bytes | None:
        return self.main.get(path)


def folder_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in (".json", ".jsonl")
    }


def dumped(record: dict[str, Any]) -> bytes:
    return json.dumps(record, indent=2).encode()
