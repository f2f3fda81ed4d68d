from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from bot.hub.pulls import (
    Change,
    DiffFile,
    classify_changes,
    is_lfs_pointer,
    parse_diff,
    unquote_git_path,
)
from tests.unit.hub.fake_hub import SAMPLES, sample_details


def test_sample_diff_of_a_real_shaped_pr() -> None:
    files = parse_diff(sample_details()["diff"])
    assert [(f.old_path, f.new_path, f.change) for f in files] == [
        (None, ".eval_results/gpqa.yaml", Change.ADDED),
        (".eval_results/hle.yaml", ".eval_results/hle.yaml", Change.MODIFIED),
        (".eval_results/old.yaml", None, Change.REMOVED),
        (None, ".eval_results/mmlu.yml", Change.ADDED),
        ("README.md", "README.md", Change.MODIFIED),
    ]
    assert "verifyToken: eyJhbGciOiJFZERTQSJ9" in (files[0].added_text or "")
    assert files[1].added_text == "  value: 0.12"


def test_header_lookalike_inside_a_hunk_is_content() -> None:
    removed = parse_diff(sample_details()["diff"])[2]
    assert removed.old_path == ".eval_results/old.yaml"  # not "not-a-header"


def test_pure_rename_has_no_minus_plus_lines() -> None:
    diff = (
        "diff --git a/.eval_results/GPQA.yaml b/.eval_results/gpqa.yaml\n"
        "similarity index 100%\n"
        "rename from .eval_results/GPQA.yaml\n"
        "rename to .eval_results/gpqa.yaml\n"
    )
    assert parse_diff(diff) == [
        DiffFile(".eval_results/GPQA.yaml", ".eval_results/gpqa.yaml", Change.RENAMED, "")
    ]


def test_quoted_path_with_non_ascii_and_spaces() -> None:
    diff = (
        'diff --git "a/.eval_results/caf\\303\\251 x.yaml" "b/.eval_results/caf\\303\\251 x.yaml"\n'
        "new file mode 100644\n"
        "--- /dev/null\n"
        '+++ "b/.eval_results/caf\\303\\251 x.yaml"\n'
        "@@ -0,0 +1 @@\n"
        "+- value: 1\n"
    )
    [only] = parse_diff(diff)
    assert only.new_path == ".eval_results/café x.yaml"
    assert only.change is Change.ADDED


def test_binary_file_without_headers_uses_the_git_line() -> None:
    diff = (
        "diff --git a/.eval_results/a b.yaml b/.eval_results/a b.yaml\n"
        "index 1..2 100644\n"
        "Binary files a/.eval_results/a b.yaml and b/.eval_results/a b.yaml differ\n"
    )
    [only] = parse_diff(diff)
    assert only.old_path == only.new_path == ".eval_results/a b.yaml"
    assert only.change is Change.MODIFIED


def test_deleted_binary_file() -> None:
    diff = "diff --git a/x.bin b/x.bin\ndeleted file mode 100644\nindex 1..0\n"
    assert parse_diff(diff) == [DiffFile("x.bin", None, Change.REMOVED, "")]


def test_empty_diff() -> None:
    assert parse_diff("") == []


def test_form_feed_in_content_does_not_split_a_line() -> None:
    diff = (
        "diff --git a/x.yaml b/x.yaml\n--- a/x.yaml\n+++ b/x.yaml\n@@ -1 +1 @@\n"
        "+a\x0cdiff --git a/evil b/evil\n"
    )
    [only] = parse_diff(diff)
    assert only.new_path == "x.yaml"
    assert only.added_text == "a\x0cdiff --git a/evil b/evil"


