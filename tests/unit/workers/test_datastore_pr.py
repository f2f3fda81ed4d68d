"""`workers.datastore_pr`: a PR's diff as the datastore check reads it, and the merged view."""

from __future__ import annotations

from bot.eee.submission import Change
from bot.hub.datastore import tree_changes
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
    files = HubDatastoreFiles(reads, "o/d", "h" * 40, changes, main)  # type: ignore[arg-type]
    assert files.exists("new.json")
    assert files.exists("kept.json")
    assert files.exists("s_samples.jsonl")
    assert not files.exists("gone.json")
    assert not files.exists("other.json")
    files.read("new.json")
    files.read("kept.json")
    assert reads.calls == [("new.json", "h" * 40), ("kept.json", "m" * 40)]
    assert files.read_main("new.json") is None
