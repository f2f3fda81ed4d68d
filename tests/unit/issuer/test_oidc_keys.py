"""Provider keys: discovery then JWKS, cached; unknown kids refetch at most once a minute;
a failed fetch keeps the cache, and with no cache is `Unavailable` (503)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from bot.issuer.integrations import IntegrationsConfig, Provider
from bot.issuer.oidc import OidcVerifier, ProviderKeys
from bot.issuer.refusals import Refusal, Unavailable
from bot.tokens.jwks import JwksFetchError
from evalbot_dev.devstack.oidc import LocalOidcProvider

ISSUER = "https://ci.example"
PROVIDER = Provider(name="ci", issuer=ISSUER)


class Fetcher:
    def __init__(self, jwk: dict[str, object]) -> None:
        self.jwk = jwk
        self.calls: list[str] = []
        self.down = False

    def __call__(self, url: str) -> bytes:
        self.calls.append(url)
        if self.down:
            raise JwksFetchError("down")
        if url.endswith("/openid-configuration"):
            return json.dumps({"issuer": ISSUER, "jwks_uri": f"{ISSUER}/jwks"}).encode()
        return json.dumps({"keys": [self.jwk]}).encode()


@pytest.fixture(scope="module")
def jwk() -> Iterator[dict[str, object]]:
    with LocalOidcProvider(kid="k1") as provider:
        yield provider.jwk()


def test_keys_are_cached_and_unknown_kids_refetch_once_per_interval(
    jwk: dict[str, object],
) -> None:
    fetch = Fetcher(jwk)
    clock = [0.0]
    keys = ProviderKeys(fetch=fetch, clock=lambda: clock[0])
    assert keys.key(PROVIDER, "k1").key_id == "k1"
    assert keys.key(PROVIDER, "k1").key_id == "k1"
    assert len(fetch.calls) == 2  # discovery + JWKS, once
    with pytest.raises(Refusal, match="kid-unknown"):
        keys.key(PROVIDER, "k2")
    assert len(fetch.calls) == 2  # just fetched: an unknown kid waits for the interval
    clock[0] += 61
    for _ in range(3):
        with pytest.raises(Refusal, match="kid-unknown"):
            keys.key(PROVIDER, "k2")
    assert len(fetch.calls) == 4  # one refetch for the unknown kid, not three
    clock[0] += 61
    with pytest.raises(Refusal, match="kid-unknown"):
        keys.key(PROVIDER, "k2")
    assert len(fetch.calls) == 6


def test_a_failed_fetch_keeps_the_cache_and_none_cached_is_unavailable(
    jwk: dict[str, object],
) -> None:
    fetch = Fetcher(jwk)
    clock = [0.0]
    keys = ProviderKeys(fetch=fetch, clock=lambda: clock[0])
    keys.key(PROVIDER, "k1")
    fetch.down = True
    clock[0] += 700  # stale: refreshed at next use, which fails
    assert keys.key(PROVIDER, "k1").key_id == "k1"
    with pytest.raises(Unavailable):
        ProviderKeys(fetch=fetch).key(PROVIDER, "k1")


def test_a_header_alg_that_is_not_the_keys_own_is_refused_not_a_crash() -> None:
    """A provider pinned to two algorithm families: a token naming one with the kid of a key
    of the other is a 401 (it was a TypeError inside PyJWT: a 500 for a forged header)."""
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    rsa_jwk = {**json.loads(RSAAlgorithm.to_jwk(rsa_key.public_key())), "kid": "r"}
    ec_jwk = {**json.loads(ECAlgorithm.to_jwk(ec_key.public_key())), "kid": "e"}

    def fetch(url: str) -> bytes:
        if url.endswith("/openid-configuration"):
            return json.dumps({"issuer": ISSUER, "jwks_uri": f"{ISSUER}/jwks"}).encode()
        return json.dumps({"keys": [rsa_jwk, ec_jwk]}).encode()

    provider = Provider(name="ci", issuer=ISSUER, algorithms=("RS256", "ES256"))

    class Replay:
        def first_use(self, key: str, ttl_s: int) -> bool:
            return True

        def used(self, key: str) -> bool:
            return False

    verifier = OidcVerifier(
        IntegrationsConfig((provider,), ()), "aud", ProviderKeys(fetch=fetch), Replay()
    )
    now = int(time.time())
    claims = {"iss": ISSUER, "sub": "s", "aud": "aud", "exp": now + 300, "iat": now, "jti": "j"}
    good = jwt.encode(claims, rsa_key, "RS256", headers={"kid": "r"})
    assert verifier.verify(good).subject == "ci:s"
    for algorithm, key, kid in (("ES256", ec_key, "r"), ("RS256", rsa_key, "e")):
        forged = jwt.encode({**claims, "jti": kid}, key, algorithm, headers={"kid": kid})
        with pytest.raises(Refusal) as refusal:
            verifier.verify(forged)
        assert (refusal.value.reason, refusal.value.status) == ("alg-key-mismatch", 401)


def test_a_provider_that_is_down_is_asked_at_most_once_per_interval(
    jwk: dict[str, object],
) -> None:
    """Forged tokens naming an unreachable provider's `iss` do not each cost a fetch (each
    attempt held every verification behind a lock for up to the fetch timeout)."""
    fetch = Fetcher(jwk)
    fetch.down = True
    clock = [0.0]
    keys = ProviderKeys(fetch=fetch, clock=lambda: clock[0])
    for _ in range(5):
        with pytest.raises(Unavailable):
            keys.key(PROVIDER, "k1")
    assert len(fetch.calls) == 1
    clock[0] += 61
    fetch.down = False
    assert keys.key(PROVIDER, "k1").key_id == "k1"
    assert len(fetch.calls) == 3
