"""The issuer's port closes a connection whose request headers never finish, as the receiver's
and the pages' ports do: the app never hears of such a request, so only uvicorn's protocol
can bound it (`bot.httpguards.header_deadline_protocol`)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from tests.integration.issuer.conftest import IssuerEnv, issuer_env
from tests.support.trickle import trickle_headers
from tests.support.tuning import tuned

pytestmark = pytest.mark.integration

#: Short enough for a test, long enough that a loaded machine sends the request line in time.
BODY_TIMEOUT_S = 3


@pytest.fixture(scope="module")
def slow_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerEnv]:
    with issuer_env(
        tmp_path_factory.mktemp("issuer-slow"),
        settings=tuned({"bot.httpguards.BODY_TIMEOUT_S": BODY_TIMEOUT_S}),
    ) as started:
        yield started


def test_headers_that_never_finish_are_cut_off(slow_env: IssuerEnv) -> None:
    url = urlsplit(slow_env.issuer.url)
    address = (url.hostname or "127.0.0.1", url.port or 80)
    elapsed = trickle_headers(address, "/v1/tokens", give_up_after_s=BODY_TIMEOUT_S + 6)
    assert elapsed is not None
    assert elapsed < BODY_TIMEOUT_S + 3, elapsed


def test_a_request_sent_at_once_is_still_answered(slow_env: IssuerEnv) -> None:
    answer = httpx.get(f"{slow_env.issuer.url}/.well-known/jwks.json", timeout=10)
    assert answer.status_code == 200
    assert answer.json()["keys"]
