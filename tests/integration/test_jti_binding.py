"""jti binding against a real redis-server: idempotent re-checks, reuse, TTLs, racing workers."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import redis

from bot.tokens.binding import DEFAULT_RETENTION_S, BindOutcome, binding_key
from bot.tokens.issuers import IssuerRegistry, policies_from_mapping
from bot.tokens.reasons import VerificationUnavailable
from bot.tokens.verify import verify_entry, verify_reports
from bot.validation.model import EntryReport, Verification, VerificationStatus
from evalbot_dev.devstack.redis import RedisServer
from tests.support.tokens import (
    ISSUER,
    MODEL_REPO,
    NOW,
    TARGET_FILE,
    SigningIssuer,
    entries_from_yaml,
    file_report,
    signed_report,
)
from workers.runtime import RedisJtiBinder, RedisKeyCache

pytestmark = pytest.mark.integration

VERIFIED = Verification(VerificationStatus.VERIFIED)
REUSED = Verification(VerificationStatus.UNVERIFIED, "token-reused")
DIGEST_A = "sha256:" + "a" * 64
DIGEST_B = "sha256:" + "b" * 64


class RecordingBinder:
    """A RedisJtiBinder that also records each outcome, so a race's winner can be counted."""

    def __init__(self, binder: RedisJtiBinder) -> None:
        self.binder = binder
        self.outcomes: list[BindOutcome] = []

    def bind(self, *, issuer: str, jti: str, model_repo: str, digest: str, expires_at: int) -> bool:
        outcome = self.binder.claim(
            issuer=issuer, jti=jti, model_repo=model_repo, digest=digest, expires_at=expires_at
        )
        self.outcomes.append(outcome)
        return outcome is not BindOutcome.OTHER


def claim(binder: RedisJtiBinder, **changes: Any) -> BindOutcome:
    arguments: dict[str, Any] = {
        "issuer": ISSUER,
        "jti": "jti-1",
        "model_repo": MODEL_REPO,
        "digest": DIGEST_A,
        "expires_at": int(time.time()) + 900,
    }
    arguments.update(changes)
    return binder.claim(**arguments)


def test_bind_is_idempotent_for_the_same_content_and_refuses_other_content(
    redis_server: RedisServer,
) -> None:
    binder = RedisJtiBinder(redis_server.client())
    assert claim(binder) is BindOutcome.NEW
    assert claim(binder) is BindOutcome.SAME
    assert claim(binder, digest=DIGEST_B) is BindOutcome.OTHER
    assert claim(binder, model_repo="acme/other") is BindOutcome.OTHER
    assert claim(binder, issuer="https://other-issuer.example.net") is BindOutcome.NEW
    assert claim(binder, jti="jti-2", digest=DIGEST_B) is BindOutcome.NEW
    # bind() is the JtiBinder view of the same thing
    expires_at = int(time.time()) + 900
    assert binder.bind(
        issuer=ISSUER, jti="jti-1", model_repo=MODEL_REPO, digest=DIGEST_A, expires_at=expires_at
    )
    assert not binder.bind(
        issuer=ISSUER, jti="jti-1", model_repo=MODEL_REPO, digest=DIGEST_B, expires_at=expires_at
    )


def test_bindings_outlive_the_token_and_a_restart(redis_server: RedisServer) -> None:
    client = redis_server.client()
    binder = RedisJtiBinder(client)
    assert claim(binder, expires_at=int(time.time()) - 10) is BindOutcome.NEW
    key = binding_key("evalbot:jti:", ISSUER, "jti-1")
    assert client.ttl(key) > DEFAULT_RETENTION_S - 60  # kept for re-runs long after exp
    redis_server.restart()  # AOF: bindings survive a restart
    binder = RedisJtiBinder(redis_server.client())
    assert claim(binder, digest=DIGEST_B) is BindOutcome.OTHER


def test_without_retention_the_ttl_still_covers_exp_plus_leeway(redis_server: RedisServer) -> None:
    # Warehouse #19627: a token that expired 10 s ago is still inside the 30 s leeway, so its
    # binding must not be evicted at once.
    client = redis_server.client()
    binder = RedisJtiBinder(client, retention_s=0)
    assert claim(binder, expires_at=int(time.time()) - 10) is BindOutcome.NEW
    ttl = client.ttl(binding_key("evalbot:jti:", ISSUER, "jti-1"))
    assert 20 <= ttl <= 26
    assert claim(binder, digest=DIGEST_B) is BindOutcome.OTHER


def test_a_skewed_clock_cannot_shorten_the_ttl_below_retention(redis_server: RedisServer) -> None:
    client = redis_server.client()
    binder = RedisJtiBinder(client, retention_s=3600, clock=lambda: time.time() + 86_400)
    assert claim(binder) is BindOutcome.NEW
    assert client.ttl(binding_key("evalbot:jti:", ISSUER, "jti-1")) > 3500


