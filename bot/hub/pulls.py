"""A PR as the Hub describes it, pure: its details parsed leniently (the client's own parser is
stricter and drops the author flags the bot needs), the files its diff touches, and which are
results files (docs/hub.md, "Result files", "The diff")."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from bot.validation.model import same_hub_name

RESULTS_DIR = ".eval_results"


class PathKind(StrEnum):
    RESULTS = "results"  # the Hub reads it
    MISPLACED = "misplaced"  # looks meant as results, but the Hub will not read it
    OTHER = "other"


def classify_path(path: str) -> PathKind:
    segments = path.split("/")
    if not any(segment.lower() == RESULTS_DIR for segment in segments):
        return PathKind.OTHER
    if any(segment in ("", ".", "..") for segment in segments):
        return PathKind.MISPLACED
    if (
        len(segments) == 2
        and segments[0] == RESULTS_DIR
        and segments[1].endswith(".yaml")
        and len(segments[1]) > len(".yaml")
    ):
        return PathKind.RESULTS
    return PathKind.MISPLACED


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


class PrStatus(StrEnum):
    OPEN = "open"
    DRAFT = "draft"
    MERGED = "merged"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class PrCommit:
    """A `commit` event of the PR timeline: `created_at` is when the Hub recorded the push."""

    oid: str
    created_at: datetime | None  # None only if the Hub sent an unreadable time
    parents: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PrComment:
    """A comment of the PR timeline, with the author flags the Hub computes for this repo."""

    id: str
    author: str  # user name; "deleted" when the Hub gives none
    raw: str  # the markdown source of the latest version ("" when hidden)
    created_at: datetime | None = None
    author_id: str | None = None  # the ObjectId webhooks name authors by
    hidden: bool = False
    edited: bool = False
    is_owner: bool = False
    is_org_member: bool = False

    def by_maintainer(self, repo_id: str, allow_list: Collection[str] = ()) -> bool:
        """Whether the author may command the bot on `repo_id` (docs/decisions.md#commands).

        The repo owner (the Hub's `isOwner` flag, or the user the repo's namespace names), a
        member of the owning org (`isOrgMember`; note it does not imply write access,
        docs/hub-api.md#maintainers), or a user on the configured allow-list. Names compare
        case-insensitively, as the Hub treats them; a deleted author never qualifies.
        """
        if self.author == "deleted":
            return False
        namespace = repo_id.split("/", 1)[0]
        return (
            self.is_owner
            or self.is_org_member
            or any(same_hub_name(self.author, name) for name in (namespace, *allow_list))
        )


@dataclass(frozen=True, slots=True)
class PullRequest:
    """One PR (or discussion) as read at one moment, with its files classified.

    `head_sha` is None for a discussion (not a PR). `result_files` are the
    `.eval_results/*.yaml` files present at the head that the PR adds, changes or renames into
    place; `removed_result_files` those it deletes or renames away; `misplaced_files` paths
    under `.eval_results` the Hub will not read (`bot.hub.pulls`).
    """

    repo_id: str
    num: int
    is_pull_request: bool
    status: PrStatus
    head_sha: str | None
    target_branch: str | None = None
    author: str | None = None
    #: The author's account id (immutable, unlike the name); None when the Hub gave none.
    author_id: str | None = None
    title: str | None = None  # as its author wrote it: untrusted text, escaped where shown
    commits: tuple[PrCommit, ...] = ()
    comments: tuple[PrComment, ...] = ()
    result_files: tuple[str, ...] = ()
    removed_result_files: tuple[str, ...] = ()
    misplaced_files: tuple[str, ...] = ()
    diff_files: tuple[DiffFile, ...] = field(default=(), repr=False)
    has_diff: bool = True

    @property
    def touches_results(self) -> bool:
        return bool(self.result_files or self.removed_result_files or self.misplaced_files)

    def comment(self, comment_id: str) -> PrComment | None:
        """The comment with this id (webhooks carry only the id; ids compare case-insensitively)."""
        wanted = comment_id.lower()
        return next((c for c in self.comments if c.id.lower() == wanted), None)

    def find_bot_comment(self, bot_name: str, marker: str) -> PrComment | None:
        """The bot's own report: the latest visible comment by `bot_name` holding `marker`.

        Both conditions matter: anyone can paste the marker, and the bot writes other comments
        (help replies) without it.
        """
        for candidate in reversed(self.comments):
            if (
                same_hub_name(candidate.author, bot_name)
                and not candidate.hidden
                and marker in candidate.raw
            ):
                return candidate
        return None

    def may_replace(self, existing_head: str | None, new_head: str) -> bool:
        """Whether a report for `new_head` may overwrite one for `existing_head`.

        A report never goes back in time: it may replace one whose head is unknown (no marker,
        or a commit this timeline no longer lists, e.g. after a force-push), the same head (a
        recheck), or an older commit of the timeline; not a newer one.
        """
        order = {commit.oid: index for index, commit in enumerate(self.commits)}
        if existing_head is None or existing_head not in order:
            return True
        if new_head not in order:
            return False  # ours is not in the timeline the existing report's head is in
        return order[new_head] >= order[existing_head]

    def added_text(self, path: str) -> str | None:
        """The lines the PR adds to `path`; None when unknown (no diff, or not in it)."""
        for diff_file in self.diff_files:
            if diff_file.new_path == path:
                return diff_file.added_text
        return None


def parse_time(value: object) -> datetime | None:
    """The Hub's `2026-01-10T12:00:00.000Z`; None for anything unreadable."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _events(events: object) -> tuple[list[PrCommit], list[PrComment]]:
    commits: list[PrCommit] = []
    comments: list[PrComment] = []
    for item in events if isinstance(events, list) else []:
        event = _mapping(item)
        data = _mapping(event.get("data"))
        author = _mapping(event.get("author"))
        if event.get("type") == "commit" and isinstance(data.get("oid"), str):
            parents = data.get("parents")
            commits.append(
                PrCommit(
                    oid=data["oid"],
                    created_at=parse_time(event.get("createdAt")),
                    parents=tuple(p for p in parents if isinstance(p, str))
                    if isinstance(parents, list)
                    else (),
                )
            )
        elif event.get("type") == "comment" and isinstance(event.get("id"), str):
            raw = _mapping(data.get("latest")).get("raw")
            comments.append(
                PrComment(
                    id=event["id"],
                    author=str(author.get("name") or "deleted"),
                    raw=raw if isinstance(raw, str) else "",
                    created_at=parse_time(event.get("createdAt")),
                    author_id=author.get("_id") if isinstance(author.get("_id"), str) else None,
                    hidden=data.get("hidden") is True,
                    edited=data.get("edited") is True,
                    is_owner=author.get("isOwner") is True,
                    is_org_member=author.get("isOrgMember") is True,
                )
            )
    return commits, comments


def classify_changes(
    files: Sequence[DiffFile],
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(result files present at head, result files removed, misplaced paths), each sorted.

    A rename counts twice: its old path is removed, its new path is present (a rename out of
    `.eval_results` removes a result; a rename into it adds one).
    """
    present: set[str] = set()
    removed: set[str] = set()
    misplaced: set[str] = set()
    for diff_file in files:
        if diff_file.new_path is not None:
            kind = classify_path(diff_file.new_path)
            if kind is PathKind.RESULTS:
                present.add(diff_file.new_path)
            elif kind is PathKind.MISPLACED:
                misplaced.add(diff_file.new_path)
        if (
            diff_file.old_path is not None
            and diff_file.change in (Change.REMOVED, Change.RENAMED)
            and classify_path(diff_file.old_path) is PathKind.RESULTS
        ):
            removed.add(diff_file.old_path)
    return tuple(sorted(present)), tuple(sorted(removed - present)), tuple(sorted(misplaced))


def with_files(pr: PullRequest, files: Sequence[DiffFile]) -> PullRequest:
    """`pr` with its changed files classified."""
    present, removed, misplaced = classify_changes(files)
    return replace(
        pr,
        result_files=present,
        removed_result_files=removed,
        misplaced_files=misplaced,
        diff_files=tuple(files),
    )


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_pull_request(repo_id: str, num: int, details: object) -> PullRequest:
    """The PR in a discussion-details response.

    `head_sha` is the `oid` of the last `commit` event (None when there is none, e.g. an empty
    draft, or for a discussion). Files are classified from `diff` when present; when it is
    absent, `diff_files` is empty and `has_diff` False, and the caller compares trees.
    """
    if not isinstance(details, Mapping) or not isinstance(details.get("isPullRequest"), bool):
        raise ValueError("not a discussion-details object")
    commits, comments = _events(details.get("events"))
    try:
        status = PrStatus(str(details.get("status")))
    except ValueError:
        status = PrStatus.OPEN  # a status this code does not know yet: treat the PR as live
    is_pr = details["isPullRequest"]
    diff = details.get("diff")
    pr = PullRequest(
        repo_id=repo_id,
        num=num,
        is_pull_request=is_pr,
        status=status,
        head_sha=commits[-1].oid if is_pr and commits else None,
        target_branch=_mapping(details.get("changes")).get("base") if is_pr else None,
        author=_mapping(details.get("author")).get("name"),
        author_id=_text_or_none(_mapping(details.get("author")).get("_id")),
        title=details["title"] if isinstance(details.get("title"), str) else None,
        commits=tuple(commits),
        comments=tuple(comments),
        has_diff=isinstance(diff, str),
    )
    if is_pr and isinstance(diff, str):
        return with_files(pr, parse_diff(diff))
    return pr
