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
