"""The one way to publish events: the message, then its dedupe key, in one atomic script.

Every publisher runs `CLAIM_AND_PUSH_SCRIPT` with the keys and arguments `script_call` builds:
the receiver (batched, on its asyncio connection: `bot.receiver.queue.RedisEnqueuer`),
reconciliation (`publish`, through redis-py) and any tool that queues events. For each event
the script checks the dedupe key, pushes the Celery message, then sets the key, so:

- a failure half-way never leaves a key without its message (which would lose the event; a
  message without its key only means a worker may see the event twice, which it tolerates);
- two publishers racing on one logical event queue it once.

A comment command goes through `COMMAND_SCRIPT` instead (the receiver runs it alone: commands
are rare), which also drops a known stranger's command and coalesces a PR's rechecks.
Replaying a parked event is the one publish without a dedupe key (an operator asked for it;
`bot.store.deadletters.replay` takes the record off the parked list in the same script).
"""

from __future__ import annotations

from collections.abc import Sequence

import redis

from bot.contract.events import DedupeKey, PrEvent
from bot.contract.messages import encode_celery_message
from bot.store.keys import DEDUPE_PREFIX

# KEYS = [queue, dedupe key 1..n]; ARGV = [ttl 1, message 1, delivery id 1, ttl 2, ...].
# Per event: check, then LPUSH, then SET. Redis does not roll back a script that fails half-way
# (say, out of memory), and a message without its key is harmless (the worker tolerates a
# second run) while a key without its message would lose the event.
CLAIM_AND_PUSH_SCRIPT = """
local claimed = {}
for i = 2, #KEYS do
  local at = (i - 2) * 3
  if redis.call('EXISTS', KEYS[i]) == 1 then
    claimed[i - 1] = 0
  else
    redis.call('LPUSH', KEYS[1], ARGV[at + 2])
    redis.call('SET', KEYS[i], ARGV[at + 3], 'EX', tonumber(ARGV[at + 1]))
    claimed[i - 1] = 1
  end
end
return claimed
"""

# A command, atomically. KEYS = [queue, dedupe, digest, stranger or "", window or "",
# follow-up or ""]; ARGV = [dedupe ttl, message, delivery id, deferred message, interval ms].
# Returns 0 duplicate, 1 queued, 2 from a known stranger (dropped), 3 coalesced into the
# waiting deferred run. A recheck is pushed at once when the PR's window is closed (and opens
# it); else, once per window, as the deferred message (its ETA is the window's end plus a
# second, the follow-up key lives for the window: an ask that finds the key was posted before
# the deferred run reads the PR), which also stretches the window past that run; else coalesced.
COMMAND_SCRIPT = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local outcome = 1
if KEYS[4] ~= '' then
  local judged = redis.call('GET', KEYS[4])
  if judged and judged == redis.call('GET', KEYS[3]) then outcome = 2 end
end
if outcome == 1 and KEYS[5] ~= '' then
  local interval = tonumber(ARGV[5])
  if redis.call('EXISTS', KEYS[5]) == 0 then
    redis.call('LPUSH', KEYS[1], ARGV[2])
    redis.call('SET', KEYS[5], '1', 'PX', interval)
  elseif redis.call('EXISTS', KEYS[6]) == 0 then
    redis.call('LPUSH', KEYS[1], ARGV[4])
    redis.call('SET', KEYS[6], '1', 'PX', interval)
    redis.call('PEXPIRE', KEYS[5], 2 * interval + 1000)
  else
    outcome = 3
  end
elseif outcome == 1 then
  redis.call('LPUSH', KEYS[1], ARGV[2])
end
redis.call('SET', KEYS[2], ARGV[3], 'EX', tonumber(ARGV[1]))
return outcome
"""


def dedupe_key(dedupe: DedupeKey) -> str:
    """The Redis key that marks `dedupe` as seen."""
    return DEDUPE_PREFIX + dedupe.key


def script_call(
    items: Sequence[tuple[str, int, str, str]], *, queue: str
) -> tuple[list[str], list[str | int]]:
    """KEYS and ARGV of one script run over `(redis key, ttl s, message, delivery id)` items."""
    keys = [queue]
    args: list[str | int] = []
    for key, ttl_s, message, delivery_id in items:
        keys.append(key)
        args += (ttl_s, message, delivery_id)
    return keys, args


def publish(
    client: redis.Redis,
    events: Sequence[tuple[PrEvent, DedupeKey]],
    *,
    queue: str,
    origin: str,
) -> list[bool]:
    """Queue each event unless its dedupe key is set, in one round trip; True where queued.

    Raises `redis.RedisError` when Redis is unreachable: nothing was claimed then, or the
    script ran whole (Redis runs a script atomically).
    """
    if not events:
        return []
    keys, args = script_call(
        [
            (
                dedupe_key(dedupe),
                max(1, dedupe.ttl_s),
                encode_celery_message(event, queue=queue, origin=origin),
                event.delivery_id,
            )
            for event, dedupe in events
        ],
        queue=queue,
    )
    claimed = client.eval(CLAIM_AND_PUSH_SCRIPT, len(keys), *keys, *args)
    return [int(flag) == 1 for flag in claimed]
