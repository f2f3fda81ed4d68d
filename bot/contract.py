"""The contract between the receiver and the workers: the event queued, and the one way to queue it.

The receiver, the workers, reconciliation and the replay of parked events all import this
module, and none of them imports another's internals for it: `workers` never imports
`bot.receiver` (an import-linter contract in `pyproject.toml`, run by `make lint`).

**The event** (pure): the `PrEvent` a worker acts on and the `DedupeKey` that marks it seen.
Every publisher queues a `PrEvent` and every consumer (`workers.tasks`) reads it back with
`PrEvent.from_json`. The command grammar (`parse_command`) is here too: the receiver routes
comments with it and the workers read the asking comments of a recheck with it.

**The ledger of accepted events**: the one mechanism that makes every accepted event run. An
event is accepted when the receiver answers 202 (or reconciliation, or a replay, queues it). In
the same atomic Redis step as its dedupe key (`ACCEPT_SCRIPT`), so two publishers racing on one
logical event accept it once, the event is written to the ledger: a hash
`evalbot:ledger:events` (task id -> the event's JSON) and a sorted set `evalbot:ledger` (task
id -> the Redis time by which it must be done or touched again).

A worker touches the entry when a run starts or schedules a retry (the due time moves to the
run's end, or the retry's, plus `GRACE_S`), and removes it when the event is finished: the
comment written, nothing to report, or parked. Every `SWEEP_EVERY_S` each worker asks the
ledger for the entries past their due time (`DUE_SCRIPT`: each is handed to one sweeper only,
its due time moved on by `GRACE_S`) and sends each again under the same task id, so the run
counts of `workers.tasks` carry over and a poison event is still parked.

So whatever happened to a message (a worker killed while holding it, a Redis restart between
kombu's pop and its bookkeeping, a publish that failed after the 202, a message Celery acked
without finishing the event), the event runs again within `GRACE_S + SWEEP_EVERY_S` of its
last sign of life, on Redis's clock. Running an event twice is safe: the pipeline finds its
own comment by its marker and the PR's lease orders concurrent runs (docs/reliability.md).

**Sending**: once accepted, the message goes out with Celery's public API (`send_task`, under
the ledger entry's task id, with the settings every worker and publisher share:
`celery_settings`): by the receiver at once (`bot.receiver.queue`), and by the workers' sweep
for what is due (`workers.liveness`: reconciliation's catch-ups, accepted due at once by
`publish`, and the replay of parked events, `bot.store.deadletters.replay`).
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

import redis
from celery import Celery

from bot.spec.names import same_hub_name
from bot.store import keys
from bot.store.keys import DEDUPE_PREFIX

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
        return cls(
            repo_type=cast(RepoType, repo_type),
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


#: Seconds an entry may go without a sign of life (acceptance, a run's start, a retry's
#: schedule) before it is sent again: above a normal queue wait and run (a burst of 500 PRs
#: drains in about 5 s, a run takes milliseconds to seconds), well under the two minutes a
#: dead worker's PR may wait for its report.
GRACE_S = 30
#: How often each worker looks for overdue entries.
SWEEP_EVERY_S = 10
#: At most this many entries are sent again per sweep (a sweep stays short; the rest wait).
SWEEP_BATCH = 100

# Accept events that were not seen yet. KEYS = [ledger, ledger events, dedupe 1..n];
# ARGV = [grace s, (ttl, delivery id, task id, event json) per event]. Returns 1 (accepted)
# or 0 (duplicate) per event, each due a millisecond after the one before (the sweep sends
# them in that order). Per event: the ledger entry, then the dedupe key; Redis does not
# roll back a script that fails half-way (out of memory), and an entry without its key is
# harmless (one more run), a key without its entry would lose the event.
ACCEPT_SCRIPT = """
local t = redis.call('TIME')
local due = tonumber(t[1]) + tonumber(t[2]) / 1000000 + tonumber(ARGV[1])
local accepted = {}
for i = 3, #KEYS do
  local at = (i - 3) * 4 + 1
  if redis.call('EXISTS', KEYS[i]) == 1 then
    accepted[i - 2] = 0
  else
    redis.call('HSET', KEYS[2], ARGV[at + 3], ARGV[at + 4])
    redis.call('ZADD', KEYS[1], due + (i - 3) / 1000, ARGV[at + 3])
    redis.call('SET', KEYS[i], ARGV[at + 2], 'EX', tonumber(ARGV[at + 1]))
    accepted[i - 2] = 1
  end
