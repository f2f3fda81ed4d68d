"""The Hub pause: the Hub's rate limit as one budget shared by every worker, in one Redis key
read on the Redis server's clock (docs/operating.md, "Hub rate limit"). The decisions are pure;
`HubPause` does the Redis calls."""

from __future__ import annotations

import random
from typing import Any

import redis

from bot.hub.errors import HubTransientError
from bot.store import keys

#: Statuses whose "wait T s" pauses every worker: the Hub pacing us (429) or asking for quiet.
PAUSING_STATUSES = frozenset({429, 503})
#: Added to the Hub's wait: `RateLimit`'s `t=` is whole seconds, likely rounded down; coming
#: back a fraction early spends a call on another 429 (huggingface_hub itself sleeps t + 1).
PAUSE_MARGIN_S = 1.0
#: Longest pause one answer can set: a bogus `Retry-After` of a day must not stop the bot for
#: a day (the Hub's windows are 5 minutes); past it, one run asks again.
MAX_PAUSE_S = 600.0
#: Seconds an event may be held back by the Hub's rate limit (429s and the fleet-wide pause
#: they set) before it is parked as `hub-throttled`. Throttling is not failure: the Hub's
#: windows are 5 minutes, and 6 hours outlasts a backlog of many of them (a large reconcile,
#: a campaign of hundreds of PRs) while still parking, visibly, an event the Hub never lets
#: through (docs/operating.md, "Hub rate limit").
HUB_THROTTLE_BUDGET_S = 6 * 3600.0
#: Widest jitter spread after a pause: the backlog comes back over at most this many seconds.
MAX_SPREAD_S = 30.0

#: Sets the pause to now + ARGV[1] ms unless it already ends later. Answers {1 if this call
#: set or lengthened it else 0, the ms it has left}.
_EXTEND = """
local wanted = tonumber(ARGV[1])
local left = redis.call('PTTL', KEYS[1])
if left >= wanted then
    return {0, left}
end
local now = redis.call('TIME')
local until_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + wanted
redis.call('SET', KEYS[1], string.format('%.3f', until_ms / 1000), 'PX', wanted)
return {1, wanted}
"""


class HubPaused(Exception):
    """The fleet-wide pause is on: this run must not call the Hub (`remaining_s` left)."""

    def __init__(self, remaining_s: float) -> None:
        super().__init__(f"the Hub is paused for {remaining_s:.1f} s more")
        self.remaining_s = remaining_s


def pause_for(error: HubTransientError) -> float | None:
    """Seconds every worker should leave the Hub alone after `error`; None: no fleet pause.

    Only an answer that says how long to wait pauses the fleet (a 429 without `RateLimit` or
    `Retry-After` is one route's limit, e.g. the Hub's granular comment limits; a 5xx without
    `Retry-After` is one failed request): those keep the run's own backoff.
    """
    if error.status not in PAUSING_STATUSES or error.retry_after is None:
        return None
    return min(MAX_PAUSE_S, error.retry_after + PAUSE_MARGIN_S)


def resume_countdown(
    remaining_s: float, *, cap_s: float, rng: random.Random | None = None
) -> float:
    """When a task held back by a pause with `remaining_s` left runs again: at the pause's end
    plus a uniform spread of up to min(remaining, `MAX_SPREAD_S`), so tasks held back together
    come back apart; at most `cap_s` (below the broker's visibility timeout: a longer
    countdown makes Redis hand the task to a second worker). A capped task simply finds the
    pause again and waits once more, without a Hub call. Near the cap the spread shrinks to
    fit under it rather than piling the tasks up at the cap itself."""
    left = max(remaining_s, 0.0)
    if left >= cap_s:
        return max(0.0, cap_s)  # a check of the pause, not a Hub call: no spread needed
    spread = min(left, MAX_SPREAD_S, cap_s - left)
    return left + (rng or random).uniform(0, spread)  # jitter, not crypto


def throttled_too_long(throttled_for_s: float, budget_s: float) -> bool:
    """Give up on an event only after it has been held back by the Hub's pacing for longer
    than `budget_s` in all: throttling is not failure, and a long backlog needs many windows."""
    return throttled_for_s > budget_s


class HubPause:
    """The pause in Redis: extended by a run that was told to wait, read by every run."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client

    def extend(self, seconds: float) -> tuple[bool, float]:
        """Pause every worker for `seconds` from now, unless the pause already ends later.
        Returns whether this call started (or lengthened) it, and the seconds it has left."""
        wanted_ms = max(1, int(seconds * 1000))
        started, left_ms = self._client.eval(_EXTEND, 1, keys.HUB_PAUSE, wanted_ms)
        return bool(started), int(left_ms) / 1000

    @staticmethod
    def queue_read(pipe: redis.client.Pipeline) -> None:
        """Add the pause's read to a pipeline (no round trip of its own); see `remaining_s`."""
        pipe.pttl(keys.HUB_PAUSE)

    @staticmethod
    def remaining_s(reply: Any) -> float:
        """Seconds the pause has left, from the reply of `queue_read` (0: not paused)."""
        left_ms = int(reply)
        return left_ms / 1000 if left_ms > 0 else 0.0

    def remaining_now(self) -> float:
        """Seconds the pause has left (one round trip; for tools and tests)."""
        return self.remaining_s(self._client.pttl(keys.HUB_PAUSE))