def race(workers: list[Callable[[], Verification]]) -> list[Verification]:
    """Run the workers at the same instant (a barrier) on their own threads; their verdicts."""
    barrier = threading.Barrier(len(workers))
    results: list[Verification | None] = [None] * len(workers)

    def run(position: int) -> None:
        barrier.wait()
        results[position] = workers[position]()

    threads = [threading.Thread(target=run, args=(position,)) for position in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert all(result is not None for result in results)
    return [result for result in results if result is not None]


def verify_on_worker(
    report: EntryReport, registry: IssuerRegistry, binder: RecordingBinder, model_repo: str
) -> Callable[[], Verification]:
    return lambda: verify_entry(
        report,
        model_repo=model_repo,
        registry=registry,
        binder=binder,
        at=datetime.fromtimestamp(NOW, tz=UTC),
    )


def test_two_workers_racing_on_the_same_content_both_verify_with_one_winner(
    redis_server: RedisServer,
) -> None:
    issuer = SigningIssuer()
    registry = IssuerRegistry(policies_from_mapping({"issuers": [issuer.config()]}))
    data = entries_from_yaml(TARGET_FILE)[0]
    for round_number in range(25):
        report = signed_report(issuer, data, jti=f"same-{round_number}")
        a = RecordingBinder(RedisJtiBinder(redis_server.client()))
        b = RecordingBinder(RedisJtiBinder(redis_server.client()))
        verdicts = race(
            [
                verify_on_worker(report, registry, a, MODEL_REPO),
                verify_on_worker(report, registry, b, MODEL_REPO),
            ]
        )
        assert verdicts == [VERIFIED, VERIFIED]
        assert sorted(o.value for o in a.outcomes + b.outcomes) == ["new", "same"]


def test_two_workers_racing_with_one_token_on_two_repos_have_exactly_one_winner(
    redis_server: RedisServer,
) -> None:
    issuer = SigningIssuer()
    registry = IssuerRegistry(policies_from_mapping({"issuers": [issuer.config()]}))
    data = entries_from_yaml(TARGET_FILE)[0]
    for round_number in range(25):
        jti = f"moved-{round_number}"
        # An issuer bug or a leaked signing service: one jti signed for two repos.
        on_a = signed_report(issuer, data, jti=jti, model_repo="acme/a")
        on_b = signed_report(issuer, data, jti=jti, model_repo="acme/b")
        a = RecordingBinder(RedisJtiBinder(redis_server.client()))
        b = RecordingBinder(RedisJtiBinder(redis_server.client()))
        verdicts = race(
            [
                verify_on_worker(on_a, registry, a, "acme/a"),
                verify_on_worker(on_b, registry, b, "acme/b"),
            ]
        )
        assert sorted(v.status.value for v in verdicts) == ["unverified", "verified"]
        assert REUSED in verdicts
        # Re-checks later (other workers, a week later) reach the same verdicts.
        later = RecordingBinder(RedisJtiBinder(redis_server.client()))
        assert verify_on_worker(on_a, registry, later, "acme/a")() == verdicts[0]
        assert verify_on_worker(on_b, registry, later, "acme/b")() == verdicts[1]


def test_redis_down_raises_for_a_retry_instead_of_publishing_a_verdict(
    redis_server: RedisServer,
) -> None:
    issuer = SigningIssuer()
    data = entries_from_yaml(TARGET_FILE)[0]
    report = signed_report(issuer, data)
    client = redis.Redis.from_url(redis_server.url, socket_timeout=2, socket_connect_timeout=2)
    jwks_issuer = issuer.config(inline=False) | {"jwks_url": "https://tokens.example.org/jwks"}
    with_inline_keys = IssuerRegistry(policies_from_mapping({"issuers": [issuer.config()]}))
    with_redis_keys = IssuerRegistry(
        policies_from_mapping({"issuers": [jwks_issuer]}), cache=RedisKeyCache(client)
    )
    binder = RedisJtiBinder(client)
    redis_server.stop(kill=True)
    for registry in (with_inline_keys, with_redis_keys):
        with pytest.raises(VerificationUnavailable):
            verify_reports(
                [file_report("f.yaml", report)],
                model_repo=MODEL_REPO,
                registry=registry,
                binder=binder,
                reference_time=lambda _file, _entry: datetime.fromtimestamp(NOW, tz=UTC),
            )
    assert report.verification == Verification.absent()  # nothing was published
    redis_server.start()
    verify_reports(
        [file_report("f.yaml", report)],
        model_repo=MODEL_REPO,
        registry=with_inline_keys,
        binder=binder,
        reference_time=lambda _file, _entry: datetime.fromtimestamp(NOW, tz=UTC),
    )
    assert report.verification == VERIFIED


def _claim_in_process(url: str, model_repo: str, rounds: int, barrier: Any, results: Any) -> None:
    """A worker process: for each round, wait for the other process, then claim the same jti."""
    binder = RedisJtiBinder(redis.Redis.from_url(url, socket_timeout=5))
    for round_number in range(rounds):
        barrier.wait(timeout=30)
        outcome = binder.claim(
            issuer=ISSUER,
            jti=f"process-race-{round_number}",
            model_repo=model_repo,
            digest=DIGEST_A,
            expires_at=int(time.time()) + 900,
        )
        results.put((round_number, model_repo, outcome.value))


def test_two_processes_racing_have_exactly_one_winner_per_jti(redis_server: RedisServer) -> None:
    context = multiprocessing.get_context("spawn")
    rounds = 50
    barrier = context.Barrier(2)
    results = context.Queue()
    workers = [
        context.Process(
            target=_claim_in_process, args=(redis_server.url, repo, rounds, barrier, results)
        )
        for repo in ("acme/a", "acme/b")
    ]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=60) for _ in range(2 * rounds)]
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    for round_number in range(rounds):
        this_round = sorted(value for number, _, value in outcomes if number == round_number)
        assert this_round == ["new", "other"], round_number
