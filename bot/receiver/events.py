"""Hub webhook payloads (version 3) to the events the workers act on. Pure, and lenient on
purpose: a payload is only a hint, so `route_delivery` never raises (docs/operating.md,
"What is queued")."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from bot.queue.events import (
    COMMANDS,
    REPO_TYPES,
    Command,
    DedupeKey,
    EventKind,
    PrEvent,
    parse_command,
)

_COMMAND_WORDS: dict[str, Command] = {command: command for command in COMMANDS}

_PR_REF = re.compile(r"refs/pr/([1-9][0-9]{0,8})")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?")
#: Dedupe ids we accept from the `Webhook-Id` header: printable, bounded (it becomes a Redis key).
_WEBHOOK_ID = re.compile(r"[\x21-\x7e]{1,200}")
_MAX_FIELD = 200


@dataclass(frozen=True, slots=True)
class Ignored:
    """A delivery that needs no work; `reason` is a short stable code (a metrics label)."""

    reason: str
    #: For comments: the command word when the comment addressed the bot but was not accepted.
    command: str | None = None


@dataclass(frozen=True, slots=True)
class RoutingContext:
    """What routing needs beyond the payload: who the bot is, the delivery id, the time."""

    bot_name: str
    received_at: str
    webhook_id: str | None = None
    bot_user_id: str | None = None


@dataclass(frozen=True, slots=True)
class Routed:
    """An event to queue, with the dedupe key under which it is claimed."""

    event: PrEvent
    dedupe: DedupeKey


#: Ignore reasons, all in one place (they are metrics labels and log values).
IGNORE_REASONS = (
    "malformed",
    "unsupported-version",
    "not-a-model-repo",
    "unknown-scope",
    "unknown-action",
    "not-a-pull-request",
    "not-a-pr-ref",
    "ref-deleted",
    "status-unchanged",
    "comment-edited",
    "comment-hidden",
    "own-comment",
    "not-a-command",
    "unknown-command",
    "stranger",  # a command from a commenter a worker found to be no maintainer (publishing.py)
)


@dataclass(frozen=True, slots=True)
class _Payload:
    """The fields routing reads, pulled out of a raw payload with type checks."""

    scope: str
    action: str
    repo_id: str
    data: Mapping[str, Any]


#: Seconds a delivery's dedupe key lives: a retry or a replay of it within this window is
#: answered "duplicate". The Hub retries a failed delivery for minutes, and an operator replays
#: from its webhook page within hours; a day covers both at one small key per delivery.
DEDUPE_TTL_S = 24 * 3600
#: The dedupe window of a close or reopen delivered without a `Webhook-Id`: its payload cannot
#: be told from a retry of it, so the window only covers the Hub's quick retries (about two
#: minutes), not a real later close of the same PR.
STATUS_DEDUPE_TTL_S = 120


def route_delivery(payload: object, context: RoutingContext) -> Routed | Ignored:
    """Decide what a delivery means. Never raises, whatever `payload` holds."""
    try:
        return _route(payload, context, DEDUPE_TTL_S, STATUS_DEDUPE_TTL_S)
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError):
        return Ignored("malformed")


def _route(payload: object, context: RoutingContext, ttl: int, status_ttl: int) -> Routed | Ignored:
    if not isinstance(payload, Mapping):
        return Ignored("malformed")
    webhook = _mapping(payload.get("webhook"))
    version = webhook.get("version")
    if version != 3 or isinstance(version, bool):
        return Ignored("unsupported-version")
    event = _mapping(payload.get("event"))
    repo = _mapping(payload.get("repo"))
    scope, action = _text(event.get("scope")), _text(event.get("action"))
    repo_id = _text(repo.get("name"))
    if scope is None or action is None or repo_id is None or not _REPO_ID.fullmatch(repo_id):
        return Ignored("malformed")
    repo_type = repo.get("type")
    if repo_type not in REPO_TYPES:
        return Ignored("not-a-model-repo")
    handlers = _ROUTES.get(scope)
    if handlers is None:
        return Ignored("unknown-scope")
    handler = handlers.get(action)
    if handler is None:
        return Ignored("unknown-action")
    outcome = handler(_Payload(scope, action, repo_id, payload), context)
    if isinstance(outcome, Ignored):
        return outcome
    if repo_type == "dataset":
        outcome = replace(outcome, repo_type="dataset")
    private = repo.get("private")
    if isinstance(private, bool):
        outcome = replace(outcome, repo_private=private)
    delivery_id, dedupe = _dedupe_key(outcome, payload, context, ttl, status_ttl)
    return Routed(replace(outcome, delivery_id=delivery_id), dedupe)


# --- handlers, one per (scope, action) -------------------------------------------------------


def _discussion_created(payload: _Payload, context: RoutingContext) -> PrEvent | Ignored:
    discussion = _pull_request(payload.data)
    if isinstance(discussion, Ignored):
        return discussion
    num, _ = discussion
    return _event("opened", payload.repo_id, num, context)


def _discussion_updated(payload: _Payload, context: RoutingContext) -> PrEvent | Ignored:
    discussion = _pull_request(payload.data)
    if isinstance(discussion, Ignored):
        return discussion
    num, status = discussion
    # An update of an open PR is a reopen, a publish of a draft or a title change: all cheap to
    # re-run (the worker dedupes by head sha), and the first two must not be missed.
    kinds: dict[str, EventKind] = {"merged": "merged", "closed": "closed", "open": "reopened"}
    kind = kinds.get(status or "")
    if kind is None:
        return Ignored("status-unchanged")
    return _event(kind, payload.repo_id, num, context)


def _content_updated(payload: _Payload, context: RoutingContext) -> PrEvent | Ignored:
    refs = payload.data.get("updatedRefs")
    if not isinstance(refs, list):
        return Ignored("malformed")
    saw_deleted = False
    for item in refs:
        ref = _mapping(item)
        match = _PR_REF.fullmatch(_text(ref.get("ref")) or "")
        if match is None:
            continue
        new_sha = _text(ref.get("newSha"))
        if new_sha is None:
            saw_deleted = True
            continue
        # A new refs/pr/N (oldSha null) is the PR being opened: the same logical event as its
        # discussion/create twin, so it takes the same kind (and dedupe key).
        kind: EventKind = "opened" if ref.get("oldSha") is None else "updated"
        head = new_sha.lower() if _SHA.fullmatch(new_sha.lower()) else None
        return _event(kind, payload.repo_id, int(match.group(1)), context, head_sha=head)
    return Ignored("ref-deleted" if saw_deleted else "not-a-pr-ref")


def _comment_created(payload: _Payload, context: RoutingContext) -> PrEvent | Ignored:
    discussion = _pull_request(payload.data)
    if isinstance(discussion, Ignored):
        return discussion
    num, _ = discussion
    comment = _mapping(payload.data.get("comment"))
    if comment.get("hidden") is True:
        return Ignored("comment-hidden")
    comment_id = _text(comment.get("id"))
    author_id = _text(_mapping(comment.get("author")).get("id"))
    if comment_id is None:
        return Ignored("malformed")
    if context.bot_user_id is not None and author_id == context.bot_user_id:
        return Ignored("own-comment")
    content = comment.get("content")
    if not isinstance(content, str):
        return Ignored("not-a-command")
    word = parse_command(content, context.bot_name)
    if word is None:
        return Ignored("not-a-command")
    command = _COMMAND_WORDS.get(word)
    if command is None:
        return Ignored("unknown-command", command=word[:32])
    return _event(
        "command",
        payload.repo_id,
        num,
        context,
        command=command,
        comment_id=comment_id,
        comment_author_id=author_id,
    )


def _comment_updated(payload: _Payload, context: RoutingContext) -> PrEvent | Ignored:
    comment = _mapping(payload.data.get("comment"))
    return Ignored("comment-hidden" if comment.get("hidden") is True else "comment-edited")


_Handler = Callable[[_Payload, RoutingContext], "PrEvent | Ignored"]

_ROUTES: dict[str, dict[str, _Handler]] = {
    "discussion": {"create": _discussion_created, "update": _discussion_updated},
    "repo.content": {"update": _content_updated},
    "discussion.comment": {"create": _comment_created, "update": _comment_updated},
}


# --- commands --------------------------------------------------------------------------------

# --- helpers ---------------------------------------------------------------------------------


def _pull_request(data: Mapping[str, Any]) -> tuple[int, str | None] | Ignored:
    """`(num, status)` of the payload's discussion when it is a pull request."""
    discussion = _mapping(data.get("discussion"))
    if not discussion:
        return Ignored("malformed")
    if discussion.get("isPullRequest") is not True:
        return Ignored("not-a-pull-request")
    num = discussion.get("num")
    if not isinstance(num, int) or isinstance(num, bool) or not 0 < num < 10**9:
        return Ignored("malformed")
    return num, _text(discussion.get("status"))


