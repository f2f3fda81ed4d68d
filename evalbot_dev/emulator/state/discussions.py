"""Discussions and PR timelines: open, comment, edit, hide, change status, rename."""

from __future__ import annotations

from typing import Literal

from evalbot_dev.emulator import access, hub_texts, hubtime
from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.model import (
    DISCUSS,
    Discussion,
    Event,
    Repo,
    Token,
)
from evalbot_dev.emulator.state.base import (
    Trigger,
)
from evalbot_dev.emulator.state.repos import Repos


class Discussions(Repos):
    """Discussions and PR timelines: open, comment, edit, hide, change status, rename."""

    def _discussion(self, repo: Repo, num: int) -> Discussion:
        discussion = repo.discussions.get(num)
        if discussion is None:
            raise HubError(404, hub_texts.DISCUSSION_NOT_FOUND.format(num=num))
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

    def _announce_new_pr(self, repo: Repo, discussion: Discussion, head: str) -> None:
        """The webhooks of a new PR, in the Hub's order: `discussion` `create`, then
        `repo.content` `update` for its ref (`refs/pr/N`), now at `head`."""
        self._emit(Trigger("discussion", "create", repo, discussion, discussion.events[0]))
        refs = ((discussion.git_ref, None, head),)
        self._emit(Trigger("repo.content", "update", repo, updated_refs=refs))

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
                self._announce_new_pr(repo, discussion, start)
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
        raise HubError(404, hub_texts.COMMENT_NOT_FOUND.format(comment_id=comment_id))

    def edit_comment(
        self, token: Token | None, repo: Repo, num: int, comment_id: str, raw: str
    ) -> Event:
        holder = access.require_permission(token, DISCUSS)
        with self.lock:
            discussion = self._discussion(repo, num)
            event = self._comment_event(discussion, comment_id)
            if event.author != holder.user:
                raise HubError(403, hub_texts.FORBIDDEN_COMMENT_EDIT)
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
                403, hub_texts.FORBIDDEN_DISCUSSION.format(num=discussion.num, repo=repo.full_name)
            )

    def change_status(
        self, token: Token | None, repo: Repo, num: int, status: str, comment: str | None
    ) -> Event:
        holder = access.require_permission(token, DISCUSS)
        if status not in ("open", "closed"):
            raise HubError(400, hub_texts.INVALID_STATUS)
        with self.lock:
            discussion = self._discussion(repo, num)
            self._require_discussion_control(holder, repo, discussion)
            if discussion.status == "merged":
                raise HubError(403, hub_texts.PR_NOT_OPEN.format(num=num, status="merged"))
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
