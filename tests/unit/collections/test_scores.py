"""Scores read from validated results: real Hub files, main then an open PR's changes."""

from __future__ import annotations

import pytest

from bot.collections.aggregate import Status, evaluate
from bot.collections.check import check_collection
from bot.collections.scores import ResultsLayer, find_scores
from bot.validation.validate import validate_results_files
from tests.unit.collections.helpers import ROOT, SYSTEM, MemorySource, checked

GEMMA = ROOT / "tests" / "samples" / "real-world" / "hf-model-repos"


def _reports(files: dict[str, bytes]) -> ResultsLayer:
    return ResultsLayer(validate_results_files(files, MemorySource()))


def test_gemma_4_12b_clears_leaderboard_v2_from_its_real_results_files() -> None:
    collection, _ = check_collection(
        "leaderboard-v2", (SYSTEM / "leaderboard-v2.yaml").read_bytes(), MemorySource()
    )
    assert collection is not None
    main = _reports(
        {
            ".eval_results/gpqa.yaml": (GEMMA / "gemma-4-12B-it__gpqa.yaml").read_bytes(),
            ".eval_results/mmlu_pro.yaml": (GEMMA / "gemma-4-12B-it__mmlu_pro.yaml").read_bytes(),
        }
    )
    result = evaluate(collection, find_scores(collection, [main]))
    assert [r.score for r in result.benchmarks] == [78.8, 77.2]
    assert result.score == pytest.approx((78.8 + 77.2) / 2)
    assert result.passed
    assert result.benchmarks[0].origin is not None
    assert result.benchmarks[0].origin.path == ".eval_results/gpqa.yaml"


LIVE = """\
- dataset: {{id: Idavidrein/gpqa, task_id: diamond}}
  value: {value}
"""


def test_an_open_prs_results_replace_mains_and_an_invalid_entry_is_invalid_not_missing() -> None:
    collection = checked(
        """\
name: one
category: x
pass_criteria: {threshold: 50}
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    threshold: 40
    scale: percent
"""
    )
    main = _reports({".eval_results/gpqa.yaml": LIVE.format(value=35.0).encode()})
    pr = ResultsLayer(
        validate_results_files(
            {".eval_results/gpqa.yaml": LIVE.format(value=45.0).encode()}, MemorySource()
        ),
        pr=7,
    )
    before = evaluate(collection, find_scores(collection, [main]))
    after = evaluate(collection, find_scores(collection, [main, pr]))
    assert before.benchmarks[0].status is Status.FAILED
    assert after.benchmarks[0].status is Status.PASSED
    assert after.benchmarks[0].origin is not None
    assert after.benchmarks[0].origin.pr == 7
    broken = _reports({".eval_results/gpqa.yaml": LIVE.format(value="'45'").encode()})
    item = evaluate(collection, find_scores(collection, [broken])).benchmarks[0]
    assert item.status is Status.INVALID
    assert item.problems == ("ENTRY-VALUE-NOT-NUMBER",)
    assert item.origin is not None
    assert (item.origin.path, item.origin.line) == (".eval_results/gpqa.yaml", 1)


def test_a_target_entry_is_read_by_its_metric_id() -> None:
    collection = checked(
        """\
name: aime
category: x
pass_criteria: {threshold: 50}
benchmarks:
  - id: MathArena/aime_2026
    task_id: aime_2026
    metric: cost_usd
    threshold: 20
    bounds: {best: 0, worst: 50}
"""
    )
    entry = b"""\
- dataset: {id: MathArena/aime_2026, task_id: aime_2026}
  metrics:
    - {metric_id: accuracy, value: 80}
    - {metric_id: cost_usd, value: 12.5}
"""
    result = evaluate(collection, find_scores(collection, [_reports({"a.yaml": entry})]))
    assert result.benchmarks[0].score == 12.5
    assert result.score == pytest.approx(75.0)  # (50 - 12.5) / 50
