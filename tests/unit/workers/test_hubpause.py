"""The pause decisions, without Redis: which Hub answers pause the fleet, for how long, when a
held-back task comes back, and when throttling has lasted too long."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from bot.hub.errors import HubTransientError, retry_after_from_headers
from bot.settings import Settings
from workers.hub_pause import (
    HUB_THROTTLE_BUDGET_S,
    MAX_PAUSE_S,
    MAX_SPREAD_S,
    PAUSE_MARGIN_S,
    pause_for,
    resume_countdown,
    throttled_too_long,
)
from workers.runtime import countdown_cap_s


def _answer(status: int, headers: dict[str, str]) -> HubTransientError:
    """The error `to_hub_error` builds for a Hub answer with these headers."""
    return HubTransientError(
        f"Hub answered {status}", retry_after=retry_after_from_headers(headers), status=status
    )


def test_a_429_with_the_hubs_ratelimit_header_pauses_for_its_reset_plus_a_margin() -> None:
    error = _answer(429, {"RateLimit": '"api";r=0;t=55', "RateLimit-Policy": "..."})
    assert pause_for(error) == 55 + PAUSE_MARGIN_S


def test_a_503_with_retry_after_pauses_too() -> None:
    assert pause_for(_answer(503, {"Retry-After": "7"})) == 7 + PAUSE_MARGIN_S


def test_answers_that_do_not_say_how_long_pause_nothing() -> None:
    # A 429 with quota left (a granular limit on one route), a bare 429, a bare 503.
    assert pause_for(_answer(429, {"RateLimit": '"api";r=12;t=55'})) is None
    assert pause_for(_answer(429, {})) is None
    assert pause_for(_answer(503, {})) is None
    # A 502 asking for a wait is one failed request: its own retry waits, the fleet does not.
    assert pause_for(_answer(502, {"Retry-After": "30"})) is None
    # A network error has no status at all.
    assert pause_for(HubTransientError("Hub unreachable: ConnectError")) is None


def test_a_bogus_retry_after_cannot_stop_the_bot_for_a_day() -> None:
    assert pause_for(_answer(429, {"Retry-After": str(24 * 3600)})) == MAX_PAUSE_S


def test_tasks_held_back_together_come_back_apart_after_the_pause() -> None:
    rng = random.Random(7)
    countdowns = [resume_countdown(20.0, cap_s=600, rng=rng) for _ in range(200)]
    assert min(countdowns) >= 20.0
    assert max(countdowns) <= 40.0
    # Spread over the whole interval, not bunched at the reset: no second has more than a
    # fifth of them (uniform: about 1/20 each).
    per_second = [sum(1 for c in countdowns if s <= c - 20 < s + 1) for s in range(20)]
    assert max(per_second) < 40
    assert sum(per_second) == 200


def test_the_countdown_stays_below_the_cap() -> None:
    assert resume_countdown(300.0, cap_s=45.0, rng=random.Random(1)) == 45.0


def test_near_the_cap_the_spread_shrinks_instead_of_piling_up_at_the_cap() -> None:
    rng = random.Random(3)
    countdowns = [resume_countdown(590.0, cap_s=600.0, rng=rng) for _ in range(200)]
    assert all(590.0 <= c <= 600.0 for c in countdowns)
    assert sum(1 for c in countdowns if c == 600.0) <= 1  # not two thirds of them


@given(
    remaining=st.floats(min_value=-5, max_value=10_000, allow_nan=False),
    cap=st.floats(min_value=0.5, max_value=10_000, allow_nan=False),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_resume_countdown_bounds(remaining: float, cap: float, seed: int) -> None:
    """Never before the pause ends (unless capped), never past the spread or the cap."""
    countdown = resume_countdown(remaining, cap_s=cap, rng=random.Random(seed))
    left = max(remaining, 0.0)
    assert 0.0 <= countdown <= cap
    assert countdown >= min(left, cap)
    assert countdown <= left + min(left, MAX_SPREAD_S) + 1e-9


def test_throttling_is_given_up_on_only_past_the_budget() -> None:
    assert not throttled_too_long(0.0, 3600)
    assert not throttled_too_long(3600.0, 3600)
    assert throttled_too_long(3600.5, 3600)


def test_countdowns_are_capped_below_the_visibility_timeout() -> None:
    """Visibility timeout minus the hard time limit: a retry held that long, then run to the
    limit, is acknowledged before Redis would hand it to a second worker."""
    settings = Settings.from_env(
        {
            "HF_TOKEN": "hf_x",
            "REDIS_URL": "redis://127.0.0.1:6390/3",
            "EVALBOT_WEBHOOK_SECRET": "s",
            "EVALBOT_BOT_NAME": "evalbot-ci",
        }
    )
    assert countdown_cap_s(settings) == 600.0
    assert HUB_THROTTLE_BUDGET_S == 6 * 3600  # the documented value
