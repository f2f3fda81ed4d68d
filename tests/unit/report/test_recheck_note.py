"""The footer's trace of a maintainer's recheck: pure and deterministic."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from bot.report.comment import (
    CommentContext,
    RecheckNote,
    recheck_of_comment,
    render_comment,
)

HEAD = "a" * 40
ASKED = datetime(2026, 11, 24, 18, 3, 7, 250000, tzinfo=UTC)


def context(recheck: RecheckNote | None) -> CommentContext:
    return CommentContext(
        repo_id="alice/model", pr_num=3, head_sha=HEAD, bot_name="evalbot", recheck=recheck
    )


def test_a_recheck_changes_the_comment_naming_who_asked_and_when() -> None:
    plain = render_comment([], context(None))
    asked = render_comment([], context(RecheckNote("65f0aa01", "alice", ASKED)))
    assert plain != asked  # a heard recheck always edits the comment: the trace
    assert "at the request of @alice (comment of 2026-11-24 18:03:07 UTC)" in asked
    assert recheck_of_comment(asked) == "65f0aa01"
    assert recheck_of_comment(plain) is None


def test_the_same_ask_renders_the_same_comment_whatever_the_time_zone() -> None:
    """Deterministic given its inputs: a retry or a later run of the same PR state edits
    nothing (the time is the Hub's time of the asking comment, not the run's)."""
    other_zone = ASKED.astimezone(timezone(timedelta(hours=5)))
    first = render_comment([], context(RecheckNote("65F0AA01", "alice", ASKED)))
    again = render_comment([], context(RecheckNote("65f0aa01", "alice", other_zone)))
    assert first == again


@pytest.mark.parametrize("author", ["<b>x</b>", "zq -->", "x\n# title", "@everyone"])
def test_an_author_that_is_not_a_hub_user_name_is_not_rendered(author: str) -> None:
    body = render_comment([], context(RecheckNote("65f0aa01", author, ASKED)))
    assert author not in body
    assert "at the request of @? " in body


def test_a_comment_id_that_could_break_the_marker_is_refused() -> None:
    with pytest.raises(ValueError, match="not a comment id"):
        RecheckNote("x --> <script>", "alice", ASKED)
