"""`HubBenchmarkSource` over benchmark datasets seeded in the emulator."""

from __future__ import annotations

import pytest

from bot.hub.client import HfHubClient
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.sources import BenchmarkCache, HubBenchmarkSource
from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.model import Benchmark, BenchmarkNotFound
from evalbot_dev.emulator.faults import RouteFault
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import BENCHMARKS, GATED_BENCHMARK, client

pytestmark = pytest.mark.integration

GPQA, HLE = BENCHMARKS


def source(api_user: str | None, hub: EmulatorServer, cache: BenchmarkCache) -> HubBenchmarkSource:
    return HubBenchmarkSource(
        HfHubClient(client(hub, api_user)),
        benchmark_from_eval_yaml,
        cache,
    )


def seed_dataset(hub: EmulatorServer, repo_id: str, files: dict[str, bytes]) -> None:
    hub.state.seed_repo("dataset", repo_id, files, tags=[hub.state.benchmark_tag])


def test_case_insensitive_id_gives_the_canonical_spelling_and_sha(
    emulated_hub: EmulatorServer,
) -> None:
    cache = BenchmarkCache()
    found = source("evalbot", emulated_hub, cache).lookup(HLE.upper(), None)
    assert isinstance(found, Benchmark)
    assert found.repo_id == HLE
    main_sha = client(emulated_hub, "alice").dataset_info(HLE).sha
    assert found.revision == main_sha
    assert len(found.metrics) > 0  # hle-mini is a target-spec benchmark
    assert len(cache) == 1


def test_a_pinned_revision_is_resolved(emulated_hub: EmulatorServer) -> None:
    sha = client(emulated_hub, "alice").dataset_info(GPQA).sha
    found = source("evalbot", emulated_hub, BenchmarkCache()).lookup(GPQA, sha)
    assert isinstance(found, Benchmark)
    assert found.revision == sha
    missing = source("evalbot", emulated_hub, BenchmarkCache()).lookup(GPQA, "0" * 40)
    assert isinstance(missing, BenchmarkNotFound)
    assert "revision" in missing.reason


def test_missing_dataset(emulated_hub: EmulatorServer) -> None:
    found = source("evalbot", emulated_hub, BenchmarkCache()).lookup("nobody/no-bench", None)
    assert isinstance(found, BenchmarkNotFound)
    assert "not found" in found.reason


def test_dataset_without_eval_yaml(emulated_hub: EmulatorServer) -> None:
    seed_dataset(emulated_hub, "someone/plain-data", {"data.csv": b"a,b\n1,2\n"})
    found = source("evalbot", emulated_hub, BenchmarkCache()).lookup("someone/plain-data", None)
    assert isinstance(found, BenchmarkNotFound)
    assert found.dataset_id == "someone/plain-data"
    assert found.reason == "no eval.yaml"


def test_invalid_eval_yaml_keeps_its_diagnostics(emulated_hub: EmulatorServer) -> None:
    seed_dataset(emulated_hub, "someone/Broken-Bench", {"eval.yaml": b"name: x\nmetrics: []\n"})
    found = source("evalbot", emulated_hub, BenchmarkCache()).lookup("someone/broken-bench", None)
    assert isinstance(found, BenchmarkNotFound)
    assert found.dataset_id == "someone/Broken-Bench"
    assert any(d.is_error for d in found.diagnostics)


def test_a_cached_benchmark_costs_one_revision_check(emulated_hub: EmulatorServer) -> None:
    cache = BenchmarkCache()
    source("evalbot", emulated_hub, cache).lookup(GPQA, None)
    emulated_hub.faults.reset_counters()
    again = source("evalbot", emulated_hub, cache)
    assert isinstance(again.lookup(GPQA.upper(), None), Benchmark)
    assert isinstance(again.lookup(GPQA, None), Benchmark)  # memoised within the run
    assert emulated_hub.counters() == {"repos.info": 1}


def test_gated_benchmark_read_with_and_without_access(emulated_hub: EmulatorServer) -> None:
    granted = source("evalbot", emulated_hub, BenchmarkCache()).lookup(GATED_BENCHMARK, None)
    assert isinstance(granted, Benchmark)
    refused = source("bob", emulated_hub, BenchmarkCache()).lookup(GATED_BENCHMARK, None)
    assert isinstance(refused, BenchmarkNotFound)
    assert "eval.yaml unreadable" in refused.reason


def test_access_refused_is_not_cached(emulated_hub: EmulatorServer) -> None:
    """A refusal says nothing about the content at that SHA: once access is granted, it reads."""
    cache = BenchmarkCache()
    refused = source("bob", emulated_hub, cache).lookup(GATED_BENCHMARK, None)
    assert isinstance(refused, BenchmarkNotFound)
    with emulated_hub.state.locked() as state:
        state.find_repo("dataset", GATED_BENCHMARK).granted.add("bob")
    assert isinstance(source("bob", emulated_hub, cache).lookup(GATED_BENCHMARK, None), Benchmark)


def test_a_rejected_token_is_an_error_not_a_missing_dataset(emulated_hub: EmulatorServer) -> None:
    """The Hub's 401 to a bad token says nothing of the dataset: it was "dataset not found on
    the Hub", an error on every entry, kept by the issuer's and the pages' caches."""
    api = client(emulated_hub, None)
    api.token = "hf_revoked"
    lookups = HubBenchmarkSource(
        HfHubClient(api),
        benchmark_from_eval_yaml,
        BenchmarkCache(),
    )
    with pytest.raises(HubPermanentError) as raised:
        lookups.lookup(HLE, None)
    assert raised.value.status == 401
    assert not raised.value.not_found


def test_a_private_dataset_is_not_found_for_a_caller_that_may_not_see_it(
    emulated_hub: EmulatorServer,
) -> None:
    """The Hub's own "not found" for a repo a caller may not see (401 `RepoNotFound` when
    anonymous, 404 with a token) stays a missing dataset."""
    emulated_hub.state.seed_repo(
        "dataset", "alice/private-bench", {"eval.yaml": b"x"}, private=True
    )
    for user in (None, "bob"):
        found = source(user, emulated_hub, BenchmarkCache()).lookup("alice/private-bench", None)
        assert isinstance(found, BenchmarkNotFound)
        assert found.reason == "dataset not found on the Hub"


def test_a_hub_out_of_reach_is_an_error_not_a_missing_dataset(
    emulated_hub: EmulatorServer,
) -> None:
    emulated_hub.faults.add_rule(RouteFault(pattern="repos.info*", status=503))
    with pytest.raises(HubTransientError):
        source("evalbot", emulated_hub, BenchmarkCache()).lookup(HLE, None)
