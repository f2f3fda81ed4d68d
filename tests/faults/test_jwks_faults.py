"""An issuer's JWKS endpoint down or flooded, seen through the bot's verdicts
(docs/security.md#fault-injection item 7). The bot trusts an issuer whose keys it must fetch from a
real HTTP server on 127.0.0.1; the registry's own tests step through rotation and cooldowns with a
fake clock, here the end-to-end verdict on the PR is checked.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from evalbot_dev.devstack.signing import LocalIssuer
from tests.faults.conftest import assert_one_report, fault_bot, signed_pr
from tests.support.jwks_server import Answer, JwksServer, key_set
from tests.support.stackbot import Bot

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory, jwks: JwksServer) -> Iterator[Bot]:
    signer = LocalIssuer()
    config = {
        "issuer": signer.issuer,
        "jwks_url": jwks.url(),
        "frameworks": list(signer.frameworks),
        "max_lifetime_s": 3600,
    }
    with fault_bot(tmp_path_factory, "jwks", issuer_config=config) as running:
        yield running


def test_keys_fetched_once_keep_verifying_while_the_jwks_endpoint_is_down(
    bot: Bot, jwks: JwksServer
) -> None:
    """Invariant: once fetched, an issuer's keys keep verifying its tokens while its JWKS
    endpoint is down; a flood of tokens with unknown `kid`s is answered `kid-unknown` without
    hammering the endpoint (at most one fetch per cooldown, here none)."""
    jwks.respond(key_set(bot.issuer))
    num, head = signed_pr(bot, bot.issuer, 20.5)
    assert "✅ verified" in bot.wait_for_report(num, head=head).content
    fetches = jwks.fetches
    assert fetches == 1

    jwks.respond(Answer(status=503))
    num, head = signed_pr(bot, bot.issuer, 21.5)
    assert "✅ verified" in bot.wait_for_report(num, head=head).content

    flood = [
        signed_pr(bot, LocalIssuer(kid=f"unknown-{secrets.token_hex(4)}"), 22 + index)
        for index in range(5)
    ]
    for num, head in flood:
        report = bot.wait_for_report(num, head=head)
        assert "kid-unknown" in report.content
        assert "✅ verified" not in report.content
    bot.wait_until_quiet()
    for num, head in flood:
        assert_one_report(bot, num, head)
    assert jwks.fetches - fetches <= 1
