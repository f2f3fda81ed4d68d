"""Git-like objects: blobs named by their git oid, immutable snapshots, commits with 40-hex SHAs.

The emulator does not store real git trees. A commit holds a snapshot (path -> blob oid); its SHA
is the SHA-1 of a git-style commit text over a digest of that snapshot, its parents, author,
time and message, so every distinct commit gets a distinct, stable 40-hex id.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType

Snapshot = Mapping[str, str]
"""A tree at one commit: file path -> blob oid. Folders are implied by the paths."""


def blob_oid(content: bytes) -> str:
    """The git blob id (what the Hub sends as a regular file's `oid` and download `ETag`)."""
    return hashlib.sha1(b"blob %d\x00" % len(content) + content, usedforsecurity=False).hexdigest()


def tree_oid(entries: Iterable[tuple[str, str]]) -> str:
    """A stable id for a folder (or a whole snapshot) from its sorted (path, oid) pairs."""
    digest = hashlib.sha1(b"tree\x00", usedforsecurity=False)
    for path, oid in sorted(entries):
        digest.update(path.encode() + b"\x00" + oid.encode() + b"\n")
    return digest.hexdigest()


@dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    author: str
    date: datetime
    title: str
    message: str
    files: Snapshot = field(repr=False)


def make_commit(
    *,
    files: Mapping[str, str],
    parents: Iterable[str],
    author: str,
    date: datetime,
    title: str,
    message: str,
) -> Commit:
    frozen = MappingProxyType(dict(files))
    parent_list = tuple(parents)
    text = "tree " + tree_oid(frozen.items()) + "\n"
    text += "".join(f"parent {parent}\n" for parent in parent_list)
    text += f"author {author} {date.timestamp():.6f}\n\n{title}\n\n{message}"
    sha = hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()
    return Commit(sha, parent_list, author, date, title, message, frozen)


def changed_paths(before: Snapshot, after: Snapshot) -> set[str]:
    """Paths added, removed or modified between two snapshots."""
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def three_way(base: Snapshot, ours: Snapshot, theirs: Snapshot) -> tuple[dict[str, str], list[str]]:
    """Apply `theirs`' changes since `base` onto `ours`, file by file.

    Returns the merged snapshot and the sorted paths changed on both sides in different ways
    (the Hub's `filesWithConflicts`). A merge with conflicts must not be applied.
    """
    merged = dict(ours)
    conflicts: list[str] = []
    ours_changed = changed_paths(base, ours)
    for path in changed_paths(base, theirs):
        if path in ours_changed and ours.get(path) != theirs.get(path):
            conflicts.append(path)
            continue
        new_oid = theirs.get(path)
        if new_oid is None:
            merged.pop(path, None)
        else:
            merged[path] = new_oid
    return merged, sorted(conflicts)


_NULL_OID = "0" * 7
_C_ESCAPES = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 34: '"', 92: "\\"}


def quote_path(prefixed: str) -> str:
    """A path as git prints it in diffs (`core.quotePath`, on by default).

    A path holding `"`, `\\`, a control character or any non-ASCII byte is put in double
    quotes with C escapes and octal bytes (`"b/caf\\303\\251.yaml"`); other paths, spaces
    included, stay bare.
    """
    raw = prefixed.encode("utf-8")
    if not any(byte < 0x20 or byte >= 0x7F or byte in (34, 92) for byte in raw):
        return prefixed
    out = []
    for byte in raw:
        if byte in _C_ESCAPES:
            out.append("\\" + _C_ESCAPES[byte])
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'


def _label(prefix: str, path: str) -> str:
    """A `---`/`+++` label: git ends it with a tab when the path has a space (for `patch`)."""
    return quote_path(prefix + path) + ("\t" if " " in path else "")


def unified_diff(before: Snapshot, after: Snapshot, blobs: Mapping[str, bytes]) -> str:
    """A `git diff` text of the changes between two snapshots (what PR details carry).

    Paths are quoted as git quotes them, and `---`/`+++` labels of paths with spaces end in
    a tab, as git writes them: the Hub's diff comes from git, and its readers must cope.
    """
    chunks: list[str] = []
    for path in sorted(changed_paths(before, after)):
        old_oid, new_oid = before.get(path), after.get(path)
        header = f"diff --git {quote_path('a/' + path)} {quote_path('b/' + path)}\n"
        old_short = old_oid[:7] if old_oid else _NULL_OID
        new_short = new_oid[:7] if new_oid else _NULL_OID
        if old_oid is None:
            header += f"new file mode 100644\nindex {old_short}..{new_short}\n"
        elif new_oid is None:
            header += f"deleted file mode 100644\nindex {old_short}..{new_short}\n"
        else:
            header += f"index {old_short}..{new_short} 100644\n"
        old_lines = _text_lines(blobs.get(old_oid, b"") if old_oid else b"")
        new_lines = _text_lines(blobs.get(new_oid, b"") if new_oid else b"")
        if old_lines is None or new_lines is None:
            old_name = quote_path("a/" + path) if old_oid else "/dev/null"
            new_name = quote_path("b/" + path) if new_oid else "/dev/null"
            chunks.append(header + f"Binary files {old_name} and {new_name} differ\n")
            continue
        body = difflib.unified_diff(
            old_lines,
            new_lines,
            fromfile=_label("a/", path) if old_oid else "/dev/null",
            tofile=_label("b/", path) if new_oid else "/dev/null",
        )
        chunks.append(
            header + "".join(line if line.endswith("\n") else line + "\n" for line in body)
        )
    return "".join(chunks)


def _text_lines(content: bytes) -> list[str] | None:
    try:
        return content.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None
