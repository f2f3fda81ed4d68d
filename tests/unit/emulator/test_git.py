"""Git-like objects: blob ids as git computes them, three-way merges, diffs."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from evalbot_dev.emulator.git import blob_oid, make_commit, three_way, unified_diff

paths = st.sampled_from(["a", "b", "c/d", "c/e"])
snapshots = st.dictionaries(paths, st.sampled_from(["1" * 40, "2" * 40, "3" * 40]))


def test_blob_oid_matches_git_hash_object() -> None:
    # `printf 'hello\n' | git hash-object --stdin`
    assert blob_oid(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
    assert blob_oid(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


def test_commit_sha_depends_on_content_parents_and_message() -> None:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    base = make_commit(
        files={"a": "1" * 40}, parents=(), author="x", date=moment, title="t", message=""
    )
    same = make_commit(
        files={"a": "1" * 40}, parents=(), author="x", date=moment, title="t", message=""
    )
    other = make_commit(
        files={"a": "2" * 40}, parents=(), author="x", date=moment, title="t", message=""
    )
    child = make_commit(
        files={"a": "1" * 40}, parents=(base.sha,), author="x", date=moment, title="t", message=""
    )
    assert base.sha == same.sha
    assert len({base.sha, other.sha, child.sha}) == 3
    assert len(base.sha) == 40


@given(snapshots, snapshots)
def test_merging_onto_an_unchanged_base_gives_theirs(
    base: dict[str, str], theirs: dict[str, str]
) -> None:
    merged, conflicts = three_way(base, base, theirs)
    assert merged == theirs
    assert conflicts == []


@given(snapshots, snapshots, snapshots)
def test_conflicts_are_paths_changed_differently_on_both_sides(
    base: dict[str, str], ours: dict[str, str], theirs: dict[str, str]
) -> None:
    merged, conflicts = three_way(base, ours, theirs)
    for path in conflicts:
        assert ours.get(path) != base.get(path)
        assert theirs.get(path) != base.get(path)
        assert ours.get(path) != theirs.get(path)
    if not conflicts:
        for path in set(base) | set(ours) | set(theirs):
            expected = theirs.get(path) if theirs.get(path) != base.get(path) else ours.get(path)
            assert merged.get(path) == expected


def test_unified_diff_of_added_changed_and_removed_files() -> None:
    blobs = {blob_oid(b"a\n"): b"a\n", blob_oid(b"b\n"): b"b\n", blob_oid(b"\x00\xff"): b"\x00\xff"}
    before = {"keep.txt": blob_oid(b"a\n"), "gone.txt": blob_oid(b"a\n")}
    after = {"keep.txt": blob_oid(b"b\n"), "new.bin": blob_oid(b"\x00\xff")}
    diff = unified_diff(before, after, blobs)
    a, b = blob_oid(b"a\n")[:7], blob_oid(b"b\n")[:7]
    assert (
        f"diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex {a}..0000000\n"
        "--- a/gone.txt\n+++ /dev/null\n" in diff
    )
    assert f"index {a}..{b} 100644\n--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-a\n+b\n" in diff
    assert "new file mode 100644\nindex 0000000..ba01f6b\nBinary files" in diff  # as git wrote it
    assert "Binary files /dev/null and b/new.bin differ" in diff  # as git says it


def test_paths_are_quoted_as_git_quotes_them() -> None:
    """Expected texts are what `git diff` 2.39 printed for the same files (core.quotePath on)."""
    content = b"a\n"
    oid = blob_oid(content)
    names = ['a"q.yaml', "my résults.yaml", "sp ace.yaml", "tab\there.yaml"]
    diff = unified_diff({}, {f".eval_results/{n}": oid for n in names}, {oid: content})
    headers = [line for line in diff.split("\n") if line.startswith(("diff --git", "+++"))]
    assert headers == [
        'diff --git "a/.eval_results/a\\"q.yaml" "b/.eval_results/a\\"q.yaml"',
        '+++ "b/.eval_results/a\\"q.yaml"',
        'diff --git "a/.eval_results/my r\\303\\251sults.yaml"'
        ' "b/.eval_results/my r\\303\\251sults.yaml"',
        '+++ "b/.eval_results/my r\\303\\251sults.yaml"\t',
        "diff --git a/.eval_results/sp ace.yaml b/.eval_results/sp ace.yaml",
        "+++ b/.eval_results/sp ace.yaml\t",
        'diff --git "a/.eval_results/tab\\there.yaml" "b/.eval_results/tab\\there.yaml"',
        '+++ "b/.eval_results/tab\\there.yaml"',
    ]
    assert "--- /dev/null\n" in diff  # no tab after /dev/null
