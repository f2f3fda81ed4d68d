"""The collection chart's bars and the collections the pages offer, from plain inputs."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.collections.aggregate import BenchmarkResult, GateResult, Status
from bot.collections.model import Collection, CollectionBenchmark
from bot.web.standing import BAR_WIDTH, bars, load_collections


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
    found = load_collections(config)
    assert "my-gate" in found
    assert "leaderboard-v2" in found
    assert "leaderboard-v2" in load_collections(tmp_path / "absent.yaml")
    config.write_text("collections_dir: nowhere\n")
    with pytest.raises(ValueError, match="collections_dir"):
        load_collections(config)
