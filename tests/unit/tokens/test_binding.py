"""The in-memory binder (the CLI's) and the TTL rule shared with the Redis binder."""

from __future__ import annotations

import threading

from bot.tokens.binding import (
    DEFAULT_RETENTION_S,
    BindOutcome,
    MemoryJtiBinder,
    binding_key,
    binding_ttl_s,
)

DIGEST_A = "sha256:" + "a" * 64
DIGEST_B = "sha256:" + "b" * 64


def test_memory_binder_outcomes() -> None:
    binder = MemoryJtiBinder()
    common = {"issuer": "https://i", "jti": "j"}
    assert binder.claim(model_repo="a/m", digest=DIGEST_A, **common) is BindOutcome.NEW
    assert binder.claim(model_repo="a/m", digest=DIGEST_A, **common) is BindOutcome.SAME
    assert binder.claim(model_repo="a/m", digest=DIGEST_B, **common) is BindOutcome.OTHER
    assert binder.claim(model_repo="b/m", digest=DIGEST_A, **common) is BindOutcome.OTHER
    assert binder.bind(model_repo="a/m", digest=DIGEST_A, expires_at=0, **common)
    assert not binder.bind(model_repo="b/m", digest=DIGEST_A, expires_at=0, **common)


def test_memory_binder_has_one_winner_among_racing_threads() -> None:
    binder = MemoryJtiBinder()
    barrier = threading.Barrier(8)
    outcomes: list[BindOutcome] = []
    lock = threading.Lock()

    def run(repo: str) -> None:
        barrier.wait()
        outcome = binder.claim(issuer="https://i", jti="j", model_repo=repo, digest=DIGEST_A)
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=run, args=(f"acme/{n}",)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert sorted(outcome.value for outcome in outcomes) == ["new"] + ["other"] * 7


def test_ttl_covers_retention_and_exp_plus_leeway() -> None:
    now = 1_000_000.0
    assert binding_ttl_s(int(now) + 900, now=now, retention_s=DEFAULT_RETENTION_S) == (
        DEFAULT_RETENTION_S
    )
    assert binding_ttl_s(int(now) + 900, now=now, retention_s=0) == 900 + 35
    assert binding_ttl_s(int(now) - 10, now=now, retention_s=0) == 25
    assert binding_ttl_s(int(now) - 1000, now=now, retention_s=0) == 1


def test_binding_keys_have_a_fixed_size_and_separate_issuers() -> None:
    long_jti = "j" * 10_000
    assert len(binding_key("p:", "https://i", long_jti)) == len("p:") + 64
    assert binding_key("p:", "https://a", "bc") != binding_key("p:", "https://ab", "c")
