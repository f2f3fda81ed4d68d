"""Which files a PR touches, read from the git unified diff the Hub returns with its details.

`GET …/discussions/{num}?diff=1` already carries the PR's diff (docs/hub-api.md#discussion-details),
so reading it costs no extra call, where a tree listing at head and at base would cost two. This
module is pure: text in, `DiffFile`s out.

What a git diff can hold, and how each case is read:
- `--- a/<old>` / `+++ b/<new>` in a file header give the paths; `/dev/null` marks an added or
  removed file. They count only in the header (before the first `@@`): inside a hunk, a removed
  line that reads `-- a/x` would look like a header.
- `rename from`/`rename to` (and `copy from`/`copy to`): a rename without content change has no
  `---`/`+++` lines at all; neither do binary files or pure mode changes, for which the
  `diff --git a/<old> b/<new>` line itself is parsed.
- Paths with unusual bytes are C-quoted by git (`"a/caf\\303\\251.yaml"`): unquoted here. A
  single trailing tab (added by some diff writers after a path with spaces) is dropped.

Added lines (`+` in hunks) are kept per file: the token provenance lookup asks whether a token
was introduced by the PR at all without reading any file (`bot.hub.provenance`). A file stored
in LFS shows its pointer in the diff (`version https://git-lfs.github.com/spec/v1`, `oid
sha256:…`, `size …`), not its content: its added text is unknown (None), never the pointer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Change(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    REMOVED = "removed"
    RENAMED = "renamed"


@dataclass(frozen=True, slots=True)
class DiffFile:
    """One file of a diff. `old_path` is None for an added file, `new_path` for a removed one."""

    old_path: str | None
    new_path: str | None
    change: Change
    #: The `+` lines of its hunks, joined by newlines, without the `+`; None when unknown (a
    #: change found by comparing trees rather than read from a diff).
    added_text: str | None = None


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_git_path(text: str) -> str:
    """Undo git's C-style quoting of a path (`core.quotePath`); plain paths pass unchanged."""
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    body = text[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 >= len(body):
            out.extend(char.encode("utf-8"))
            i += 1
            continue
        nxt = body[i + 1]
        octal = body[i + 1 : i + 4]
        if len(octal) == 3 and all(digit in "01234567" for digit in octal):
            out.append(int(octal, 8) & 0xFF)
            i += 4
        elif nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.extend(nxt.encode("utf-8"))
            i += 2
    return out.decode("utf-8", errors="replace")


def _strip_prefix(path: str, prefix: str) -> str | None:
    """`a/x` -> `x`; `/dev/null` -> None. Quoted paths are unquoted first."""
    path = path.removesuffix("\t")
    path = unquote_git_path(path)
    if path == "/dev/null":
        return None
    return path.removeprefix(prefix)


def _paths_from_git_line(rest: str) -> tuple[str | None, str | None]:
    """Paths from `diff --git <rest>`: `a/x b/y`, either side possibly quoted."""
    if rest.startswith('"'):
        end = _closing_quote(rest, 0)
        old = rest[: end + 1]
        new = rest[end + 1 :].strip()
        return _strip_prefix(old, "a/"), _strip_prefix(new, "b/")
    if rest.endswith('"'):
        start = rest.rfind(' "')
        return _strip_prefix(rest[:start], "a/"), _strip_prefix(rest[start + 1 :], "b/")
    # Unquoted with spaces is ambiguous in general; git only emits it for same-path changes
    # (a rename always has `rename from/to` lines), so split in the middle.
    half = (len(rest) - 1) // 2
    old, new = rest[:half], rest[half + 1 :]
    if old.startswith("a/") and new.startswith("b/") and old[2:] == new[2:]:
        return old[2:], new[2:]
    old, _, new = rest.partition(" b/")
    return old.removeprefix("a/"), new


def _closing_quote(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return len(text) - 1


_LFS_POINTER = re.compile(
    r"version https://git-lfs\.github\.com/spec/v1\noid sha256:[0-9a-f]{64}\nsize \d+\n?"
)


def is_lfs_pointer(text: str) -> bool:
    """Whether `text` is a git-lfs pointer (spec v1), the blob git holds for an LFS file."""
    return _LFS_POINTER.fullmatch(text) is not None


class _Block:
    def __init__(self, git_line: str) -> None:
        self.git_old, self.git_new = _paths_from_git_line(git_line)
        self.old: str | None = None
        self.new: str | None = None
        self.saw_minus = self.saw_plus = False
        self.new_file = self.deleted_file = self.renamed = False
        self.in_hunks = False
        self.added: list[str] = []
        self.new_side: list[str] = []  # context and added lines: the new file, for a short one

    def feed(self, line: str) -> None:
        if self.in_hunks:
            if line.startswith("+"):
                self.added.append(line[1:])
            if line.startswith(("+", " ")):
                self.new_side.append(line[1:])
            return
        if line.startswith("@@"):
            self.in_hunks = True
        elif line.startswith("--- "):
            self.saw_minus, self.old = True, _strip_prefix(line[4:], "a/")
        elif line.startswith("+++ "):
            self.saw_plus, self.new = True, _strip_prefix(line[4:], "b/")
        elif line.startswith(("rename from ", "copy from ")):
            self.renamed = line.startswith("rename")
            self.old = unquote_git_path(line.split(" ", 2)[2])
            self.saw_minus = True
        elif line.startswith(("rename to ", "copy to ")):
            self.new = unquote_git_path(line.split(" ", 2)[2])
            self.saw_plus = True
        elif line.startswith("new file mode"):
            self.new_file = True
        elif line.startswith("deleted file mode"):
            self.deleted_file = True

    def finish(self) -> DiffFile:
        old = self.old if self.saw_minus else self.git_old
        new = self.new if self.saw_plus else self.git_new
        if self.new_file:
            old = None
        if self.deleted_file:
            new = None
        if old is None:
            change = Change.ADDED
        elif new is None:
            change = Change.REMOVED
        elif old != new:
            change = Change.RENAMED if self.renamed or not self.new_file else Change.ADDED
        else:
            change = Change.MODIFIED
        pointer = is_lfs_pointer("\n".join(self.new_side))
        return DiffFile(old, new, change, None if pointer else "\n".join(self.added))


def parse_diff(diff: str) -> list[DiffFile]:
    """Every file of a git unified diff, in diff order."""
    files: list[DiffFile] = []
    block: _Block | None = None
    # Split on "\n" only: git separates lines so, and a form feed or U+2028 inside a file's
    # content must not start a new (possibly header-looking) line.
    for line in diff.split("\n"):
        if line.startswith("diff --git "):
            if block is not None:
                files.append(block.finish())
            block = _Block(line[len("diff --git ") :])
        elif block is not None:
            block.feed(line)
    if block is not None:
        files.append(block.finish())
    return files