def _event(
    kind: EventKind,
    repo_id: str,
    num: int,
    context: RoutingContext,
    **extra: Any,
) -> PrEvent:
    return PrEvent(
        kind=kind,
        repo_id=repo_id,
        pr_num=num,
        delivery_id="-",  # replaced once the dedupe key is known
        received_at=context.received_at,
        **extra,
    )


def _dedupe_key(
    event: PrEvent, payload: Mapping[str, Any], context: RoutingContext, ttl: int, status_ttl: int
) -> tuple[str, DedupeKey]:
    """The event's delivery id and the key that claims it."""
    webhook_id = context.webhook_id
    if webhook_id is not None and not _WEBHOOK_ID.fullmatch(webhook_id):
        webhook_id = None  # an unusable header: fall back to the payload digest
    digest = _identity_digest(payload) if webhook_id is None else ""
    delivery_id = webhook_id if webhook_id is not None else f"d-{digest[:32]}"
    if event.kind == "opened":
        repo = event.repo_id if event.repo_type == "model" else f"datasets/{event.repo_id}"
        return delivery_id, DedupeKey(f"opened:{repo}:{event.pr_num}", ttl)
    if webhook_id is not None:
        return delivery_id, DedupeKey(f"wid:{webhook_id}", ttl)
    if event.kind in ("closed", "reopened"):
        return delivery_id, DedupeKey(f"d:{digest}", status_ttl)
    return delivery_id, DedupeKey(f"d:{digest}", ttl)


def _identity_digest(payload: Mapping[str, Any]) -> str:
    """sha256 over the fields that identify a logical event (docs/hub-api.md#receiving-webhooks)."""
    event = _mapping(payload.get("event"))
    repo = _mapping(payload.get("repo"))
    discussion = _mapping(payload.get("discussion"))
    comment = _mapping(payload.get("comment"))
    refs = payload.get("updatedRefs")
    identity = {
        "scope": _text(event.get("scope")),
        "action": _text(event.get("action")),
        "repo": _text(repo.get("name")),
        "head": _text(repo.get("headSha")),
        "num": discussion.get("num") if isinstance(discussion.get("num"), int) else None,
        "status": _text(discussion.get("status")),
        "merge": _text(_mapping(discussion.get("changes")).get("mergeCommitId")),
        "comment": _text(comment.get("id")),
        "refs": [
            [_text(_mapping(ref).get(field)) for field in ("ref", "oldSha", "newSha")]
            for ref in (refs if isinstance(refs, list) else [])[:50]
        ],
    }
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: object) -> str | None:
    """A non-empty, bounded string field, else None (keeps odd payloads out of Redis keys)."""
    if isinstance(value, str) and value and len(value) <= _MAX_FIELD:
        return value
    return None
