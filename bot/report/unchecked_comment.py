"""The living comment of a head that was not checked (its run was parked), in the place of the
verdict an earlier head had."""

from __future__ import annotations

from bot.report import comment_texts
from bot.report.comment import CommentContext, _head_link
from bot.report.escaping import escape_text


def render_unchecked(context: CommentContext, title: str, why: str) -> str:
    """The living comment of a head that was not checked (its run was parked): the same
    markers as a report, so a later run finds and replaces it, and `why`, in the place of the
    verdict an earlier head had. `title` is the report's own (model, benchmark, datastore)."""
    markers = (
        comment_texts.REPORT_MARKER
        + "\n"
        + comment_texts.HEAD_MARKER.format(sha=context.head_sha)
        + "\n"
        + comment_texts.NOT_CHECKED_MARKER
    )
    parts = [markers, title]
    banner = comment_texts.STATE_BANNERS.get(context.pr_state)
    if banner:
        parts.append(banner)
    head = _head_link(context, context.hub_url.rstrip("/"))
    parts.append(comment_texts.NOT_CHECKED.format(head=head, why=escape_text(why, 300)))
    parts.append(comment_texts.NOT_CHECKED_NEXT.format(bot=context.bot_name))
    parts.append(comment_texts.NOT_CHECKED_FOOTER.format(bot=context.bot_name))
    return "\n\n".join(parts)


def is_unchecked(body: str) -> bool:
    """Whether a report comment says its head was not checked (`render_unchecked`)."""
    return comment_texts.NOT_CHECKED_MARKER in body
