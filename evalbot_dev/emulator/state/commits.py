"""Commits as `huggingface_hub` sends them: to a branch, to a new PR, to an open PR; refs."""

from __future__ import annotations

from typing import Literal

from evalbot_dev.emulator import access, hub_texts
from evalbot_dev.emulator.errors import REVISION_NOT_FOUND, HubError
from evalbot_dev.emulator.git import Commit
from evalbot_dev.emulator.model import (
    DISCUSS,
    WRITE,
    Discussion,
    Repo,
    Token,
)
from evalbot_dev.emulator.state.base import (
    _PR_REF,
    CommitOutcome,
    FileChange,
    Trigger,
)
from evalbot_dev.emulator.state.discussions import Discussions


class Commits(Discussions):
    """Commits as `huggingface_hub` sends them: to a branch, to a new PR, to an open PR; refs."""

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
                    404, hub_texts.REVISION_NOT_FOUND.format(revision=revision), REVISION_NOT_FOUND
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
                raise HubError(409, hub_texts.REF_EXISTS.format(kind=kind, name=name))
            target = self.resolve(repo, revision)
            refs[name] = target.sha
            ref = f"refs/heads/{name}" if kind == "branch" else f"refs/tags/{name}"
            self._emit(
                Trigger("repo.content", "update", repo, updated_refs=((ref, None, target.sha),))
            )
            return target

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
            raise HubError(400, hub_texts.CREATE_PR_ON_BRANCH_ONLY)
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
        self._announce_new_pr(repo, discussion, commit.sha)
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
                hub_texts.REVISION_NOT_FOUND.format(revision=discussion.git_ref),
                REVISION_NOT_FOUND,
            )
        if discussion.status in ("merged", "closed"):
            raise HubError(
                403, hub_texts.PR_NOT_OPEN.format(num=discussion.num, status=discussion.status)
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
