"""A command event is heard once per run, on the PR as read (workers/commands.py): the asking
comment is kept only when the bot heeds it, whatever pipeline then acts on it."""

from __future__ import annotations

import pytest

from bot.hub.pulls import PrComment
from bot.queue.events import Command, PrEvent
from tests.unit.workers.test_rechecks import comment, pr
from workers.commands import HeardCommand, hear_command


def event(command: Command | None, comment_id: str | None = "c1") -> PrEvent:
    return PrEvent(
        kind="command" if command else "updated",
        repo_id="alice/model",
        pr_num=3,
        delivery_id="d1",
        received_at="2026-11-24T18:00:00Z",
        command=command,
        comment_id=comment_id if command else None,
    )


def test_an_event_without_a_command_is_heard_as_none() -> None:
    assert (
        hear_command(event(None), pr(comment("c1", "alice", "@evalbot help", 1)), "evalbot", ())
        is None
    )


@pytest.mark.parametrize("word", ["recheck", "help"])
def test_a_maintainers_ask_is_heeded_with_its_comment(word: Command) -> None:
    asked = comment("C1", "carol", f"@evalbot {word}", 1, is_org_member=True)
    heard = hear_command(event(word, comment_id="c1"), pr(asked), "evalbot", ())
    assert heard == HeardCommand(word, asked)  # comment ids compare case-insensitively


@pytest.mark.parametrize(
    ("asked", "allow_list"),
    [
        (comment("c1", "bob", "@evalbot help", 1), ()),  # a stranger
        (comment("c1", "alice", "", 1, hidden=True), ()),  # hidden since
        (comment("c1", "evalbot", "@evalbot help", 1), ("evalbot",)),  # the bot itself
        (comment("c1", "deleted", "@evalbot help", 1), ("deleted",)),  # a deleted account
        (None, ()),  # gone from the PR
    ],
)
def test_an_ask_the_bot_does_not_heed_keeps_its_word_without_a_comment(
    asked: PrComment | None, allow_list: tuple[str, ...]
) -> None:
    thread = pr(asked) if asked is not None else pr()
    assert hear_command(event("help"), thread, "evalbot", allow_list) == HeardCommand("help", None)


def test_the_allow_list_makes_a_maintainer() -> None:
    asked = comment("c1", "Bob", "@evalbot recheck", 1)
    assert hear_command(event("recheck"), pr(asked), "evalbot", ("bob",)) == HeardCommand(
        "recheck", asked
    )
