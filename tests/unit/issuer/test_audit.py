"""The audit log: whole lines, even when the kernel accepts a write only in part."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.issuer.audit import AuditLog, read_audit


def test_a_short_write_is_finished_not_left_torn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write

    def short_write(fd: int, data: bytes | memoryview) -> int:
        return real_write(fd, bytes(data[:7]))  # as a nearly full disk does

    log = AuditLog(tmp_path / "audit.jsonl").open()
    monkeypatch.setattr(os, "write", short_write)
    log.write_all([{"request_id": "r1", "decision": "issued", "jti": "j1"}])
    log.write(request_id="r2", decision="refused", reason="no-integration")
    monkeypatch.undo()
    log.close()
    lines = read_audit(tmp_path / "audit.jsonl")
    assert [(line["request_id"], line["decision"]) for line in lines] == [
        ("r1", "issued"),
        ("r2", "refused"),
    ]


def test_a_failing_write_refuses_rather_than_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, data: bytes | memoryview) -> int:
        raise OSError(28, "No space left on device")

    log = AuditLog(tmp_path / "audit.jsonl").open()
    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError, match="No space"):
        log.write(request_id="r1", decision="issued")
    log.close()
