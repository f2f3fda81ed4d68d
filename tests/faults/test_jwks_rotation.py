"""An issuer rotating its signing key, end to end (docs/security.md#fault-injection item 7): the bot
trusts an issuer through its JWKS URL only (a real HTTP server on 127.0.0.1), with the refetch
cooldown set to 1 s (`bot.tokens.issuers.REFETCH_INTERVAL_S`, `tests.support.tuning`) so the
test can wait it out. The verdicts are read on the PR reports, the fetches on the JWKS server's
request count.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

from evalbot_dev.devstack.signing import LocalIssuer
from evalbot_dev.devstack.waiting import wait_until
from tests.faults.conftest import (
    FAULT_TUNING,
    Stopwatch,
    assert_one_report,
    fault_bot,
    signed_pr,
)
from tests.support.jwks_server import Answer, JwksServer, key_set
from tests.support.stackbot import Bot

pytestmark = pytest.mark.integration

#: The refetch cooldown for this stack, in seconds (production: 60).
REFETCH_INTERVAL_S = 1
ISSUER = LocalIssuer.issuer
COOLDOWN_KEY = f"evalbot:jwks:refetch:{ISSUER}"
BODY_KEY = f"evalbot:jwks:body:{ISSUER}"


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory, jwks: JwksServer) -> Iterator[Bot]:
    config = {
        "issuer": ISSUER,
        "jwks_url": jwks.url(),
        "frameworks": list(LocalIssuer.frameworks),
        "max_lifetime_s": 3600,
    }
    tuning = {**FAULT_TUNING, "bot.tokens.issuers.REFETCH_INTERVAL_S": REFETCH_INTERVAL_S}
    with fault_bot(
        tmp_path_factory, "jwks-rotation", tuning=tuning, issuer_config=config
    ) as running:
        yield running


def wait_out_the_cooldown(bot: Bot) -> float:
    """Until the fleet-wide refetch cooldown key has expired (polled, with a deadline);
    returns the seconds waited."""
    clock = Stopwatch()
    wait_until(
        lambda: not bot.redis.exists(COOLDOWN_KEY),
        timeout=REFETCH_INTERVAL_S + 10,
        what="the JWKS refetch cooldown to pass",
    )
    return clock.elapsed()


def verdict(bot: Bot, signer: LocalIssuer, value: float) -> str:
    """Open a PR whose entry `signer` signed; the PR's one report."""
    num, head = signed_pr(bot, signer, value)
    report = bot.wait_for_report(num, head=head).content
    bot.wait_until_quiet()
    assert_one_report(bot, num, head)
    return report


def cached_kids(bot: Bot) -> set[str]:
    body = bot.redis.get(BODY_KEY)
    assert isinstance(body, bytes)
    return {key["kid"] for key in json.loads(body)["keys"]}


def test_a_rotated_key_is_fetched_once_and_a_bad_jwks_keeps_the_cached_keys(
    bot: Bot, jwks: JwksServer, record_figure: Callable[[str, float], None]
) -> None:
    """Invariant: after an issuer rotates (its JWKS serves A and B), a token signed with the
    new key B verifies with exactly one more fetch once the cooldown has passed; tokens signed
    with A keep verifying without a fetch; and a JWKS that then answers `{"keys": []}` or
    garbage (fetched because of an unknown kid) replaces nothing: B still verifies, unfetched,
    and the unknown kid's PR is not checked (the keys could not be read), never `kid-unknown`."""
    key_a, key_b = LocalIssuer(kid="key-a"), LocalIssuer(kid="key-b")
    jwks.respond(key_set(key_a))
    assert "✅ verified" in verdict(bot, key_a, 30.5)
    assert jwks.fetches == 1

    jwks.respond(key_set(key_a, key_b))  # the rotation: B published next to A
    record_figure("jwks_cooldown_wait_s", wait_out_the_cooldown(bot))
    assert "✅ verified" in verdict(bot, key_b, 31.5)
    assert jwks.fetches == 2
    assert "✅ verified" in verdict(bot, key_a, 32.5)
    assert jwks.fetches == 2
    assert cached_kids(bot) == {"key-a", "key-b"}

    bad_answers = [
        Answer(body=b'{"keys": []}', headers={"Content-Type": "application/json"}),
        Answer(body=b"<html>maintenance</html>", headers={"Content-Type": "text/html"}),
    ]
    for index, bad in enumerate(bad_answers):
        jwks.respond(bad)
        wait_out_the_cooldown(bot)
        fetches = jwks.fetches
        stranger = LocalIssuer(kid=f"key-unknown-{index}")
        report = verdict(bot, stranger, 33.5 + index)
        # A kid the cached set lacks, while the JWKS cannot be read: not checked, never unknown.
        assert "evalbot:not-checked" in report
        assert "kid-unknown" not in report
        assert "✅ verified" not in report
        assert jwks.fetches > fetches  # the unknown kid did fetch (each retry once the cooldown
        fetches = jwks.fetches  # ran out), and got the bad answer every time
        assert "✅ verified" in verdict(bot, key_b, 35.5 + index)
        assert jwks.fetches == fetches
        assert cached_kids(bot) == {"key-a", "key-b"}
    # Only the strangers' PRs gave up, each saying the keys could not be fetched.
    parked = bot.parked()
    assert len(parked) == len(bad_answers)
    assert {entry["reason"] for entry in parked} == {"VerificationUnavailable"}
