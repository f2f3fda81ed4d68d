"""HubBenchmarkSource over a recording fake of the two HfApi calls it makes.

The real client against a real server is covered once the Hub emulator exists; here: how
Hub answers map to lookups, the canonical id, and the cache by commit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from huggingface_hub import HfApi
from huggingface_hub.errors import (
    GatedRepoError,
    HfHubHTTPError,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from bot.hub.benchmarks import DatasetReader, HubBenchmarkSource
from bot.spec.model import Benchmark, BenchmarkNotFound
from tests.unit.spec.conftest import REAL_EVAL_YAML

SHA = "a" * 40


def http_error(kind: type[HfHubHTTPError], status: int) -> HfHubHTTPError:
    response = httpx2.Response(status, request=httpx2.Request("GET", "http://127.0.0.1/"))
    return kind("from the fake Hub", response=response)


@dataclass
class Info:
    id: str
    sha: str | None


@dataclass
class FakeHub:
    """Datasets by lower-cased id: (canonical id, sha, eval.yaml bytes or None)."""

    root: Path
    datasets: dict[str, tuple[str, str, bytes | None]]
    calls: list[tuple[str, str, str | None]] = field(default_factory=list)
    fail_with: Exception | None = None

    def dataset_info(self, repo_id: str, *, revision: str | None = None) -> Any:
        self.calls.append(("dataset_info", repo_id, revision))
        if self.fail_with is not None:
            raise self.fail_with
        found = self.datasets.get(repo_id.lower())
        if found is None:
            raise http_error(RepositoryNotFoundError, 404)
        if revision not in (None, found[1]):
            raise http_error(RevisionNotFoundError, 404)
        return Info(found[0], found[1])

    def hf_hub_download(
        self,
        repo_id: str,
        filename: str,
        *,
        repo_type: str | None = None,
        revision: str | None = None,
    ) -> Any:
        self.calls.append(("hf_hub_download", repo_id, revision))
        assert repo_type == "dataset"
        assert filename == "eval.yaml"
        canonical, _sha, content = self.datasets[repo_id.lower()]
        if content is None:
            raise http_error(RemoteEntryNotFoundError, 404)
        path = self.root / canonical.replace("/", "__")
        path.write_bytes(content)
        return str(path)


@pytest.fixture
def hub(tmp_path: Path) -> FakeHub:
    gpqa = (REAL_EVAL_YAML / "Idavidrein__gpqa.eval.yaml").read_bytes()
    return FakeHub(
        tmp_path,
        {
            "idavidrein/gpqa": ("Idavidrein/gpqa", SHA, gpqa),
            "someone/plain-data": ("someone/plain-data", SHA, None),
            "someone/broken": ("someone/broken", SHA, b"name: X\ntasks: []\n"),
        },
    )


def test_lookup_reads_eval_yaml_at_the_resolved_commit(hub: FakeHub) -> None:
    found = HubBenchmarkSource(hub).lookup("IDAVIDREIN/GPQA", None)
    assert isinstance(found, Benchmark)
    assert found.repo_id == "Idavidrein/gpqa"
    assert found.revision == SHA
    assert hub.calls == [
        ("dataset_info", "IDAVIDREIN/GPQA", None),
        ("hf_hub_download", "Idavidrein/gpqa", SHA),
    ]


def test_lookups_are_cached_by_id_and_commit(hub: FakeHub) -> None:
    source = HubBenchmarkSource(hub)
    first = source.lookup("Idavidrein/gpqa", None)
    second = source.lookup("idavidrein/gpqa", SHA)
    assert first is second
    assert [call[0] for call in hub.calls].count("hf_hub_download") == 1


@pytest.mark.parametrize(
    ("dataset_id", "revision", "reason"),
    [
        ("nobody/nothing", None, "no such dataset on the Hub"),
        ("Idavidrein/gpqa", "b" * 40, f"the dataset has no revision {'b' * 40!r}"),
        ("someone/plain-data", None, "the dataset has no eval.yaml, so it is not a benchmark"),
    ],
)
def test_permanent_answers_are_not_found(
    hub: FakeHub, dataset_id: str, revision: str | None, reason: str
) -> None:
    found = HubBenchmarkSource(hub).lookup(dataset_id, revision)
    assert isinstance(found, BenchmarkNotFound)
    assert found.reason == reason


def test_gated_dataset_is_not_found(hub: FakeHub) -> None:
    hub.fail_with = http_error(GatedRepoError, 403)
    found = HubBenchmarkSource(hub).lookup("Idavidrein/gpqa", None)
    assert isinstance(found, BenchmarkNotFound)


def test_invalid_eval_yaml_carries_its_diagnostics(hub: FakeHub) -> None:
    found = HubBenchmarkSource(hub).lookup("someone/broken", None)
    assert isinstance(found, BenchmarkNotFound)
    assert [d.code for d in found.diagnostics] == ["BENCH-FIELD-MISSING", "BENCH-TASKS-EMPTY"]


def test_transient_errors_propagate(hub: FakeHub) -> None:
    hub.fail_with = ConnectionError("reset")
    with pytest.raises(ConnectionError):
        HubBenchmarkSource(hub).lookup("Idavidrein/gpqa", None)


def test_hfapi_satisfies_the_reader_protocol() -> None:
    reader: DatasetReader = HfApi(endpoint="http://127.0.0.1:9")
    assert HubBenchmarkSource(reader).api is reader


def test_cache_keeps_the_most_recently_used(hub: FakeHub) -> None:
    source = HubBenchmarkSource(hub, cache_size=1)
    source.lookup("Idavidrein/gpqa", None)
    source.lookup("someone/broken", None)  # evicts gpqa
    source.lookup("Idavidrein/gpqa", None)
    downloads = [call[1] for call in hub.calls if call[0] == "hf_hub_download"]
    assert downloads == ["Idavidrein/gpqa", "someone/broken", "Idavidrein/gpqa"]
