"""The ledger of accepted events: the one mechanism that makes every accepted event run.

An event is accepted when the receiver answers 202 (or reconciliation, or a replay, queues it).
In the same atomic Redis step as its dedupe key, the event is written to the ledger: a hash
`evalbot:ledger:events` (task id -> the event's JSON) and a sorted set `evalbot:ledger` (task
id -> the Redis time by which it must be done or touched again). Its Celery message is sent
after that, through Celery's own API (`bot.contract.publish`).

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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.store import keys

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