end
return accepted
"""

# A comment command. KEYS = [ledger, ledger events, dedupe, digest, stranger or "", window or
# "", follow-up or ""]; ARGV = [grace s, dedupe ttl, delivery id, task id, event json,
# interval ms]. Returns 0 duplicate, 1 accepted to run now, 2 from a known stranger (dropped),
# 3 coalesced into the waiting deferred run, 4 accepted to run after the PR's recheck window.
# A recheck runs at once when the PR's window is closed (and opens it); else, once per window,
# deferred to the window's end plus a second (the follow-up key lives for the window: an ask
# that finds the key was posted before the deferred run reads the PR), which also stretches
# the window past that run; else it is coalesced.
COMMAND_SCRIPT = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local outcome = 1
if KEYS[5] ~= '' then
  local judged = redis.call('GET', KEYS[5])
  if judged and judged == redis.call('GET', KEYS[4]) then outcome = 2 end
end
local interval = tonumber(ARGV[6])
if outcome == 1 and KEYS[6] ~= '' then
  if redis.call('EXISTS', KEYS[6]) == 0 then
    redis.call('SET', KEYS[6], '1', 'PX', interval)
  elseif redis.call('EXISTS', KEYS[7]) == 0 then
    redis.call('SET', KEYS[7], '1', 'PX', interval)
    redis.call('PEXPIRE', KEYS[6], 2 * interval + 1000)
    outcome = 4
  else
    outcome = 3
  end
end
if outcome == 1 or outcome == 4 then
  local t = redis.call('TIME')
  local due = tonumber(t[1]) + tonumber(ARGV[1])
  if outcome == 4 then due = due + interval / 1000 + 1 end
  redis.call('HSET', KEYS[2], ARGV[4], ARGV[5])
  redis.call('ZADD', KEYS[1], due, ARGV[4])
end
redis.call('SET', KEYS[3], ARGV[3], 'EX', tonumber(ARGV[2]))
return outcome
"""

