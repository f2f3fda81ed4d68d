"""The reply to `@<bot> help`, and the hidden marker naming the comment it answers."""

from __future__ import annotations

import re

from bot.report import comment_texts
from bot.report.comment import _BOT_NAME_RE


def render_help(bot_name: str, *, reply_to: str | None = None) -> str:
    """The reply to `@<bot> help`: the commands, who may use them, what the badges mean.

    `reply_to` (the asking comment's id) is recorded in a hidden marker, so a retried task can
    see that the reply was already posted (`help_reply_marker`).
    """
    if not _BOT_NAME_RE.fullmatch(bot_name):
        raise ValueError(f"bot name must be a Hub user name, not {bot_name!r}")
    body = comment_texts.HELP.format(marker=comment_texts.HELP_MARKER, bot=bot_name)
    if reply_to is None:
        return body
    return help_reply_marker(reply_to) + "\n" + body


def help_reply_marker(comment_id: str) -> str:
    """The hidden marker naming the comment a help reply answers (ids are Hub ObjectIds)."""
    if not re.fullmatch(r"[0-9A-Za-z_-]{1,64}", comment_id):
        raise ValueError(f"not a comment id: {comment_id!r}")
    return comment_texts.HELP_REPLY_MARKER.format(comment_id=comment_id.lower())
