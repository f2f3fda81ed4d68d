"""What a run on a PR did: one value per run, logged and counted (stable metric labels)."""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    """What a run did; logged per run and counted as `outcome:<value>` (`workers.tasks`)."""

    POSTED = "posted"
    EDITED = "edited"
    UNCHANGED = "unchanged"
    NO_RESULTS = "no-results"  # the PR touches no file the bot checks and has no report
    NOT_A_PR = "not-a-pr"
    STALE = "stale"  # the comment already reflects a newer head
    HELP_SENT = "help-sent"
    HELP_ALREADY_SENT = "help-already-sent"
    COMMAND_IGNORED = "command-ignored"  # not a maintainer, the bot itself, or a gone comment
    COALESCED = "coalesced"  # a recheck an earlier run already answered (read after the ask)
