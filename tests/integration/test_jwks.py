"""Issuer keys fetched from a real JWKS server on 127.0.0.1: rotation, outage, garbage, floods.

The registry uses the real httpx fetcher; only the cooldown clock is injected (MemoryKeyCache)
so the "at most one refetch per issuer per minute" rule can be stepped through without waiting.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.adapters.jwks_http import HttpxJwksFetcher
from bot.tokens.binding import MemoryJtiBinder
from bot.tokens.issuers import JWKS_MAX_AGE_S, IssuerRegistry, policies_from_mapping
from bot.tokens.keycache import CachedJwks, MemoryKeyCache
from bot.tokens.reasons import VerificationUnavailable
from bot.tokens.verify import verify_entry
from bot.validation.model import EntryReport, Verification, VerificationStatus
from evalbot_dev.devstack.redis import RedisServer
from tests.support.jwks_server import Answer, FakeClock, JwksServer, running_jwks_server
from tests.support.tokens import (
    MODEL_REPO,
    NOW,
    TARGET_FILE,
    SigningIssuer,
    entries_from_yaml,
    entry_report,
)
from workers.runtime import RedisKeyCache

pytestmark = pytest.mark.integration

VERIFIED = Verification(VerificationStatus.VERIFIED)


def unverified(reason: str) -> Verification:
    return Verification(VerificationStatus.UNVERIFIED, reason)


def jwks(*issuers: SigningIssuer, extra: list[dict[str, Any]] | None = None) -> Answer:
    keys: list[dict[str, Any]] = [issuer.jwk() for issuer in issuers]
    document = {"keys": [*(extra or []), *keys]}
    return Answer(body=json.dumps(document).encode(), headers={"Content-Type": "application/json"})


@pytest.fixture
def server() -> Iterator[JwksServer]:
    with running_jwks_server() as running:
        yield running


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def make_registry(
    server: JwksServer,
    *,
    cache: Any = None,
    clock: FakeClock | None = None,
    url: str | None = None,
    fetcher: HttpxJwksFetcher | None = None,
) -> IssuerRegistry:
    issuer = SigningIssuer()
    config = issuer.config(inline=False) | {"jwks_url": url or server.url()}
    return IssuerRegistry(
        policies_from_mapping({"issuers": [config]}),
        cache=cache if cache is not None else MemoryKeyCache(clock or FakeClock()),
        fetcher=fetcher or HttpxJwksFetcher(timeout_s=2.0),
    )


def signed(issuer: SigningIssuer) -> EntryReport:
    data = entries_from_yaml(TARGET_FILE)[0]
    token = issuer.token_for(entry_report(data))
    return entry_report(data, token=token)


def verdict(report: EntryReport, registry: IssuerRegistry) -> Verification:
    return verify_entry(
        report,
        model_repo=MODEL_REPO,
        registry=registry,
        binder=MemoryJtiBinder(),
        at=datetime.fromtimestamp(NOW, tz=UTC),
    )


def test_keys_are_fetched_once_and_served_from_the_cache(server: JwksServer) -> None:
    k1 = SigningIssuer(kid="k1")
    server.respond(jwks(k1, extra=[{"kty": "RSA", "kid": "rsa", "n": "AQAB", "e": "AQAB"}]))
    registry = make_registry(server)
    for _ in range(5):
        assert verdict(signed(k1), registry) == VERIFIED
    assert server.fetches == 1


def test_a_key_the_issuer_removed_stops_verifying_after_the_refresh_interval(
    server: JwksServer, clock: FakeClock
) -> None:
    """Revocation: the issuer drops k1 from its set. Within the refresh interval the cached
    set still verifies it (no fetch per token); after it, one refetch, and k1 is unknown."""
    k1, k2 = SigningIssuer(kid="k1"), SigningIssuer(kid="k2")
    server.respond(jwks(k1, k2))
    registry = make_registry(server, clock=clock)
    assert verdict(signed(k1), registry) == VERIFIED
    server.respond(jwks(k2))  # k1 revoked
    clock.advance(JWKS_MAX_AGE_S - 1)
    assert verdict(signed(k1), registry) == VERIFIED
    assert server.fetches == 1
    clock.advance(2)
    assert verdict(signed(k1), registry) == unverified("kid-unknown")
    assert verdict(signed(k2), registry) == VERIFIED
    assert server.fetches == 2


def test_a_due_refresh_that_fails_keeps_the_cached_set_and_retries_after_the_cooldown(
    server: JwksServer, clock: FakeClock
) -> None:
    k1 = SigningIssuer(kid="k1")
    server.respond(jwks(k1))
    registry = make_registry(server, clock=clock)
    assert verdict(signed(k1), registry) == VERIFIED
    server.respond(Answer(status=503))
    clock.advance(JWKS_MAX_AGE_S + 1)
    for _ in range(3):  # the endpoint is down: the stale set keeps verifying, one attempt
        assert verdict(signed(k1), registry) == VERIFIED
    assert server.fetches == 2
    server.respond(jwks(k1))
    clock.advance(61)  # past the refetch cooldown
    assert verdict(signed(k1), registry) == VERIFIED
    assert server.fetches == 3
    assert verdict(signed(k1), registry) == VERIFIED  # fresh again: no fetch
    assert server.fetches == 3


def test_the_redis_cache_marks_a_set_stale_after_its_interval(redis_server: RedisServer) -> None:
    cache = RedisKeyCache(redis_server.client())
    cache.store("https://iss.example", b'{"keys": []}', fresh_for_s=30)
    assert cache.load("https://iss.example") == CachedJwks(b'{"keys": []}', fresh=True)
    client = redis_server.client()
    assert 0 < client.ttl("evalbot:jwks:fresh:https://iss.example") <= 30
    assert client.ttl("evalbot:jwks:body:https://iss.example") == -1  # kept: stale beats none
    client.delete("evalbot:jwks:fresh:https://iss.example")  # what the TTL does in 30 s
    assert cache.load("https://iss.example") == CachedJwks(b'{"keys": []}', fresh=False)
    assert cache.load("https://other.example") is None


def test_rotation_refetches_once_per_interval(server: JwksServer, clock: FakeClock) -> None:
    k1, k2, k3 = (SigningIssuer(kid=kid) for kid in ("k1", "k2", "k3"))
    server.respond(jwks(k1))
    registry = make_registry(server, clock=clock)
    assert verdict(signed(k1), registry) == VERIFIED
    clock.advance(61)
    server.respond(jwks(k1, k2))  # the issuer rotates in k2
    assert verdict(signed(k2), registry) == VERIFIED
    assert server.fetches == 2
    server.respond(jwks(k2, k3))  # ... and k3, 10 s later: still in the cooldown
    clock.advance(10)
    assert verdict(signed(k3), registry) == unverified("kid-unknown")
    assert server.fetches == 2
    clock.advance(51)
    assert verdict(signed(k3), registry) == VERIFIED
    assert verdict(signed(k1), registry) == unverified("kid-unknown")  # k1 was retired
    assert server.fetches == 3


def test_unknown_kid_flood_fetches_at_most_once_per_minute(
    server: JwksServer, clock: FakeClock
) -> None:
    k1 = SigningIssuer(kid="k1")
    server.respond(jwks(k1))
    registry = make_registry(server, clock=clock)
    assert verdict(signed(k1), registry) == VERIFIED
    clock.advance(61)
    report = signed(k1)
    claims = k1.claims_for(entry_report(entries_from_yaml(TARGET_FILE)[0]))
    for _ in range(1000):
        sprayed = k1.sign(claims, kid=secrets.token_hex(8))
        report = entry_report(report.entry.data, token=sprayed)
        assert verdict(report, registry) == unverified("kid-unknown")
    assert server.fetches == 2  # the first fetch, then one refetch for the whole flood
    clock.advance(61)
    assert verdict(signed(SigningIssuer(kid="zz")), registry) == unverified("kid-unknown")
    assert server.fetches == 3
    assert verdict(signed(k1), registry) == VERIFIED  # the flood did not evict the real key


@pytest.mark.parametrize(
    "fault",
    [
        Answer(status=500, body=b"oops"),
        Answer(status=404),
        Answer(body=b"<html>not json</html>"),
        Answer(body=b'{"keys": []}'),
        Answer(body=b'{"keys": "k1"}'),
        Answer(body=b"[]"),
        Answer(
            body=json.dumps(
                {"keys": [{"kty": "OKP", "crv": "Ed448", "kid": "k9", "x": "AA"}]}
            ).encode()
        ),
        Answer(
            body=json.dumps(
                {"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k9", "x": "AAAA"}]}
            ).encode()
        ),
    ],
)
def test_outage_or_garbage_never_empties_the_cache(
    fault: Answer, server: JwksServer, clock: FakeClock
) -> None:
    k1 = SigningIssuer(kid="k1")
    server.respond(jwks(k1))
    registry = make_registry(server, clock=clock)
    assert verdict(signed(k1), registry) == VERIFIED
    server.respond(fault)
    clock.advance(61)
    # The set could not be read again: k9 may be a key just published, so it is not "unknown".
    assert verdict(signed(SigningIssuer(kid="k9")), registry) == unverified("keys-unavailable")
    assert server.fetches == 2
    assert verdict(signed(k1), registry) == VERIFIED


def test_server_down_with_a_warm_cache_keeps_verifying(clock: FakeClock) -> None:
    k1 = SigningIssuer(kid="k1")
    with running_jwks_server() as server:
        server.respond(jwks(k1))
        registry = make_registry(server, clock=clock)
        assert verdict(signed(k1), registry) == VERIFIED
    clock.advance(61)
    assert verdict(signed(SigningIssuer(kid="new")), registry) == unverified("keys-unavailable")
    assert verdict(signed(k1), registry) == VERIFIED


def test_a_kid_met_while_the_jwks_cannot_be_read_is_never_unknown(
    server: JwksServer, redis_server: RedisServer
) -> None:
    """A refetch for an unknown kid that fails leaves every worker answering "unavailable" (the
    bot retries) until the next refetch may start; once the set is read again, a kid it lacks
    is unknown."""
    k1, rotated = SigningIssuer(kid="k1"), SigningIssuer(kid="k2")
    server.respond(jwks(k1))
    issuer_config = k1.config(inline=False) | {"jwks_url": server.url()}
    cache = RedisKeyCache(redis_server.client(), prefix=f"test:{secrets.token_hex(4)}:")

    def worker(*, bot: bool) -> IssuerRegistry:
        return IssuerRegistry(
            policies_from_mapping({"issuers": [issuer_config]}),
            cache=cache,
            fetcher=HttpxJwksFetcher(timeout_s=2.0),
            refetch_interval_s=1,
            unavailable_keys_raise=bot,
        )

    first, second = worker(bot=False), worker(bot=True)
    assert verdict(signed(k1), first) == VERIFIED
    server.respond(Answer(status=503))
    token = signed(rotated)
    deadline = time.monotonic() + 10
    while verdict(token, first) != unverified("keys-unavailable"):
        assert time.monotonic() < deadline, "the cooldown never let a refetch start"
        time.sleep(0.05)  # the poll's interval, while the 1 s cooldown runs out
    with pytest.raises(VerificationUnavailable):  # the other worker: no fetch, same answer
        verdict(token, second)
    assert verdict(signed(k1), second) == VERIFIED  # the cached keys keep verifying
    server.respond(jwks(k1))
    while verdict(token, first) != unverified("kid-unknown"):
        assert time.monotonic() < deadline, "the set was never read again"
        time.sleep(0.05)


def test_never_fetched_and_down_is_keys_unavailable(server: JwksServer, clock: FakeClock) -> None:
    k1 = SigningIssuer(kid="k1")
    server.respond(Answer(status=503))
    registry = make_registry(server, clock=clock)
    assert verdict(signed(k1), registry) == unverified("keys-unavailable")
    assert verdict(signed(k1), registry) == unverified("keys-unavailable")
    assert server.fetches == 1  # the second attempt waits for the cooldown
    server.respond(jwks(k1))
    clock.advance(61)
    assert verdict(signed(k1), registry) == VERIFIED


def test_redirects_stay_on_the_same_host(server: JwksServer, clock: FakeClock) -> None:
    k1 = SigningIssuer(kid="k1")
    elsewhere = server.url("/keys", host="localhost")  # same port, another host name
    server.respond(Answer(status=302, headers={"Location": elsewhere}))
    registry = make_registry(server, clock=clock)
    assert verdict(signed(k1), registry) == unverified("keys-unavailable")
    assert server.fetches == 1  # the redirect was not followed

    server.respond(Answer(status=301, headers={"Location": "/v2/jwks.json"}), path="/old")
    server.respond(jwks(k1), path="/v2/jwks.json")
    same_origin = make_registry(server, clock=clock, url=server.url("/old"))
    assert verdict(signed(k1), same_origin) == VERIFIED
    assert server.requests[-2:] == ["/old", "/v2/jwks.json"]

    server.respond(Answer(status=302, headers={"Location": "/old"}), path="/loop")
    server.respond(Answer(status=302, headers={"Location": "/loop"}), path="/old")
    looping = make_registry(server, clock=clock, url=server.url("/loop"))
    assert verdict(signed(k1), looping) == unverified("keys-unavailable")


def test_size_and_time_caps(server: JwksServer, clock: FakeClock) -> None:
    k1 = SigningIssuer(kid="k1")
    document = {"keys": [k1.jwk()], "padding": "x" * 70_000}
    server.respond(Answer(body=json.dumps(document).encode()))
    registry = make_registry(server, clock=clock)
    assert verdict(signed(k1), registry) == unverified("keys-unavailable")

    server.respond(Answer(body=json.dumps({"keys": [k1.jwk()]}).encode(), delay_s=1.5))
    slow = make_registry(server, clock=clock, fetcher=HttpxJwksFetcher(timeout_s=0.3))
    assert verdict(signed(k1), slow) == unverified("keys-unavailable")


def test_workers_share_the_redis_cache_and_its_refetch_budget(
    server: JwksServer, redis_server: RedisServer
) -> None:
    k1, k2 = SigningIssuer(kid="k1"), SigningIssuer(kid="k2")
    server.respond(jwks(k1))
    client = redis_server.client()
    worker_a = make_registry(server, cache=RedisKeyCache(client))
    worker_b = make_registry(server, cache=RedisKeyCache(redis_server.client()))
    assert verdict(signed(k1), worker_a) == VERIFIED
    assert verdict(signed(k1), worker_b) == VERIFIED
    assert server.fetches == 1  # worker b read what worker a fetched
    server.respond(jwks(k1, k2))
    for _ in range(50):  # a flood over both workers inside the cooldown
        assert verdict(signed(SigningIssuer(kid=secrets.token_hex(6))), worker_a).reason == (
            "kid-unknown"
        )
        assert verdict(signed(SigningIssuer(kid=secrets.token_hex(6))), worker_b).reason == (
            "kid-unknown"
        )
    assert server.fetches == 1
    client.delete("evalbot:jwks:refetch:https://tokens.example.org")  # the minute is over
    assert verdict(signed(k2), worker_b) == VERIFIED
    assert verdict(signed(k2), worker_a) == VERIFIED
    assert server.fetches == 2
    ttl = client.ttl("evalbot:jwks:refetch:https://tokens.example.org")
    assert 0 < ttl <= 60


def test_bot_mode_retries_instead_of_publishing_keys_unavailable(
    server: JwksServer, redis_server: RedisServer
) -> None:
    k1 = SigningIssuer(kid="k1")
    server.respond(jwks(k1))
    issuer_config = k1.config(inline=False) | {"jwks_url": server.url()}
    cache = RedisKeyCache(redis_server.client())
    # Another worker has just claimed the refetch and is still fetching: nothing cached yet.
    assert cache.claim_refetch(k1.issuer, 60)
    bot = IssuerRegistry(
        policies_from_mapping({"issuers": [issuer_config]}),
        cache=cache,
        unavailable_keys_raise=True,
    )
    with pytest.raises(VerificationUnavailable):
        verdict(signed(k1), bot)
    cli = IssuerRegistry(policies_from_mapping({"issuers": [issuer_config]}), cache=cache)
    assert verdict(signed(k1), cli) == unverified("keys-unavailable")
    assert server.fetches == 0
    # The other worker's fetch lands in the shared cache: the retried task verifies.
    cache.store(k1.issuer, json.dumps({"keys": [k1.jwk()]}).encode(), fresh_for_s=600)
    assert verdict(signed(k1), bot) == VERIFIED
