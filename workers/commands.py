"""Commands on a PR: the asking comment heard once per run, the `help` reply, the latest
maintainer's recheck a run answers, and the strangers the receiver may then drop without a Hub
call (docs/operating.md, "What is queued"; docs/comment.md, "A maintainer's recheck")."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from dataclasses import dataclass

import redis

from bot.hub.pulls import PrComment, PullRequest
from bot.queue.events import Command, PrEvent, parse_command
from bot.report.help_reply import help_reply_marker, render_help
from bot.store import keys
from bot.validation.model import same_hub_name
from workers.outcomes import Outcome
from workers.pr_lease import Lease


@dataclass(frozen=True, slots=True)
class HeardCommand:
    """A command event as heard on the PR: its word, and the asking comment when the bot heeds
    it (visible, not the bot's, by a maintainer); `comment` None: the ask is ignored."""

    word: Command
    comment: PrComment | None


def hear_command(
    event: PrEvent, pr: PullRequest, bot_name: str, maintainers: Collection[str]
) -> HeardCommand | None:
    """The event's command as heard on `pr`; None when the event carries no command."""
    if event.kind != "command" or event.command is None:
        return None
    comment = pr.comment(event.comment_id) if event.comment_id else None
    if comment is None or comment.hidden or same_hub_name(comment.author, bot_name):
        return HeardCommand(event.command, None)
    if not comment.by_maintainer(pr.repo_id, maintainers):
        return HeardCommand(event.command, None)
    return HeardCommand(event.command, comment)


def answer_help(
    pr: PullRequest, asked: PrComment, bot_name: str, lease: Lease, post: Callable[[str], object]
) -> Outcome:
    """Reply to a maintainer's `help` once: a retry after the Hub accepted the reply finds it by
    its marker (`help_reply_marker`). `post` writes a new comment on the PR."""
    marker = help_reply_marker(asked.id)
    if any(same_hub_name(c.author, bot_name) and marker in c.raw for c in pr.comments):
        return Outcome.HELP_ALREADY_SENT
    lease.still_held()
    post(render_help(bot_name, reply_to=asked.id))
    return Outcome.HELP_SENT


def latest_recheck(
    pr: PullRequest, bot_name: str, maintainers: Collection[str]
) -> PrComment | None:
    """The latest visible `recheck` comment by a maintainer posted after the head commit."""
    head = next((c for c in pr.commits if c.oid == pr.head_sha), None)
    since = head.created_at if head is not None else None
    for comment in reversed(pr.comments):
        if comment.hidden or same_hub_name(comment.author, bot_name):
            continue
        if parse_command(comment.raw, bot_name) != "recheck":
            continue
        if since is not None and comment.created_at is not None and comment.created_at < since:
            return None  # older asks were for an older head (the timeline is in order)
        if comment.by_maintainer(pr.repo_id, maintainers):
            return comment
    return None


def strangers(pr: PullRequest, bot_name: str, maintainers: Collection[str]) -> set[str]:
    """Author ids of the PR's commenters who may not command the bot on this repo."""
    return {
        comment.author_id
        for comment in pr.comments
        if comment.author_id
        and comment.author not in (bot_name, "deleted")
        and not comment.by_maintainer(pr.repo_id, maintainers)
    }


def maintainers_digest(maintainers: Collection[str]) -> str:
    """A short digest of the allow-list (names compare case-insensitively)."""
    canonical = "\n".join(sorted({name.lower() for name in maintainers}))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def remember_strangers(
    client: redis.Redis, repo_id: str, author_ids: Collection[str], digest: str
) -> None:
    """Record `author_ids` as strangers of `repo_id` (one round trip; best effort: a failure
    only means their next command is decided by a worker again)."""
    if not author_ids:
        return
    pipe = client.pipeline(transaction=False)
    pipe.set(keys.MAINTAINERS_DIGEST, digest)
    for author_id in sorted(author_ids):
        pipe.set(keys.stranger(repo_id, author_id), digest, ex=keys.STRANGER_TTL_S)
    try:
        pipe.execute()
    except redis.RedisError:
        return