# The entries past their due time, each handed to this caller only: its due time moves on by
# the grace. KEYS = [ledger, ledger events]; ARGV = [grace s, batch]. Returns [id, json, ...];
# an entry whose event is gone (never the case when written by ACCEPT_SCRIPT) is dropped.
DUE_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local due = {}
for _, id in ipairs(ids) do
  local event = redis.call('HGET', KEYS[2], id)
  if event then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), id)
    due[#due + 1] = id
    due[#due + 1] = event
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return due
"""

# Move an entry's due time to `seconds` from now, if it is still in the ledger.
# KEYS = [ledger]; ARGV = [task id, seconds].
TOUCH_SCRIPT = """
local t = redis.call('TIME')
return redis.call('ZADD', KEYS[1], 'XX', tonumber(t[1]) + tonumber(ARGV[2]), ARGV[1])
"""


def accept_call(
    items: Sequence[tuple[str, int, str, str, str]], *, grace_s: int = GRACE_S
) -> tuple[list[str], list[str | int]]:
    """KEYS and ARGV of one `ACCEPT_SCRIPT` run over `(dedupe key, ttl s, delivery id, task id,
    event json)` items, due `grace_s` from now (0: the next sweep sends them)."""
    script_keys = [keys.LEDGER, keys.LEDGER_EVENTS]
    args: list[str | int] = [grace_s]
    for dedupe, ttl_s, delivery_id, task_id, event in items:
        script_keys.append(dedupe)
        args += (max(1, ttl_s), delivery_id, task_id, event)
    return script_keys, args


def queue_done(pipe: Any, task_id: str) -> None:
    """Queue, on a redis-py pipeline, the removal of a finished event's entry."""
    pipe.zrem(keys.LEDGER, task_id)
    pipe.hdel(keys.LEDGER_EVENTS, task_id)


def queue_touch(pipe: Any, task_id: str, after_s: float) -> None:
    """Queue, on a redis-py pipeline, a sign of life: the entry (if still there) is due
    `after_s` (a retry's countdown, or 0 for a run starting now) plus the grace from now."""
    pipe.eval(TOUCH_SCRIPT, 1, keys.LEDGER, task_id, after_s + GRACE_S)


def due_pairs(reply: Sequence[Any]) -> list[tuple[str, str]]:
    """`DUE_SCRIPT`'s reply as `(task id, event json)` pairs."""
    texts = [item.decode("utf-8") if isinstance(item, bytes) else str(item) for item in reply]
    return list(zip(texts[::2], texts[1::2], strict=True))


log = logging.getLogger("evalbot.publish")

#: The Celery task the workers register (`workers.tasks`); one kwarg, `event`.
TASK_NAME = "evalbot.process_pr_event"
#: Seconds a publish may take (connecting included) before it is given up; the ledger sends
#: the event again later.
SEND_TIMEOUT_S = 2.0


def celery_settings(broker_url: str, queue: str) -> dict[str, Any]:
    """What a publisher and the workers must agree on: the broker, the queue, JSON only."""
    return {
        "broker_url": broker_url,
        "task_default_queue": queue,
        "task_default_exchange": queue,
        "task_default_routing_key": queue,
        # JSON only: a pickle message from anyone who can write to Redis would be code execution.
        "task_serializer": "json",
        "accept_content": ["json"],
        "result_backend": None,
        "task_ignore_result": True,
        # A publish never hangs: one try within the timeout; a failed one is the ledger's to
        # send again.
        "broker_connection_timeout": SEND_TIMEOUT_S,
        "broker_transport_options": {
            "socket_timeout": SEND_TIMEOUT_S,
            "socket_connect_timeout": SEND_TIMEOUT_S,
        },
        "task_publish_retry": False,
        "enable_utc": True,
    }


def sender_app(broker_url: str, queue: str) -> Celery:
    """A Celery app that only sends (the receiver's, reconciliation's, the CLI's)."""
    app = Celery("evalbot-publisher", set_as_current=False)
    app.conf.update(celery_settings(broker_url, queue))
    return app


def new_task_id() -> str:
    return str(uuid.uuid4())


def event_json(event: PrEvent) -> str:
    return json.dumps(event.to_json(), separators=(",", ":"), ensure_ascii=False)


#: One accepted event's message: `(task id, event, countdown seconds)`.
Outgoing = tuple[str, Mapping[str, Any], float]


def send(app: Celery, messages: Sequence[Outgoing]) -> None:
    """Send the messages of accepted events, each under its task id, in one Redis round trip
    (kombu's `Producer.batch`, through Celery's producer pool). Raises kombu's
    `OperationalError` or a Redis error when the broker cannot take them."""
    with app.producer_or_acquire() as producer, producer.batch():
        for task_id, event, countdown in messages:
            delivery = str(event.get("delivery_id"))[:200]
            app.send_task(
                TASK_NAME,
                kwargs={"event": dict(event)},
                task_id=task_id,
                countdown=countdown or None,
                producer=producer,
                # For display only (Celery's `saferepr` of the arguments would cost more than
                # the rest of the send): the task's log lines name the delivery.
                argsrepr="()",
                kwargsrepr=f"{{'event': {{'delivery_id': {delivery!r}}}}}",
            )


def dedupe_key(dedupe: DedupeKey) -> str:
    """The Redis key that marks `dedupe` as seen."""
    return DEDUPE_PREFIX + dedupe.key


def publish(client: redis.Redis, events: Sequence[tuple[PrEvent, DedupeKey]]) -> list[bool]:
    """Accept each event unless its dedupe key is set, due at once: the next sweep of any
    worker sends it (`workers.liveness`). For publishers to whom ten seconds do not matter
    (reconciliation); True where accepted. Raises `redis.RedisError` when Redis is
    unreachable: nothing was accepted then, or the script ran whole."""
    if not events:
        return []
    script_keys, args = accept_call(
        [
            (dedupe_key(dedupe), dedupe.ttl_s, event.delivery_id, new_task_id(), event_json(event))
            for event, dedupe in events
        ],
        grace_s=0,
    )
    accepted = client.eval(ACCEPT_SCRIPT, len(script_keys), *script_keys, *args)
    return [int(flag) == 1 for flag in accepted]


def send_or_leave(app: Celery, messages: Sequence[Outgoing]) -> bool:
    """`send`, reporting failure instead of raising: the events are in the ledger, which sends
    them again once due. True when sent."""
    try:
        send(app, messages)
    except Exception as error:  # kombu's OperationalError, Redis errors, timeouts: the ledger's
        log.warning(
            "could not send %d accepted event(s); the ledger sends them again: %s",
            len(messages),
            error,
        )
        return False
    return True
