"""The Hub's state in memory, and every operation that changes it.

All reads and writes go through `HubState` under one re-entrant lock, held only while touching
memory (never during network I/O), so the server's event loop, the webhook workers and a test
thread can use it together. Operations raise `HubError` for anything the Hub would refuse and
report each change that fires webhooks to the registered listeners as a `Trigger`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Literal

from bot.emulator import access, hubtime, texts
from bot.emulator.cdn import Cdn
from bot.emulator.errors import ENTRY_NOT_FOUND, REVISION_NOT_FOUND, HubError
from bot.emulator.git import Commit, blob_oid, make_commit, three_way
from bot.emulator.ids import ObjectIds
from bot.emulator.lfs import LfsObject, pointer_for, stored_object
from bot.emulator.model import (
    DISCUSS,
    READ,
    ROLE_PERMISSIONS,
    WRITE,
    Account,
    Discussion,
    Event,
    Repo,
    RepoType,
    Token,
    Webhook,
)

_SHA = re.compile(r"[0-9a-f]{40}")
_SHORT_SHA = re.compile(r"[0-9a-f]{7,39}")
_PR_REF = re.compile(r"refs/pr/(\d+)")
#: What the Hub commits first in every new repo.
_GITATTRIBUTES = (
    b"*.bin filter=lfs diff=lfs merge=lfs -text\n"
    b"*.safetensors filter=lfs diff=lfs merge=lfs -text\n"
)


@dataclass(frozen=True)
class Trigger:
    """A change that fires webhooks: `(scope, action)` plus the objects the payload describes."""

    scope: str
    action: str
    repo: Repo
    discussion: Discussion | None = None
    comment: Event | None = None
    updated_refs: tuple[tuple[str, str | None, str | None], ...] = ()


@dataclass(frozen=True)
class FileChange:
    """One line of an ndjson commit: content is None for a deletion.

    `lfs`: store the content as an LFS object, with a pointer blob in the tree, as the Hub does
    for a file `.gitattributes` tracks or one uploaded as LFS (bot.emulator.lfs).
    """

    path: str
    content: bytes | None
    folder: bool = False
    lfs: bool = False


@dataclass
class CommitOutcome:
    commit: Commit
    pr_num: int | None = None


Listener = Callable[[Trigger], None]


@dataclass
class HubState:
    benchmark_tag: str = "benchmark:official"
    ids: ObjectIds = field(default_factory=ObjectIds)
    accounts: dict[str, Account] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    members: dict[str, dict[str, str]] = field(default_factory=dict)
    repos: dict[tuple[str, str], Repo] = field(default_factory=dict)
    webhooks: dict[str, Webhook] = field(default_factory=dict)
    #: Where resolve sends LFS downloads (set by `EmulatorServer` once it listens).
    cdn: Cdn = field(default_factory=Cdn)
    listeners: list[Listener] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @contextmanager
    def locked(self) -> Iterator[HubState]:
        with self.lock:
            yield self

    # -- accounts ---------------------------------------------------------------------------

    def add_user(
        self, name: str, *, fullname: str | None = None, email: str | None = None
    ) -> Account:
        with self.lock:
            account = Account(self.ids.new(), name, "user", fullname or name, email)
            self.accounts[name] = account
            return account

    def add_org(self, name: str, members: Mapping[str, str] | None = None) -> Account:
        """An org; `members` maps user name -> role (read, contributor, write, admin)."""
        with self.lock:
            account = Account(self.ids.new(), name, "org", name)
            self.accounts[name] = account
            self.members[name] = dict(members or {})
            return account

    def add_token(
        self,
        value: str,
        user: str,
        role: Literal["read", "write", "fineGrained"] = "write",
        permissions: Iterable[str] | None = None,
        display_name: str | None = None,
    ) -> Token:
        granted = frozenset(permissions or ()) if role == "fineGrained" else ROLE_PERMISSIONS[role]
        token = Token(value, user, role, granted, display_name or f"{user}-{role}")
        with self.lock:
            if user not in self.accounts or self.accounts[user].kind != "user":
                raise ValueError(f"token for unknown user {user!r}")
            self.tokens[value] = token
        return token

    def authenticate(self, authorization: str | None) -> Token | None:
        """The token behind `authorization: Bearer ...`: None when absent, 401 when unknown."""
        if not authorization:
            return None
        scheme, _, value = authorization.partition(" ")
        token = self.tokens.get(value.strip()) if scheme.lower() == "bearer" else None
        if token is None:
            raise HubError(401, texts.INVALID_CREDENTIALS)
        return token

    def account(self, name: str) -> Account:
        return self.accounts[name]

    def ensure_namespace(self, name: str) -> Account:
        """The account owning `name`, created as an empty org when seeding mentions a new one."""
        with self.lock:
            return self.accounts.get(name) or self.add_org(name)

    # -- repos ------------------------------------------------------------------------------

    def repo_key(self, repo_type: str, repo_id: str) -> tuple[str, str]:
        return (repo_type, repo_id.lower())

    def find_repo(self, repo_type: str, repo_id: str) -> Repo:
        """A repo regardless of who asks (for assertions and seeding); KeyError if absent."""
        return self.repos[self.repo_key(repo_type, repo_id)]

    def get_repo(self, token: Token | None, repo_type: str, repo_id: str) -> Repo:
        repo = self.repos.get(self.repo_key(repo_type, repo_id))
        if repo is None:
            raise access.not_found(token)
        access.check_readable(self.members, token, repo)
        return repo

    def create_repo(
        self,
        token: Token | None,
        repo_type: RepoType,
        namespace: str | None,
        name: str,
        *,
        private: bool = False,
    ) -> Repo:
        holder = access.require_permission(token, WRITE)
        owner = namespace or holder.user
        with self.lock:
            if not access.can_write_namespace(self.members, holder.user, owner):
                raise HubError(403, texts.FORBIDDEN_NAMESPACE.format(namespace=owner))
            if self.repo_key(repo_type, f"{owner}/{name}") in self.repos:
                raise HubError(409, texts.REPO_EXISTS.format(repo_type=repo_type))
            repo = self._new_repo(repo_type, owner, name, private=private, author=holder.user)
            self._emit(Trigger("repo", "create", repo))
            return repo

    def seed_repo(
        self,
        repo_type: RepoType,
        repo_id: str,
        files: Mapping[str, bytes],
        *,
        private: bool = False,
        tags: Iterable[str] = (),
        gated: Literal[False, "auto", "manual"] = False,
        granted: Iterable[str] = (),
        author: str | None = None,
        message: str = "Initial commit",
        sha: str | None = None,
        lfs: Iterable[str] = (),
    ) -> Repo:
        """A repo whose second commit (after the Hub's `.gitattributes` one) holds `files`.

        `sha` pins that commit's id: a copy of a real repo can then be read at the revision
        that real files name (an entry's `dataset.revision`), which no content hash here
        would produce. The paths in `lfs` are stored as LFS objects.
        """
        if sha is not None and not _SHA.fullmatch(sha):
            raise ValueError(f"a pinned commit must be a 40-hex SHA, not {sha!r}")
        namespace, name = repo_id.split("/", 1)
        lfs_paths = set(lfs)
        if lfs_paths - set(files):
            raise ValueError(f"LFS paths not among the files: {sorted(lfs_paths - set(files))}")
        with self.lock:
            self.ensure_namespace(namespace)
            repo = self._new_repo(
                repo_type, namespace, name, private=private, author=author or namespace
            )
            repo.tags.extend(tags)
            repo.gated = gated
            repo.granted.update(granted)
            if files:
                changes = [
                    FileChange(path, content, lfs=path in lfs_paths)
                    for path, content in sorted(files.items())
                ]
                self._apply_commit(
                    repo,
                    "main",
                    changes,
                    author=author or namespace,
                    summary=message,
                    description="",
                )
            if sha is not None:
                head = repo.commits.pop(repo.branches["main"])
                repo.commits[sha] = replace(head, sha=sha)
                repo.branches["main"] = sha
            return repo

    def _new_repo(
        self, repo_type: RepoType, namespace: str, name: str, *, private: bool, author: str
    ) -> Repo:
        moment = hubtime.now()
        repo = Repo(self.ids.new(), repo_type, namespace, name, private, moment, moment)
        initial = _GITATTRIBUTES
        oid = blob_oid(initial)
        repo.blobs[oid] = initial
        commit = make_commit(
            files={".gitattributes": oid},
            parents=(),
            author=author,
            date=moment,
            title="initial commit",
            message="",
        )
        repo.commits[commit.sha] = commit
        repo.branches["main"] = commit.sha
        self.repos[self.repo_key(repo_type, repo.full_name)] = repo
        return repo

    def resolve(self, repo: Repo, revision: str) -> Commit:
        """The commit a revision names: branch, tag, `refs/...`, `refs/pr/N`, or a (short) SHA."""
        with self.lock:
            sha = self._resolve_sha(repo, revision)
            if sha is None:
                raise HubError(
                    404, texts.REVISION_NOT_FOUND.format(revision=revision), REVISION_NOT_FOUND
                )
            return repo.commits[sha]

    def _resolve_sha(self, repo: Repo, revision: str) -> str | None:
        if revision.startswith("refs/heads/"):
            return repo.branches.get(revision.removeprefix("refs/heads/"))
        if revision.startswith("refs/tags/"):
            return repo.tag_refs.get(revision.removeprefix("refs/tags/"))
        if match := _PR_REF.fullmatch(revision):
            return repo.pr_refs.get(int(match[1]))
        if revision in repo.branches:
            return repo.branches[revision]
        if revision in repo.tag_refs:
            return repo.tag_refs[revision]
        if _SHA.fullmatch(revision):
            return revision if revision in repo.commits else None
        if _SHORT_SHA.fullmatch(revision):
            found = [sha for sha in repo.commits if sha.startswith(revision)]
            return found[0] if len(found) == 1 else None
        return None

    def read_file(self, repo: Repo, commit: Commit, path: str) -> tuple[str, bytes]:
        """The git blob at `path` (for an LFS file: its pointer) and its oid."""
        oid = commit.files.get(path)
        if oid is None:
            raise HubError(404, texts.ENTRY_NOT_FOUND, ENTRY_NOT_FOUND)
        return oid, repo.blobs[oid]

    def lfs_object(self, repo: Repo, blob_oid: str) -> LfsObject | None:
        """The LFS object a blob points at; None for a regular blob (or an unknown object)."""
        with self.lock:
            return stored_object(repo, blob_oid)

    def lfs_content(self, repo: Repo, sha256: str) -> bytes | None:
        with self.lock:
            return repo.lfs_objects.get(sha256)

    # -- commits ----------------------------------------------------------------------------

    def commit(
        self,
        token: Token | None,
        repo: Repo,
        revision: str,
        changes: list[FileChange],
        *,
        summary: str,
        description: str,
        parent_commit: str | None = None,
        create_pr: bool = False,
    ) -> CommitOutcome:
        """An ndjson commit: onto a branch, onto `refs/pr/N`, or onto a new PR (`create_pr`)."""
        with self.lock:
            if create_pr:
                holder = access.require_permission(token, DISCUSS)
                return self._commit_new_pr(
                    holder,
                    repo,
                    revision,
                    changes,
                    summary=summary,
                    description=description,
                    parent=parent_commit,
                )
            if match := _PR_REF.fullmatch(revision):
                discussion = self._discussion(repo, int(match[1]))
                holder = access.require_permission(token, DISCUSS)
                if holder.user != discussion.author:
                    access.require_repo_write(self.members, holder, repo, WRITE)
                return self._commit_to_pr(
                    holder,
                    repo,
                    discussion,
                    changes,
                    summary=summary,
                    description=description,
                    parent=parent_commit,
                )
            holder = access.require_repo_write(self.members, token, repo, WRITE)
            branch = revision.removeprefix("refs/heads/")
            if branch not in repo.branches:
                raise HubError(
                    404, texts.REVISION_NOT_FOUND.format(revision=revision), REVISION_NOT_FOUND
                )
            old = repo.branches[branch]
            self._check_parent(parent_commit, old, revision)
            commit = self._apply_commit(
                repo, branch, changes, author=holder.user, summary=summary, description=description
            )
            self._emit(
                Trigger(
                    "repo.content",
                    "update",
                    repo,
                    updated_refs=((f"refs/heads/{branch}", old, commit.sha),),
                )
            )
            return CommitOutcome(commit)

    def create_ref(
        self,
        token: Token | None,
        repo: Repo,
        kind: Literal["branch", "tag"],
        name: str,
        revision: str,
    ) -> Commit:
        """A new branch or tag at `revision` (a `repo.content` change, like any new ref)."""
        access.require_repo_write(self.members, token, repo, WRITE)
        with self.lock:
            refs = repo.branches if kind == "branch" else repo.tag_refs
            if name in refs:
                raise HubError(409, texts.REF_EXISTS.format(kind=kind, name=name))
            target = self.resolve(repo, revision)
            refs[name] = target.sha
            ref = f"refs/heads/{name}" if kind == "branch" else f"refs/tags/{name}"
            self._emit(
                Trigger("repo.content", "update", repo, updated_refs=((ref, None, target.sha),))
            )
            return target

    def _check_parent(self, parent: str | None, head: str, revision: str) -> None:
        if parent is not None and not head.startswith(parent):
            raise HubError(
                412,
                texts.PARENT_COMMIT_MISMATCH.format(parent=parent, revision=revision, head=head),
            )

    def _apply_commit(
        self,
        repo: Repo,
        branch: str | None,
        changes: list[FileChange],
        *,
        author: str,
        summary: str,
        description: str,
        start: str | None = None,
    ) -> Commit:
        parent_sha = start if start is not None else repo.branches[branch or "main"]
        files = dict(repo.commits[parent_sha].files)
        for change in changes:
            if change.content is None:
                prefix = change.path.rstrip("/") + "/"
                doomed = [
                    p for p in files if p == change.path or (change.folder and p.startswith(prefix))
                ]
                if not doomed:
                    raise HubError(
                        404, texts.DELETE_MISSING_FILE.format(path=change.path), ENTRY_NOT_FOUND
                    )
                for path in doomed:
                    del files[path]
            else:
                blob = change.content
                if change.lfs:
                    stored, blob = pointer_for(change.content)
                    repo.lfs_objects.setdefault(stored.oid, change.content)
                oid = blob_oid(blob)
                repo.blobs.setdefault(oid, blob)
                files[change.path] = oid
        commit = make_commit(
            files=files,
            parents=(parent_sha,),
            author=author,
            date=hubtime.now(),
            title=summary,
            message=description,
        )
        repo.commits[commit.sha] = commit
        if branch is not None:
            repo.branches[branch] = commit.sha
        repo.last_modified = commit.date
        return commit

    def _commit_new_pr(
        self,
        holder: Token,
        repo: Repo,
        revision: str,
        changes: list[FileChange],
        *,
        summary: str,
        description: str,
        parent: str | None,
    ) -> CommitOutcome:
        branch = revision.removeprefix("refs/heads/")
        if branch not in repo.branches:
            raise HubError(400, texts.CREATE_PR_ON_BRANCH_ONLY)
        start = parent if parent is not None and parent in repo.commits else repo.branches[branch]
        commit = self._apply_commit(
            repo,
            None,
            changes,
            author=holder.user,
            summary=summary,
            description=description,
            start=start,
        )
        discussion = self._new_discussion(
            repo,
            holder.user,
            title=summary,
            description=description or summary,
            is_pr=True,
            status="open",
        )
        discussion.base_ref = f"refs/heads/{branch}"
        discussion.base_sha = start
        repo.pr_refs[discussion.num] = commit.sha
        self._add_event(
            discussion,
            holder.user,
            "commit",
            {"subject": summary, "oid": commit.sha, "parents": [start]},
        )
        self._emit(Trigger("discussion", "create", repo, discussion, discussion.events[0]))
        self._emit(
            Trigger(
                "repo.content",
                "update",
                repo,
                updated_refs=((discussion.git_ref, None, commit.sha),),
            )
        )
        return CommitOutcome(commit, discussion.num)

    def _commit_to_pr(
        self,
        holder: Token,
        repo: Repo,
        discussion: Discussion,
        changes: list[FileChange],
        *,
        summary: str,
        description: str,
        parent: str | None,
    ) -> CommitOutcome:
        if discussion.num not in repo.pr_refs:
            raise HubError(
                404,
                texts.REVISION_NOT_FOUND.format(revision=discussion.git_ref),
                REVISION_NOT_FOUND,
            )
        if discussion.status in ("merged", "closed"):
            raise HubError(
                403, texts.PR_NOT_OPEN.format(num=discussion.num, status=discussion.status)
            )
        old = repo.pr_refs[discussion.num]
        self._check_parent(parent, old, discussion.git_ref)
        commit = self._apply_commit(
            repo,
            None,
            changes,
            author=holder.user,
            summary=summary,
            description=description,
            start=old,
        )
        repo.pr_refs[discussion.num] = commit.sha
        self._add_event(
            discussion,
            holder.user,
            "commit",
            {"subject": summary, "oid": commit.sha, "parents": [old]},
        )
        self._emit(
            Trigger(
                "repo.content",
                "update",
                repo,
                updated_refs=((discussion.git_ref, old, commit.sha),),
            )
        )
        return CommitOutcome(commit)

    # -- discussions ------------------------------------------------------------------------

    def _discussion(self, repo: Repo, num: int) -> Discussion:
        discussion = repo.discussions.get(num)
        if discussion is None:
            raise HubError(404, texts.DISCUSSION_NOT_FOUND.format(num=num))
        return discussion

    def discussion(self, repo: Repo, num: int) -> Discussion:
        with self.lock:
            return self._discussion(repo, num)

    def _new_discussion(
        self,
        repo: Repo,
        author: str,
        *,
        title: str,
        description: str,
        is_pr: bool,
        status: Literal["draft", "open"],
    ) -> Discussion:
        num = repo.next_discussion_num
        repo.next_discussion_num += 1
        discussion = Discussion(self.ids.new(), num, title, status, is_pr, author, hubtime.now())
        repo.discussions[num] = discussion
        self._add_comment(discussion, author, description)
        return discussion

    def _add_event(
        self, discussion: Discussion, author: str, kind: str, data: dict[str, object]
    ) -> Event:
        event = Event(self.ids.new(), kind, hubtime.now(), author, dict(data))
        discussion.events.append(event)
        return event

    def _add_comment(self, discussion: Discussion, author: str, raw: str) -> Event:
        moment = hubtime.now()
        return self._add_event(
            discussion,
            author,
            "comment",
            {
                "edited": False,
                "hidden": False,
                "raw": raw,
                "updatedAt": moment,
                "editor": author,
                "history": [{"raw": raw, "author": author, "updatedAt": moment}],
                "hiddenBy": None,
            },
        )

    def create_discussion(
        self, token: Token | None, repo: Repo, title: str, description: str, pull_request: bool
    ) -> Discussion:
        holder = access.require_permission(token, DISCUSS)
        with self.lock:
            if pull_request:
                # "Pull Requests created programmatically will be in draft status"
                # (docs/hub-api.md#webhook-events)
                discussion = self._new_discussion(
                    repo,
                    holder.user,
                    title=title,
                    description=description,
                    is_pr=True,
                    status="draft",
                )
                start = repo.branches["main"]
                discussion.base_sha = start
                repo.pr_refs[discussion.num] = start
                self._emit(Trigger("discussion", "create", repo, discussion, discussion.events[0]))
                self._emit(
                    Trigger(
                        "repo.content",
                        "update",
                        repo,
                        updated_refs=((discussion.git_ref, None, start),),
                    )
                )
            else:
                discussion = self._new_discussion(
                    repo,
                    holder.user,
                    title=title,
                    description=description,
                    is_pr=False,
                    status="open",
                )
                self._emit(Trigger("discussion", "create", repo, discussion, discussion.events[0]))
            return discussion

    def comment(self, token: Token | None, repo: Repo, num: int, raw: str) -> Event:
        holder = access.require_permission(token, DISCUSS)
        with self.lock:
            discussion = self._discussion(repo, num)
            event = self._add_comment(discussion, holder.user, raw)
            self._emit(Trigger("discussion.comment", "create", repo, discussion, event))
            return event

    def _comment_event(self, discussion: Discussion, comment_id: str) -> Event:
        for event in discussion.events:
            if event.id == comment_id.lower() and event.type == "comment":
                return event
        raise HubError(404, texts.COMMENT_NOT_FOUND.format(comment_id=comment_id))

    def edit_comment(
        self, token: Token | None, repo: Repo, num: int, comment_id: str, raw: str
    ) -> Event:
        holder = access.require_permission(token, DISCUSS)
        with self.lock:
            discussion = self._discussion(repo, num)
            event = self._comment_event(discussion, comment_id)
            if event.author != holder.user:
                raise HubError(403, texts.FORBIDDEN_COMMENT_EDIT)
            moment = hubtime.now()
            event.data.update(edited=True, raw=raw, updatedAt=moment, editor=holder.user)
            event.data["history"].insert(
                0, {"raw": raw, "author": holder.user, "updatedAt": moment}
            )
            self._emit(Trigger("discussion.comment", "update", repo, discussion, event))
            return event

    def hide_comment(self, token: Token | None, repo: Repo, num: int, comment_id: str) -> Event:
        holder = access.require_permission(token, DISCUSS)
        with self.lock:
            discussion = self._discussion(repo, num)
            event = self._comment_event(discussion, comment_id)
            if event.author != holder.user:
                access.require_repo_write(self.members, holder, repo, DISCUSS)
            event.data.update(hidden=True, hiddenBy=holder.user)
            self._emit(Trigger("discussion.comment", "update", repo, discussion, event))
            return event

    def _require_discussion_control(
        self, holder: Token, repo: Repo, discussion: Discussion
    ) -> None:
        if holder.user != discussion.author and not access.can_write_namespace(
            self.members, holder.user, repo.namespace
        ):
            raise HubError(
                403, texts.FORBIDDEN_DISCUSSION.format(num=discussion.num, repo=repo.full_name)
            )

    def change_status(
        self, token: Token | None, repo: Repo, num: int, status: str, comment: str | None
    ) -> Event:
        holder = access.require_permission(token, DISCUSS)
        if status not in ("open", "closed"):
            raise HubError(400, texts.INVALID_STATUS)
        with self.lock:
            discussion = self._discussion(repo, num)
            self._require_discussion_control(holder, repo, discussion)
            if discussion.status == "merged":
                raise HubError(403, texts.PR_NOT_OPEN.format(num=num, status="merged"))
            if comment:
                posted = self._add_comment(discussion, holder.user, comment)
                self._emit(Trigger("discussion.comment", "create", repo, discussion, posted))
            discussion.status = "open" if status == "open" else "closed"
            event = self._add_event(discussion, holder.user, "status-change", {"status": status})
            self._emit(Trigger("discussion", "update", repo, discussion))
            return event

    def rename(self, token: Token | None, repo: Repo, num: int, title: str) -> Event:
        holder = access.require_permission(token, DISCUSS)
        with self.lock:
            discussion = self._discussion(repo, num)
            self._require_discussion_control(holder, repo, discussion)
            event = self._add_event(
                discussion, holder.user, "title-change", {"from": discussion.title, "to": title}
            )
            discussion.title = title
            self._emit(Trigger("discussion", "update", repo, discussion))
            return event

    def conflicts(self, repo: Repo, discussion: Discussion) -> list[str]:
        with self.lock:
            if (
                not discussion.is_pull_request
                or discussion.status == "merged"
                or discussion.num not in repo.pr_refs
            ):
                return []
            base, ours, theirs = self._merge_sides(repo, discussion)
            return three_way(base.files, ours.files, theirs.files)[1]

    def _merge_sides(self, repo: Repo, discussion: Discussion) -> tuple[Commit, Commit, Commit]:
        branch = discussion.base_ref.removeprefix("refs/heads/")
        base = repo.commits[discussion.base_sha or repo.branches[branch]]
        return base, repo.commits[repo.branches[branch]], repo.commits[repo.pr_refs[discussion.num]]

    def merge(self, token: Token | None, repo: Repo, num: int, comment: str | None) -> Commit:
        holder = access.require_repo_write(self.members, token, repo, WRITE)
        with self.lock:
            discussion = self._discussion(repo, num)
            if not discussion.is_pull_request:
                raise HubError(400, texts.NOT_A_PULL_REQUEST.format(num=num))
            if discussion.status not in ("open", "draft"):
                raise HubError(403, texts.PR_NOT_OPEN.format(num=num, status=discussion.status))
            base, ours, theirs = self._merge_sides(repo, discussion)
            merged, conflicts = three_way(base.files, ours.files, theirs.files)
            if conflicts:
                raise HubError(
                    409,
                    texts.MERGE_CONFLICT.format(
                        num=num, base=discussion.base_ref, files=", ".join(conflicts)
                    ),
                )
            branch = discussion.base_ref.removeprefix("refs/heads/")
            commit = make_commit(
                files=merged,
                parents=(ours.sha,),
                author=holder.user,
                date=hubtime.now(),
                title=texts.MERGE_COMMIT_TITLE.format(title=discussion.title, num=num),
                message=comment or "",
            )
            repo.commits[commit.sha] = commit
            repo.branches[branch] = commit.sha
            repo.last_modified = commit.date
            if comment:
                posted = self._add_comment(discussion, holder.user, comment)
                self._emit(Trigger("discussion.comment", "create", repo, discussion, posted))
            discussion.status = "merged"
            discussion.merge_commit = commit.sha
            self._add_event(discussion, holder.user, "status-change", {"status": "merged"})
            self._emit(Trigger("discussion", "update", repo, discussion))
            self._emit(
                Trigger(
                    "repo.content",
                    "update",
                    repo,
                    updated_refs=((discussion.base_ref, ours.sha, commit.sha),),
                )
            )
            return commit

    def delete_pr_ref(self, repo: Repo, num: int) -> None:
        """The UI's "Delete ref" after a close or merge: later reads of `refs/pr/N` fail."""
        with self.lock:
            old = repo.pr_refs.pop(num)
            ref = f"refs/pr/{num}"
            self._emit(Trigger("repo.content", "update", repo, updated_refs=((ref, old, None),)))

    # -- webhooks ---------------------------------------------------------------------------

    def add_webhook(
        self,
        owner: str,
        url: str,
        watched: list[dict[str, str]],
        domains: list[str],
        secret: str | None,
    ) -> Webhook:
        with self.lock:
            webhook = Webhook(
                self.ids.new(), owner, url, [dict(item) for item in watched], list(domains), secret
            )
            self.webhooks[webhook.id] = webhook
            return webhook

    def webhooks_for(self, trigger: Trigger) -> list[Webhook]:
        """Enabled webhooks that watch the trigger's repo (or its namespace) and its domain."""
        domain = trigger.scope.split(".", 1)[0]
        repo = trigger.repo
        chosen = []
        for webhook in self.webhooks.values():
            if webhook.disabled or domain not in webhook.domains:
                continue
            owner_token = Token("", webhook.owner, "read", frozenset({READ}), "")
            if not access.can_read(self.members, owner_token, repo):
                continue
            for item in webhook.watched:
                kind, name = item.get("type"), item.get("name", "")
                if (kind in ("user", "org") and name == repo.namespace) or (
                    kind == repo.type and name.lower() == repo.full_name.lower()
                ):
                    chosen.append(webhook)
                    break
        return chosen

    def _emit(self, trigger: Trigger) -> None:
        for listener in self.listeners:
            listener(trigger)
