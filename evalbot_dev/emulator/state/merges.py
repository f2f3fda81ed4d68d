"""Merging a PR (three-way, with conflicts as the Hub reports them) and deleting its ref."""

from __future__ import annotations

from evalbot_dev.emulator import access, hub_texts, hubtime
from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.git import Commit, make_commit, three_way
from evalbot_dev.emulator.model import (
    WRITE,
    Discussion,
    Repo,
    Token,
)
from evalbot_dev.emulator.state.base import (
    Trigger,
)
from evalbot_dev.emulator.state.commits import Commits


class Merges(Commits):
    """Merging a PR (three-way, with conflicts as the Hub reports them) and deleting its ref."""

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
                raise HubError(400, hub_texts.NOT_A_PULL_REQUEST.format(num=num))
            if discussion.status not in ("open", "draft"):
                raise HubError(403, hub_texts.PR_NOT_OPEN.format(num=num, status=discussion.status))
            base, ours, theirs = self._merge_sides(repo, discussion)
            merged, conflicts = three_way(base.files, ours.files, theirs.files)
            if conflicts:
                raise HubError(
                    409,
                    hub_texts.MERGE_CONFLICT.format(
                        num=num, base=discussion.base_ref, files=", ".join(conflicts)
                    ),
                )
            branch = discussion.base_ref.removeprefix("refs/heads/")
            commit = make_commit(
                files=merged,
                parents=(ours.sha,),
                author=holder.user,
                date=hubtime.now(),
                title=hub_texts.MERGE_COMMIT_TITLE.format(title=discussion.title, num=num),
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
