"""`bot.hub.identity.whoami` with the real `huggingface_hub` client against the emulator's
`GET /api/whoami-v2`: the fields the bot reads, a refused token, a Hub that never answers."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.identity import HubIdentity, whoami
from bot.hub.timeouts import use_hub_timeout
from evalbot_dev.emulator.faults import RouteFault
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import TOKENS, client

pytestmark = pytest.mark.integration


@pytest.fixture
def hub_timeout_1s() -> Iterator[None]:
    from huggingface_hub import set_client_factory
    from huggingface_hub.utils._http import default_client_factory

    use_hub_timeout(1.0)
    yield
    set_client_factory(default_client_factory)  # the library's own, for the other tests


def identity(hub: EmulatorServer, user: str) -> HubIdentity:
    return whoami(client(hub, user), TOKENS[user])


def test_a_write_token_of_an_org_member(emulated_hub: EmulatorServer) -> None:
    carol = identity(emulated_hub, "carol")
    assert (carol.name, carol.type, carol.orgs) == ("carol", "user", ("evals-org",))
    assert (carol.role, carol.scopes) == ("write", ())


def test_the_bots_fine_grained_token(emulated_hub: EmulatorServer) -> None:
    bot = identity(emulated_hub, "evalbot")
    assert bot.name == "evalbot"
    assert bot.is_named("EvalBot")
    assert bot.role == "fineGrained"
    assert bot.permissions_on("user:evalbot") == ("discussion.write", "repo.content.read")


def test_a_token_the_hub_refuses_is_a_permanent_401(emulated_hub: EmulatorServer) -> None:
    from huggingface_hub import HfApi

    with pytest.raises(HubPermanentError) as refused:
        whoami(HfApi(endpoint=emulated_hub.url), "hf_revoked")
    assert refused.value.status == 401


@pytest.mark.usefixtures("hub_timeout_1s")
def test_a_hub_that_never_answers_is_transient_within_the_timeout(
    emulated_hub: EmulatorServer,
) -> None:
    emulated_hub.faults.add_rule(RouteFault(pattern="identity.whoami", latency_s=4.0))
    started = time.monotonic()
    with pytest.raises(HubTransientError):
        identity(emulated_hub, "evalbot")
    assert time.monotonic() - started < 3.0