def _git_quote(path: str) -> str:
    out = []
    for byte in path.encode("utf-8"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\t":
            out.append("\\t")
        elif char == "\n":
            out.append("\\n")
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


@given(st.text(min_size=1, max_size=40).filter(lambda s: "\x00" not in s))
def test_unquote_inverts_git_quoting(path: str) -> None:
    assert unquote_git_path(_git_quote(path)) == path


names = st.text(
    alphabet=st.characters(blacklist_categories=["Cs", "Cc"], blacklist_characters='"\\/'),
    min_size=1,
    max_size=20,
).filter(lambda s: s.strip() == s)


@given(st.lists(names, min_size=1, max_size=5, unique=True))
def test_added_files_round_trip(stems: list[str]) -> None:
    blocks = []
    for stem in stems:
        path = _git_quote(f"b/.eval_results/{stem}.yaml")
        blocks.append(
            f"diff --git {_git_quote(f'a/.eval_results/{stem}.yaml')} {path}\n"
            f"new file mode 100644\n--- /dev/null\n+++ {path}\n@@ -0,0 +1 @@\n+- value: 1\n"
        )
    files = parse_diff("".join(blocks))
    assert [f.new_path for f in files] == [f".eval_results/{stem}.yaml" for stem in stems]
    assert all(f.change is Change.ADDED and f.added_text == "- value: 1" for f in files)


diff_lines = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "diff --git ",
                "--- ",
                "+++ ",
                "@@ -1 +1 @@",
                "rename from ",
                "rename to ",
                "new file mode 100644",
                "deleted file mode 100644",
                "copy from ",
                "+",
                "-",
                " ",
            ]
        ).flatmap(lambda prefix: st.text(max_size=20).map(lambda rest: prefix + rest)),
        st.text(max_size=30),
    ),
    max_size=20,
)


@given(diff_lines)
def test_any_text_parses_without_crashing(lines: list[str]) -> None:
    text = "\n".join(lines)
    files = parse_diff(text)
    assert len(files) == sum(1 for line in text.split("\n") if line.startswith("diff --git "))


def test_real_git_output() -> None:
    files = parse_diff((SAMPLES / "real_git.diff").read_text(encoding="utf-8"))
    assert [(f.old_path, f.new_path, f.change) for f in files] == [
        (".eval_results/blob.bin", ".eval_results/blob.bin", Change.MODIFIED),
        (".eval_results/aime_2026.yaml", ".eval_results/gpqa.yaml", Change.RENAMED),
        (".eval_results/hle.yaml", ".eval_results/hle.yaml", Change.MODIFIED),
        (".eval_results/MMLU_Pro.yaml", ".eval_results/mmlu_pro.yaml", Change.RENAMED),
        (None, ".eval_results/mmmu pro é.yaml", Change.ADDED),
        (None, ".eval_results/sub.yml", Change.ADDED),
    ]
    assert files[2].added_text == "  value: 20.1"
    assert (files[4].added_text or "").startswith("- dataset:\n    id: MMMU/MMMU_Pro")
    present, removed, misplaced = classify_changes(files)
    assert present == (
        ".eval_results/gpqa.yaml",
        ".eval_results/hle.yaml",
        ".eval_results/mmlu_pro.yaml",
        ".eval_results/mmmu pro é.yaml",
    )
    assert removed == (".eval_results/MMLU_Pro.yaml", ".eval_results/aime_2026.yaml")
    assert misplaced == (".eval_results/blob.bin", ".eval_results/sub.yml")


def test_real_git_output_with_lfs_pointers_and_a_symlink() -> None:
    """An LFS file's diff is its pointer: its added text is unknown, never the pointer's lines.
    A symlink is an added file whose content is the link text."""
    files = parse_diff((SAMPLES / "real_git_lfs_symlink.diff").read_text(encoding="utf-8"))
    assert [(f.old_path, f.new_path, f.change, f.added_text) for f in files] == [
        (".eval_results/hle.yaml", ".eval_results/hle.yaml", Change.MODIFIED, None),
        (None, ".eval_results/link.yaml", Change.ADDED, "../README.md"),
        (None, ".eval_results/new_lfs.yaml", Change.ADDED, None),
    ]
    assert classify_changes(files)[0] == (
        ".eval_results/hle.yaml",
        ".eval_results/link.yaml",
        ".eval_results/new_lfs.yaml",
    )


@given(st.binary(max_size=200))
def test_only_exact_pointers_are_lfs_pointers(content: bytes) -> None:
    oid = hashlib.sha256(content).hexdigest()
    pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {len(content)}\n"
    assert is_lfs_pointer(pointer)
    assert is_lfs_pointer(pointer.rstrip("\n"))  # as a diff's lines join
    assert not is_lfs_pointer("- value: 1\n" + pointer)
    assert not is_lfs_pointer(pointer.replace("sha256:", "sha1:"))
