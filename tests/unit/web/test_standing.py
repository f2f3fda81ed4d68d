"""The collection chart's bars and the collections the pages offer, from plain inputs."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.botconfig.files import load_bot_config
from bot.collections.aggregate import BenchmarkResult, GateResult, Status
from bot.collections.model import Collection, CollectionBenchmark
from bot.web.standing import BAR_WIDTH, bars, load_collections, standing


def member(**changes: object) -> CollectionBenchmark:
    values: dict[str, object] = {
        "id": "org/bench",
        "task_id": "main",
        "metric": "value",
        "weight": 1.0,
        "lower_is_better": False,
        "low": 0.0,
        "high": 100.0,
        "threshold": 40.0,
        **changes,
    }
    return CollectionBenchmark(**values)  # type: ignore[arg-type]


def test_bars_put_scores_and_thresholds_on_each_benchmarks_own_scale() -> None:
    higher = member()
    cost = member(id="org/cost", lower_is_better=True, low=0.0, high=50.0, threshold=10.0)
    missing = member(id="org/none")
    collection = Collection("c", "C", "test", (higher, cost, missing), threshold=50.0)
    result = GateResult(
        collection,
        (
            BenchmarkResult(higher, Status.PASSED, score=60.0, exact_normalised=Fraction(3, 5)),
            BenchmarkResult(cost, Status.FAILED, score=20.0, exact_normalised=Fraction(3, 5)),
            BenchmarkResult(missing, Status.MISSING),
        ),
        exact_score=Fraction(60),
    )
    (first, second, third), aggregate = bars(result)
    assert first.width == pytest.approx(0.6 * BAR_WIDTH)
    assert first.mark == pytest.approx(0.4 * BAR_WIDTH)
    assert first.threshold == "≥ 40"
    assert second.threshold == "≤ 10"
    assert second.mark == pytest.approx(0.8 * BAR_WIDTH)  # a cost of 10 of 50: 0.8 of the best
    assert third.width == 0
    assert third.score == "missing"
    assert aggregate.mark == pytest.approx(0.5 * BAR_WIDTH)
    assert aggregate.status == "failed"  # incomplete and not allow_missing


def test_collections_come_from_the_system_folder_and_collections_dir(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "my-gate.yaml").write_text("name: x\n")
    config = tmp_path / "bot.yaml"
    config.write_text("collections_dir: mine\n")
    found = load_collections(load_bot_config(config).campaign)
    assert "my-gate" in found
    assert "leaderboard-v2" in found
    assert "leaderboard-v2" in load_collections(load_bot_config(tmp_path / "absent.yaml").campaign)
    config.write_text("collections_dir: nowhere\n")
    with pytest.raises(ValueError, match="collections_dir"):
        load_collections(load_bot_config(config).campaign)


class _Repo:
    """A model repo's main as the Hub would list and serve it."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def results_tree(self, repo_id: str, revision: str) -> dict[str, str]:
        return dict.fromkeys(self.files, "")

    def read_file(self, repo_id: str, path: str, revision: str) -> bytes:
        return self.files[path]

    def open_pull_requests(self, repo_id: str, *, limit: int) -> object:
        raise AssertionError("the page reads main only")

    def pull_request(self, repo_id: str, num: int) -> object:
        raise AssertionError("the page reads main only")


def test_the_standing_says_why_the_model_does_not_pass(tmp_path: Path) -> None:
    from bot.adapters.collections_store import SYSTEM_DIR, StoredCollection
    from bot.collections.model import Scope
    from bot.validation.policy import DEFAULT_POLICY
    from tests.unit.collections.helpers import MemorySource

    stored = StoredCollection("leaderboard-v2", Scope.SYSTEM, SYSTEM_DIR / "leaderboard-v2.yaml")
    gpqa = b"- dataset: {id: Idavidrein/gpqa, task_id: diamond}\n  value: 30\n"
    shown = standing(
        stored,
        "alice/model",
        _Repo({".eval_results/gpqa.yaml": gpqa}),  # type: ignore[arg-type]
        MemorySource(),
        DEFAULT_POLICY,
    )
    assert shown.reasons == (
        "TIGER-Lab/MMLU-Pro / mmlu_pro has no result (add one, or set "
        "`pass_criteria.allow_missing: true`)",
        "the aggregate 30.00 is below the pass threshold 38 by 8.00",
    )
