"""`workers.datastore_pr`: a PR's diff as the datastore check reads it, and the merged view."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.eee.runbudget import MIB, RunBudget, RunLimit, RunLimits
from bot.eee.submission import Change
from bot.hub.datastore import git_blob_id, tree_changes
from bot.hub.pulls import Change as DiffChange
from bot.hub.pulls import DiffFile
from workers.datastore_index import MainIndex
from workers.datastore_pr import HubDatastoreFiles, datastore_changes


def test_a_rename_is_the_old_path_removed_and_the_new_added() -> None:
    diff = [
        DiffFile("data/a/b/c/old.json", "data/a/b/d/old.json", DiffChange.RENAMED),
        DiffFile(None, "data/a/b/c/new.json", DiffChange.ADDED),
        DiffFile("data/a/b/c/x.json", "data/a/b/c/x.json", DiffChange.MODIFIED),
        DiffFile("data/a/b/c/gone.json", None, DiffChange.REMOVED),
    ]
    assert datastore_changes(diff) == [
        Change("data/a/b/c/gone.json", "removed"),
        Change("data/a/b/c/new.json", "added"),
        Change("data/a/b/c/old.json", "removed"),
        Change("data/a/b/c/x.json", "modified"),
        Change("data/a/b/d/old.json", "added"),
    ]


def test_tree_changes_when_the_hub_gives_no_diff() -> None:
    before = {"a.json": "1", "b.json": "2", "c.json": "3"}
    after = {"a.json": "1", "b.json": "9", "d.json": "4"}
    assert tree_changes(before, after) == [
        DiffFile("b.json", "b.json", DiffChange.MODIFIED),
        DiffFile(None, "d.json", DiffChange.ADDED),
        DiffFile("c.json", None, DiffChange.REMOVED),
    ]


class Reads:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def read(self, repo_id: str, path: str, revision: str) -> bytes:
        self.calls.append((path, revision))
        return b"{}"


def test_the_merged_view_reads_changed_files_at_the_head_and_others_on_main() -> None:
    main = MainIndex("m" * 40, {"kept.json": "h1", "gone.json": "h2", "s_samples.jsonl": ""})
    changes = [Change("new.json", "added"), Change("gone.json", "removed")]
    reads = Reads()
    files = HubDatastoreFiles(reads, "o/d", "h" * 40, changes, main, budget=RunBudget())  # type: ignore[arg-type]
    assert files.exists("new.json")
    assert files.exists("kept.json")
    assert files.exists("s_samples.jsonl")
    assert not files.exists("gone.json")
    assert not files.exists("other.json")
    files.read("new.json")
    files.read("kept.json")
    assert reads.calls == [("new.json", "h" * 40), ("kept.json", "m" * 40)]
    assert files.read_main("new.json") is None


class Served:
    """A datastore whose files hold given bytes; each read and stream is recorded."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.calls: list[tuple[str, str]] = []

    def read(self, repo_id: str, path: str, revision: str) -> bytes:
        self.calls.append((path, revision))
        return self.files[path]

    def chunks(self, repo_id: str, path: str, revision: str) -> Iterator[bytes]:
        self.calls.append((path, revision))
        content = self.files[path]
        for start in range(0, len(content), 4):
            yield content[start : start + 4]


HEAD, MAIN = "h" * 40, "m" * 40


def test_each_content_is_read_once_in_a_run() -> None:
    """A record read again (its samples file's check, main's copy of the same content) is
    taken from what the run read: one Hub read per content."""
    record = b'{"a": 1}'
    served = Served({"r.json": record, "old.json": record})
    main = MainIndex(MAIN, {"old.json": "h"}, {"old.json": git_blob_id(record)})
    changes = [Change("r.json", "added")]
    files = HubDatastoreFiles(served, "o/d", HEAD, changes, main, budget=RunBudget())  # type: ignore[arg-type]
    assert files.read("r.json") == record
    assert files.read("r.json") == record
    assert files.read_main("old.json") == record  # the same content, by its id on main
    assert served.calls == [("r.json", HEAD)]


def test_a_run_stops_at_its_byte_row_and_time_bounds() -> None:
    big = b"x" * (2 * MIB)
    served = Served({"r.json": big, "s_samples.jsonl": b"{}\n" * 10})
    changes = [Change("r.json", "added"), Change("s_samples.jsonl", "added")]
    main = MainIndex(MAIN, {})

    def files(limits: RunLimits, clock: Iterator[float] | None = None) -> HubDatastoreFiles:
        budget = RunBudget(limits) if clock is None else RunBudget(limits, clock.__next__)
        return HubDatastoreFiles(served, "o/d", HEAD, changes, main, budget=budget)  # type: ignore[arg-type]

    with pytest.raises(RunLimit) as stopped:
        files(RunLimits(max_record_bytes=MIB)).read("r.json")
    assert stopped.value.diagnostic.code == "EEE-RUN-LIMIT"
    assert stopped.value.path == "r.json"
    assert "its records hold 2.0 MiB, over the 1.0 MiB" in stopped.value.diagnostic.message
    with pytest.raises(RunLimit, match=r"over the 1\.0 MiB a run reads"):
        files(RunLimits(max_bytes=MIB)).read("r.json")
    with pytest.raises(RunLimit, match="more than 5 rows"):
        list(files(RunLimits(max_rows=5)).chunks("s_samples.jsonl"))
    with pytest.raises(RunLimit, match="more than the 120 s"):
        list(files(RunLimits(), iter([0.0, 0.0, 121.0])).chunks("s_samples.jsonl"))
    assert list(files(RunLimits(max_rows=10)).chunks("s_samples.jsonl"))  # within: read whole
