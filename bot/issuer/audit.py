"""The append-only audit log: one JSON line per decision, never a token or a secret
(docs/issuer.md, "Refusals and the audit log")."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

#: The only fields a line may carry; anything else a caller passes is dropped.
FIELDS = (
    "request_id",
    "decision",
    "reason",
    "identity",
    "integration",
    "model",
    "benchmark",
    "task",
    "jti",
    "status",
    "address",
)


@dataclass
class AuditLog:
    path: Path
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _fd: int | None = None

    def open(self) -> AuditLog:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        return self

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def write(self, **values: Any) -> None:
        self.write_all([values])

    def write_all(self, decisions: Sequence[Mapping[str, Any]]) -> None:
        """Several lines (a request's tokens) with one write and one fsync."""
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
        chunks = []
        for values in decisions:
            line: dict[str, Any] = {"time": stamp}
            line.update({name: values[name] for name in FIELDS if values.get(name) is not None})
            chunks.append(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
        data = "".join(chunks).encode("utf-8")
        with self._lock:
            if self._fd is None:
                self.open()
            assert self._fd is not None
            view = memoryview(data)
            while view:
                # A short write (a full disk) returns a count, not an error: finish the line,
                # or let the error that follows refuse the request (no token without its line).
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)


def read_audit(path: Path) -> list[dict[str, Any]]:
    """Every line of an audit log (tests and operators' scripts)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
