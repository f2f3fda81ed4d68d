"""What authentication costs the Hub, and what failing it costs the caller, against the real
issuer (uvicorn) with real Redis and the emulator as the Hub, whose `whoami-v2` calls are counted.

The issuer trusts `X-Forwarded-For` from 127.0.0.1 (`FORWARDED_ALLOW_IPS`, as behind a local
proxy), so each test speaks from its own addresses and counts only its own failures.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

import httpx
import pytest

from bot.issuer.limits import AUTH_FAILURE_WINDOW_S
from bot.issuer.refusals import GENERIC
from evalbot_dev.emulator.faults import RouteFault
from tests.integration.issuer.conftest import (
    CLIENT_ID,
    CLIENT_SECRET,
    IssuerEnv,
    bearer,
    issuer_env,
    refused,
)
from tests.support.emulator import TOKENS

pytestmark = pytest.mark.integration

FAILURES = 5
WINDOW_S = AUTH_FAILURE_WINDOW_S


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerEnv]:
    settings = {"FORWARDED_ALLOW_IPS": "127.0.0.1"}
    options = {"auth_failures": FAILURES}
    with issuer_env(tmp_path_factory.mktemp("auth-failures"), settings, options) as started:
        yield started


def whoami_calls(env: IssuerEnv) -> int:
    return env.hub.counters().get("identity.whoami", 0)


def post_from(env: IssuerEnv, address: str, authorization: str) -> httpx.Response:
    return env.post(authorization, env.body(), headers={"X-Forwarded-For": address})


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


def rate_limited(env: IssuerEnv, response: httpx.Response, address: str) -> None:
    line = refused(env, response, 429, "auth-failures")
    assert line["address"] == address
    assert 1 <= int(response.headers["Retry-After"]) <= WINDOW_S


def test_fifty_issuances_with_one_hub_token_ask_the_hub_once(env: IssuerEnv) -> None:
    before = whoami_calls(env)
    answers = [post_from(env, "10.0.1.1", bearer(TOKENS["alice"])) for _ in range(50)]
    assert [a.status_code for a in answers] == [200] * 50, answers[-1].text
    assert whoami_calls(env) - before == 1


def test_garbage_hub_tokens_cost_bounded_hub_calls_then_429(env: IssuerEnv) -> None:
    address = "10.0.2.1"
    before = whoami_calls(env)
    answers = [post_from(env, address, bearer(f"hf_garbage_{n:02d}")) for n in range(20)]
    for answer in answers[:FAILURES]:
        refused(env, answer, 401, "hub-token-rejected")
    for answer in answers[FAILURES:]:
        rate_limited(env, answer, address)
    assert whoami_calls(env) - before == FAILURES
    # Once limited, even a good token from that address is not checked (nor is the Hub asked);
    # another address is not affected.
    rate_limited(env, post_from(env, address, bearer(TOKENS["alice"])), address)
    assert whoami_calls(env) - before == FAILURES
    assert post_from(env, "10.0.2.2", bearer(TOKENS["alice"])).status_code == 200


def test_the_same_garbage_token_repeated_asks_the_hub_once(env: IssuerEnv) -> None:
    before = whoami_calls(env)
    for _ in range(FAILURES - 1):
        response = post_from(env, "10.0.3.1", bearer("hf_the_same_garbage"))
        refused(env, response, 401, "hub-token-rejected")
    assert whoami_calls(env) - before == 1


def test_a_failing_hub_is_not_an_authentication_failure(env: IssuerEnv) -> None:
    env.hub.faults.add_rule(RouteFault("identity.whoami", status=500))
    try:
        for _ in range(FAILURES + 1):
            response = post_from(env, "10.0.4.1", bearer(TOKENS["bob"]))
            refused(env, response, 503, "hub-whoami-failed")
    finally:
        env.hub.faults.clear()
    # Not cached, not counted: the same token from the same address is asked about again.
    refused(env, post_from(env, "10.0.4.1", bearer(TOKENS["bob"])), 403, "no-integration")


def test_guessing_a_client_secret_from_many_addresses_is_limited_and_audited(
    env: IssuerEnv,
) -> None:
    guesses = [
        post_from(env, f"10.0.5.{n}", basic(CLIENT_ID, f"evs_guess_{n}")) for n in range(1, 9)
    ]
    for guess in guesses[:FAILURES]:
        refused(env, guess, 401, "client-credentials-rejected")
    for n, guess in enumerate(guesses[FAILURES:], start=FAILURES + 1):
        rate_limited(env, guess, f"10.0.5.{n}")
        assert guess.json() == {"error": GENERIC[429], "request_id": guess.json()["request_id"]}
    # Past the limit the client id is refused whatever the secret (a right guess is not told
    # apart from a wrong one); other client ids, and other ways in, are not affected.
    rate_limited(env, post_from(env, "10.0.5.100", basic(CLIENT_ID, CLIENT_SECRET)), "10.0.5.100")
    response = post_from(env, "10.0.5.101", basic("someone-else", "evs_x"))
    refused(env, response, 401, "client-credentials-rejected")
    assert post_from(env, "10.0.5.102", bearer(TOKENS["alice"])).status_code == 200
