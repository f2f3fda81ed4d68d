"""Fault decisions: pattern matching, bursts that run out, quotas per caller and window."""

from __future__ import annotations

from typing import Any

import pytest

from evalbot_dev.emulator.faults import Faults, Quota, RouteFault, WebhookFaults


def test_rules_match_route_names_and_bursts_run_out() -> None:
    faults = Faults()
    faults.add_rule(RouteFault(pattern="discussions.*", latency_s=0.5))
    faults.add_rule(RouteFault(pattern="discussions.comment", status=503, times=2))
    assert faults.decide("identity.whoami", "api", "alice").latency_s == 0
    first = faults.decide("discussions.comment", "api", "alice")
    assert first.latency_s == 0.5
    assert first.reject is not None
    assert first.reject[0] == 503
    assert faults.decide("discussions.comment", "api", "alice").reject is not None
    third = faults.decide("discussions.comment", "api", "alice")
    assert third.reject is None
    assert third.latency_s == 0.5
    assert faults.count_snapshot() == {"identity.whoami": 1, "discussions.comment": 3}


def test_jitter_stays_within_its_bound_and_is_reproducible() -> None:
    def latencies(seed: int) -> list[float]:
        faults = Faults(seed=seed)
        faults.add_rule(RouteFault(pattern="*", latency_s=0.1, jitter_s=0.2))
        return [faults.decide("repos.info", "api", "a").latency_s for _ in range(50)]

    values = latencies(7)
    assert all(0.1 <= value <= 0.3 for value in values)
    assert len(set(values)) > 1
    assert values == latencies(7)


def test_after_write_and_429_answers() -> None:
    faults = Faults()
    faults.add_rule(RouteFault(pattern="repos.commit", status=504, after_write=True, times=1))
    faults.add_rule(RouteFault(pattern="files.resolve", status=429, reset_s=9))
    assert faults.decide("repos.commit", "api", "a").after_write is not None
    assert faults.decide("repos.commit", "api", "a").after_write is None
    limited = faults.decide("files.resolve", "resolvers", "a").reject
    assert limited is not None
    assert limited[1]["RateLimit"] == '"resolvers";r=0;t=9'


def test_quota_counts_per_bucket_and_caller() -> None:
    faults = Faults()
    faults.set_quota(Quota(api=2, resolvers=None))
    assert [faults.decide("repos.info", "api", "a").reject is None for _ in range(3)] == [
        True,
        True,
        False,
    ]
    assert faults.decide("repos.info", "api", "b").reject is None
    assert faults.decide("files.resolve", "resolvers", "a").reject is None


def test_a_quota_for_named_callers_leaves_the_others_unlimited() -> None:
    """A benchmark limits the bot's token only: the PR openers must not be throttled."""
    faults = Faults()
    faults.set_quota(Quota(api=1, callers=frozenset({"evalbot"})))
    assert faults.decide("repos.info", "api", "evalbot").reject is None
    assert faults.decide("repos.info", "api", "evalbot").reject is not None
    assert all(faults.decide("repos.commit", "api", "alice").reject is None for _ in range(5))


def test_every_429_answered_is_counted_by_bucket() -> None:
    """Quota rejections and injected 429s both count; other statuses and passes do not."""
    faults = Faults()
    faults.set_quota(Quota(api=1, window_s=300))
    faults.add_rule(RouteFault("files.resolve", status=429, times=1))
    faults.add_rule(RouteFault("discussions.comment", status=503, times=1))
    assert faults.decide("repos.info", "api", "a").reject is None
    assert faults.decide("repos.info", "api", "a").reject is not None
    assert faults.decide("repos.info", "api", "a").reject is not None
    assert faults.decide("files.resolve", "resolvers", "a").reject is not None
    assert faults.decide("discussions.comment", "api", "b").reject is not None  # a 503
    assert faults.rate_limited_snapshot() == {"api": 2, "resolvers": 1}
    faults.reset_counters()
    assert faults.rate_limited_snapshot() == {}


@pytest.mark.parametrize(
    ("parse", "what"),
    [
        (RouteFault.from_json, "route fault"),
        (Quota.from_json, "quota"),
        (WebhookFaults.from_json, "webhook fault"),
    ],
)
def test_a_fault_setting_with_a_mistyped_key_is_refused(parse: Any, what: str) -> None:
    with pytest.raises(ValueError, match=f"unknown {what} keys: \\['dealy_s'\\]"):
        parse({"dealy_s": 1})


def test_fault_settings_round_trip_through_json() -> None:
    route = RouteFault(pattern="files.*", status=503, times=2)
    assert RouteFault.from_json(route.to_json()) == route
    hooks = WebhookFaults(drop_next=1, seed=3)
    assert WebhookFaults.from_json(hooks.to_json()) == hooks
    quota = Quota(api=10, callers=frozenset({"alice"}))
    assert Quota.from_json(quota.to_json()) == quota
