"""What callers cost the Hub through the issuer's benchmark lookups: a benchmark revision that
does not exist, asked for again and again, costs one Hub call while the answer is kept."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.issuer.conftest import HLE, IssuerEnv, bearer, issuer_env
from tests.support.emulator import TOKENS

pytestmark = pytest.mark.integration

UNKNOWN_REVISION = "0" * 40


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerEnv]:
    with issuer_env(tmp_path_factory.mktemp("hub-calls")) as started:
        yield started


def revision_lookups(env: IssuerEnv) -> int:
    return env.hub.counters().get("repos.info_at_revision", 0)


def test_fifty_entries_for_one_unknown_revision_cost_one_hub_call(env: IssuerEnv) -> None:
    """Every request used to ask the Hub again for the same missing revision."""
    unknown = env.entry(dataset={"id": HLE, "task_id": "hle", "revision": UNKNOWN_REVISION})
    before = revision_lookups(env)
    batch = env.post(bearer(TOKENS["alice"]), env.body(*[unknown] * 40))
    assert batch.status_code == 422, batch.text
    for _ in range(10):
        single = env.post(bearer(TOKENS["alice"]), env.body(unknown))
        assert single.status_code == 422, single.text
        assert "not found" in single.text
    assert revision_lookups(env) - before == 1


def test_a_hub_that_refuses_the_issuers_token_is_unavailable_not_a_missing_benchmark(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The issuer's own Hub token revoked (the Hub's 401): every benchmark was "dataset not found
    on the Hub", a 422 blaming the caller's entries, kept for five minutes. It is the issuer
    that cannot read the Hub: 503, nothing kept, so the next request asks again."""
    work = tmp_path_factory.mktemp("revoked")
    with issuer_env(work, settings={"EVALBOT_ISSUER_HF_TOKEN": "hf_revoked"}) as revoked:
        for _ in range(2):
            response = revoked.post(bearer(revoked.id_token()), revoked.body())
            assert response.status_code == 503, response.text
            assert revoked.audited(response)["reason"] == "hub-unavailable"
        assert revoked.hub.counters().get("repos.info_at_revision", 0) == 2
