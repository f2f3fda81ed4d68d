"""Which recheck a run answers, and who is a stranger (workers/commands.py): pure, plain PRs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.hub.pulls import PrComment, PrCommit, PrStatus, PullRequest
from workers.commands import latest_recheck, maintainers_digest, strangers

T0 = datetime(2026, 11, 24, 18, 0, tzinfo=UTC)
HEAD = "b" * 40


def comment(
    cid: str, author: str, raw: str, minutes: int, *, author_id: str | None = None, **flags: bool
) -> PrComment:
    return PrComment(
        id=cid,
        author=author,
        raw=raw,
        created_at=T0 + timedelta(minutes=minutes),
        author_id=author_id or f"id-{author}",
        **flags,
    )


def pr(*comments: PrComment, head_minutes: int = 0) -> PullRequest:
    return PullRequest(
        repo_id="alice/model",
        num=3,
        is_pull_request=True,
        status=PrStatus.OPEN,
        head_sha=HEAD,
        commits=(
            PrCommit("a" * 40, T0 - timedelta(hours=1)),
            PrCommit(HEAD, T0 + timedelta(minutes=head_minutes)),
        ),
        comments=comments,
    )


def test_the_latest_maintainer_recheck_after_the_head_is_answered() -> None:
    thread = pr(
        comment("c1", "alice", "@evalbot recheck", 1),
        comment("c2", "bob", "@evalbot recheck", 2),  # a stranger: never answered
        comment("c3", "carol", "/evalbot recheck", 3, is_org_member=True),
        comment("c4", "bob", "/evalbot recheck", 4),
    )
    asked = latest_recheck(thread, "evalbot", ())
    assert asked is not None
    assert asked.id == "c3"


def test_asks_before_the_head_was_pushed_were_for_an_older_head() -> None:
    thread = pr(comment("c1", "alice", "@evalbot recheck", 1), head_minutes=5)
    assert latest_recheck(thread, "evalbot", ()) is None


def test_the_allow_list_counts_and_other_comments_and_the_bot_do_not() -> None:
    thread = pr(
        comment("c1", "erin", "@evalbot recheck", 1),
        comment("c2", "alice", "@evalbot recheck please", 2),  # not a command
        comment("c3", "evalbot", "@evalbot recheck", 3),
        comment("c4", "alice", "@evalbot recheck", 4, hidden=True),
    )
    assert latest_recheck(thread, "evalbot", ()) is None
    asked = latest_recheck(thread, "evalbot", ("Erin",))
    assert asked is not None
    assert asked.id == "c1"


def test_strangers_are_the_commenters_who_may_not_command_the_bot() -> None:
    thread = pr(
        comment("c1", "bob", "Adds results", 0),
        comment("c2", "alice", "thanks", 1),
        comment("c3", "carol", "ok", 2, is_org_member=True),
        comment("c4", "evalbot", "report", 3),
        comment("c5", "erin", "hi", 4),
        comment("c6", "deleted", "gone", 5),
    )
    assert strangers(thread, "evalbot", ("erin",)) == {"id-bob"}
    assert strangers(thread, "evalbot", ()) == {"id-bob", "id-erin"}


def test_the_digest_follows_the_allow_list_not_its_order_or_case() -> None:
    assert maintainers_digest(["Erin", "frank"]) == maintainers_digest(["frank", "erin"])
    assert maintainers_digest(["erin"]) != maintainers_digest(["erin", "frank"])
    assert maintainers_digest([]) != maintainers_digest(["erin"])


def test_an_ask_whose_time_the_hub_did_not_give_is_still_answered() -> None:
    undated = PrComment(id="c1", author="alice", raw="@evalbot recheck", author_id="id-alice")
    asked = latest_recheck(pr(undated), "evalbot", ())
    assert asked is not None
    assert asked.id == "c1"
