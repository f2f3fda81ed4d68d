"""The emulator's records: accounts, tokens, repos with their history, discussions, webhooks.

Plain mutable dataclasses, owned by `HubState` and only changed under its lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from evalbot_dev.emulator.git import Commit

RepoType = Literal["model", "dataset", "space"]
REPO_TYPES: tuple[RepoType, ...] = ("model", "dataset", "space")

#: What a token may do, in the Hub's fine-grained vocabulary.
READ = "repo.content.read"
WRITE = "repo.write"
DISCUSS = "discussion.write"
ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    "read": frozenset({READ}),
    "write": frozenset({READ, WRITE, DISCUSS}),
}
#: Org roles that may write to the org's repos (`contributor` only to its own: not modelled).
WRITE_ROLES = frozenset({"write", "admin"})


@dataclass
class Account:
    id: str
    name: str
    kind: Literal["user", "org"]
    fullname: str
    email: str | None = None
    is_pro: bool = False


@dataclass(frozen=True)
class Token:
    value: str
    user: str
    role: Literal["read", "write", "fineGrained"]
    permissions: frozenset[str]
    display_name: str
    #: A Trusted Publishers token: the one repo (`type`, `ns/name`) it may change, and when it
    #: stops working (seconds since the epoch). None for an ordinary access token.
    repo_scope: tuple[str, str] | None = None
    expires_at: float | None = None


@dataclass(frozen=True)
class Publisher:
    """A workflow registered on a repo as a trusted publisher: an ID token from `issuer` whose
    claims equal every one of `claims` may be exchanged for a token scoped to that repo."""

    issuer: str
    claims: tuple[tuple[str, str], ...]
    read_only: bool = False


@dataclass
class Event:
    """One entry of a discussion's timeline. `data` is the Hub's `data` object for its type."""

    id: str
    type: str
    created_at: datetime
    author: str
    data: dict[str, Any]


@dataclass
class Discussion:
    id: str
    num: int
    title: str
    status: Literal["draft", "open", "closed", "merged"]
    is_pull_request: bool
    author: str
    created_at: datetime
    events: list[Event] = field(default_factory=list)
    base_ref: str = "refs/heads/main"
    #: The commit the PR branched from: the base of its diff and of the merge.
    base_sha: str | None = None
    merge_commit: str | None = None
    pinned: bool = False
    locked: bool = False

    @property
    def git_ref(self) -> str:
        return f"refs/pr/{self.num}"


@dataclass
class Repo:
    id: str
    type: RepoType
    namespace: str
    name: str
    private: bool
    created_at: datetime
    last_modified: datetime
    tags: list[str] = field(default_factory=list)
    #: Gated repos: info is public, files need access ("auto" or "manual" as the Hub reports).
    gated: Literal[False, "auto", "manual"] = False
    #: Users granted access to a gated repo (besides those who can write to it).
    granted: set[str] = field(default_factory=set)
    blobs: dict[str, bytes] = field(default_factory=dict)
    #: LFS objects by sha256: the bytes a pointer blob of `blobs` names (evalbot_dev.emulator.lfs).
    lfs_objects: dict[str, bytes] = field(default_factory=dict)
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tag_refs: dict[str, str] = field(default_factory=dict)
    #: refs/pr/N -> head sha, kept apart from `discussions` because refs can be deleted.
    pr_refs: dict[int, str] = field(default_factory=dict)
    discussions: dict[int, Discussion] = field(default_factory=dict)
    next_discussion_num: int = 1

    @property
    def full_name(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def main_sha(self) -> str | None:
        return self.branches.get("main")


@dataclass
class Webhook:
    id: str
    owner: str
    url: str
    watched: list[dict[str, str]]
    domains: list[str]
    secret: str | None
    disabled: bool = False
