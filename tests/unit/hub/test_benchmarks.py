from __future__ import annotations

from bot.hub.client import HfHubClient
from bot.hub.sources import BenchmarkCache, HubBenchmarkSource
from bot.validation.model import Benchmark, BenchmarkLookup, BenchmarkNotFound, TaskDef
from tests.unit.hub.fake_hub import FakeHub

SHA = "e" * 40


def parse(repo_id: str, content: bytes, sha: str) -> BenchmarkLookup:
    """Stands in for bot.validation's eval.yaml parser: one task per line of the file."""
    tasks = tuple(TaskDef(line) for line in content.decode().split())
    return Benchmark(repo_id=repo_id, tasks=tasks, revision=sha)


def seed(hub: FakeHub) -> None:
    hub.datasets["idavidrein/gpqa"] = {"id": "Idavidrein/gpqa", "sha": SHA}
    hub.files[("Idavidrein/gpqa", SHA, "eval.yaml")] = b"diamond main\n"


def test_cache_hit_costs_one_revision_check(client: HfHubClient, hub: FakeHub) -> None:
    seed(hub)
    cache = BenchmarkCache()
    first = HubBenchmarkSource(client, parse, cache).lookup("idavidrein/GPQA", None)
    assert isinstance(first, Benchmark)
    assert first.repo_id == "Idavidrein/gpqa"
    assert [t.id for t in first.tasks] == ["diamond", "main"]
    assert len(hub.calls) == 2  # revision check + eval.yaml

    hub.requests.clear()
    second_run = HubBenchmarkSource(client, parse, cache)
    assert second_run.lookup("Idavidrein/gpqa", None) == first
    assert second_run.lookup("IDAVIDREIN/gpqa", None) == first  # memoised within the run
    assert hub.calls == ["GET /api/datasets/Idavidrein/gpqa"]


def test_missing_dataset_and_missing_eval_yaml(client: HfHubClient, hub: FakeHub) -> None:
    hub.datasets["acme/plain"] = {"id": "acme/plain", "sha": SHA}
    source = HubBenchmarkSource(client, parse, BenchmarkCache())
    missing = source.lookup("acme/none", None)
    assert isinstance(missing, BenchmarkNotFound)
    assert missing.reason == "dataset not found on the Hub"
    plain = source.lookup("acme/plain", None)
    assert isinstance(plain, BenchmarkNotFound)
    assert plain.reason == "no eval.yaml"


def test_lru_evicts_the_oldest() -> None:
    cache = BenchmarkCache(capacity=2)
    for name in "abc":
        cache.put((name, SHA), BenchmarkNotFound(name, "x"))
    assert cache.get(("a", SHA)) is None
    assert cache.get(("c", SHA)) is not None
    assert len(cache) == 2
