"""The event the receiver queues and the workers act on, the key that dedupes it, and the command
grammar (pure): the one definition both sides import."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from bot.validation.model import same_hub_name

EventKind = Literal["opened", "updated", "reopened", "merged", "closed", "command"]
Command = Literal["recheck", "help"]
#: Repos whose PRs lead to work: models (results files) and datasets (a benchmark's eval.yaml).
RepoType = Literal["model", "dataset"]
REPO_TYPES: tuple[RepoType, ...] = ("model", "dataset")

EVENT_KINDS: tuple[EventKind, ...] = (
    "opened",
    "updated",
    "reopened",
    "merged",
    "closed",
    "command",
)
COMMANDS: tuple[Command, ...] = ("recheck", "help")


@dataclass(frozen=True, slots=True)
class PrEvent:
    """One thing that happened to a PR on a model repo, as queued for a worker (JSON-safe).

    `head_sha` is an untrusted hint from the payload (present for pushes); the worker resolves
    the PR head itself. `delivery_id` is the `Webhook-Id` header, or `d-<digest>` without one.
    `received_at` is the receiver's clock, ISO-8601 UTC.
    """

    kind: EventKind
    repo_id: str
    pr_num: int
    delivery_id: str
    received_at: str
    command: Command | None = None
    comment_id: str | None = None
    comment_author_id: str | None = None
    head_sha: str | None = None
    #: "model" (results PRs) or "dataset" (a benchmark's eval.yaml: `workers.benchmark_pr`).
    repo_type: RepoType = "model"
    #: The payload's `repo.private`, the Hub's word on the repo's visibility when it sent the
    #: webhook (None: no payload, e.g. reconciliation); the pages' history reads it
    #: (`workers.model_history`), so a run needs no Hub call of its own to learn it.
    repo_private: bool | None = None

    def to_json(self) -> dict[str, Any]:
        # Spelled out rather than dataclasses.asdict: this runs per delivery, asdict deep-copies.
        return {
            "kind": self.kind,
            "repo_id": self.repo_id,
            "pr_num": self.pr_num,
            "delivery_id": self.delivery_id,
            "received_at": self.received_at,
            "command": self.command,
            "comment_id": self.comment_id,
            "comment_author_id": self.comment_author_id,
            "head_sha": self.head_sha,
            "repo_type": self.repo_type,
            "repo_private": self.repo_private,
        }

    def waited_s(self, now: datetime) -> float | None:
        """Seconds from the receiver's acceptance to `now` (a worker starting on it): the
        queue wait an operator reads in the worker's log. None when `received_at` is not a
        time (an event queued by hand, say); the event itself is still good."""
        try:
            received = datetime.fromisoformat(self.received_at.replace("Z", "+00:00"))
        except ValueError:
            return None
        if received.tzinfo is None:
            return None
        return (now - received).total_seconds()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PrEvent:
        """Rebuild an event from `to_json()` output; raises ValueError on anything else."""
        kind = data.get("kind")
        command = data.get("command")
        pr_num = data.get("pr_num")
        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {kind!r}")
        if command is not None and command not in COMMANDS:
            raise ValueError(f"unknown command {command!r}")
        if (command is None) != (kind != "command"):
            raise ValueError("a command event needs a command, and only it")
        if not isinstance(pr_num, int) or isinstance(pr_num, bool) or pr_num < 1:
            raise ValueError(f"pr_num must be a positive integer, got {pr_num!r}")
        texts = {}
        for name in ("repo_id", "delivery_id", "received_at"):
            value = data.get(name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"{name} must be a non-empty string")
            texts[name] = value
        optional = {}
        for name in ("comment_id", "comment_author_id", "head_sha"):
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{name} must be a string or null")
            optional[name] = value
        repo_type = data.get("repo_type", "model")  # events queued before datasets were read
        if repo_type not in REPO_TYPES:
            raise ValueError(f"unknown repo type {repo_type!r}")
        private = data.get("repo_private")  # absent in events queued before it was read
        if private is not None and not isinstance(private, bool):
            raise ValueError(f"repo_private must be a boolean or null, got {private!r}")
        return cls(
            repo_type=cast(RepoType, repo_type),
            repo_private=private,
            kind=cast(EventKind, kind),
            repo_id=texts["repo_id"],
            pr_num=pr_num,
            delivery_id=texts["delivery_id"],
            received_at=texts["received_at"],
            command=cast("Command | None", command),
            comment_id=optional["comment_id"],
            comment_author_id=optional["comment_author_id"],
            head_sha=optional["head_sha"],
        )


@dataclass(frozen=True, slots=True)
class DedupeKey:
    """The Redis key that marks a logical event as seen, and for how long (seconds)."""

    key: str
    ttl_s: int


_COMMAND_LINE = re.compile(r"(?:@(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)|/evalbot)\s+(?P<word>\S+)")


def parse_command(content: str, bot_name: str) -> str | None:
    """The command word (lower-cased) when the comment's first line addresses the bot.

    The first line must be exactly `@<bot_name> <word>` or `/evalbot <word>` (surrounding
    whitespace allowed; the name and the word are case-insensitive). Anything else, including
    more words on the line, is not a command: a sentence that mentions the bot must not run it.
    """
    first_line = content.lstrip("\ufeff").split("\n", 1)[0].strip()
    match = _COMMAND_LINE.fullmatch(first_line)
    if match is None:
        return None
    name = match.group("name")
    if name is not None and not same_hub_name(name, bot_name):
        return None
    return match.group("word").lower()
