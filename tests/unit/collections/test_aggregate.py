"""The aggregate against hand-worked examples, EvalHub's published one and its perplexity case."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.collections.aggregate import Candidate, Found, Origin, Status, evaluate, weighted_score
from bot.collections.render import verdict_line
from tests.unit.collections.helpers import checked

#: The seed's "General Assistant Deployment Gate v1", with the Hub's GPQA standing in for each
#: leaderboard task (six entries told apart by `notes`), all reported in percent.
EVALHUB_TASKS = (
    # (EvalHub benchmark, weight, threshold, the score in EvalHub's published result)
    ("leaderboard_ifeval", 2.0, 65.0, 71.2),
    ("leaderboard_bbh", 1.5, 55.0, 58.3),
    ("leaderboard_gpqa", 0.5, 25.0, 22.1),
    ("leaderboard_mmlu_pro", 1.5, 50.0, 51.8),
    ("leaderboard_musr", 1.0, 25.0, 29.4),
    ("leaderboard_math_hard", 0.5, 35.0, 31.2),
)


def _evalhub_gate() -> str:
    items = "".join(
        f"""\
  - id: Idavidrein/gpqa
    task_id: diamond
    notes: {name}
    threshold: {threshold}
    weight: {weight}
    scale: percent
"""
        for name, weight, threshold, _score in EVALHUB_TASKS
    )
    return f"""\
name: General Assistant Deployment Gate v1
category: deployment-gate
pass_criteria:
  threshold: 55.0
benchmarks:
{items}"""


def _found(*scores: float | None) -> dict[int, Found]:
    return {
        index: Found((Candidate(score, Origin(".eval_results/x.yaml", 3 + index)),))
        for index, score in enumerate(scores)
        if score is not None
    }


def test_evalhubs_published_example_is_51_94_not_61_4_and_fails_its_gate() -> None:
    """EvalHub publishes collection_score 61.4 (a pass) for these weights and scores.

    By hand: Σ w·s = 2·71.2 + 1.5·58.3 + 0.5·22.1 + 1.5·51.8 + 1·29.4 + 0.5·31.2
    = 142.4 + 87.45 + 11.05 + 77.7 + 29.4 + 15.6 = 363.6; Σ w = 7; 363.6 / 7 = 51.943.
    The published 61.4 is not the weighted mean of its own scores (nor the plain mean, 44.0),
    and 51.94 < 55.0: the model does not clear the gate the post says it clears.
    """
    collection = checked(_evalhub_gate())
    result = evaluate(collection, _found(*(score for *_rest, score in EVALHUB_TASKS)))
    assert result.exact_score == Fraction(3636, 70)  # 363.6 / 7, exactly
    assert round(result.score or 0, 2) == 51.94
    assert verdict_line(result) == (
        "FAIL  51.94 / 100 (pass at 55): the aggregate 51.94 is below the pass threshold 55 by 3.06"
    )
    assert result.score != pytest.approx(61.4, abs=0.05)
    assert not result.passed
    assert [r.passed for r in result.benchmarks] == [True, True, False, True, True, False]
    assert result.complete


def test_the_perplexity_case_evalhub_gets_wrong() -> None:
    """EvalHub aggregates `w·(1 - s)` for lower-is-better: perplexity 8 contributes -7·w.

    With accuracy 0.80 (fraction) and perplexity 8, equal weights, EvalHub's job score is
    (0.80 + (1 - 8)) / 2 = -3.1: below zero, whatever the model. Here perplexity goes through
    the declared reference bounds (best 1, worst 20): (20 - 8) / (20 - 1) = 0.6316, so the
    aggregate is (0.80 + 0.6316) / 2 = 0.7158, i.e. 71.58 on the percent scale.
    """
    collection = checked(
        """\
name: LM quality
category: language-modelling
pass_criteria:
  threshold: 70
benchmarks:
  - id: test/wikitext
    task_id: wikitext
    threshold: 10
    bounds: {best: 1, worst: 20}
  - id: Idavidrein/gpqa
    task_id: diamond
    threshold: 0.5
    scale: fraction
"""
    )
    evalhub = (1 * (1 - 8) + 1 * 0.80) / 2
    assert evalhub == pytest.approx(-3.1)
    result = evaluate(collection, _found(8.0, 0.80))
    assert result.benchmarks[0].normalised == pytest.approx(12 / 19)
    assert result.score == pytest.approx(100 * (12 / 19 + 0.80) / 2)
    assert round(result.score or 0, 2) == 71.58
    assert result.passed
    assert result.benchmarks[0].status is Status.PASSED  # 8 <= 10, lower is better


def test_percent_and_fraction_results_weigh_alike() -> None:
    collection = checked(
        """\
name: mixed
category: x
scale: fraction
pass_criteria:
  threshold: 0.5
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    scale: percent
  - id: TIGER-Lab/MMLU-Pro
    task_id: mmlu_pro
    scale: fraction
"""
    )
    result = evaluate(collection, _found(60.0, 0.40))
    assert result.score == pytest.approx(0.5)  # (0.60 + 0.40) / 2 on the 0-1 scale
    assert result.passed


def test_a_score_beyond_the_reference_bounds_is_clamped() -> None:
    collection = checked(
        """\
name: ppl
category: x
pass_criteria: {threshold: 50}
benchmarks:
  - id: test/wikitext
    task_id: wikitext
    bounds: {best: 1, worst: 20}
"""
    )
    assert evaluate(collection, _found(45.0)).score == 0.0
    assert evaluate(collection, _found(1.0)).score == 100.0


TWO_BENCHMARKS = """\
name: two
category: x
pass_criteria:
  threshold: 50
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    scale: percent
    threshold: 40
  - id: TIGER-Lab/MMLU-Pro
    task_id: mmlu_pro
    scale: percent
    threshold: 60
"""


def test_a_missing_result_is_reported_and_blocks_the_pass_unless_allowed() -> None:
    text = TWO_BENCHMARKS
    result = evaluate(checked(text), _found(90.0, None))
    assert result.score == pytest.approx(90.0)  # over what is present, shown as such
    assert [r.status for r in result.benchmarks] == [Status.PASSED, Status.MISSING]
    assert not result.complete
    assert not result.passed
    allowed = checked(text.replace("threshold: 50\n", "threshold: 50\n  allow_missing: true\n"))
    assert evaluate(allowed, _found(90.0, None)).passed


def test_disagreeing_results_are_ambiguous_not_a_pick() -> None:
    collection = checked(
        """\
name: one
category: x
pass_criteria: {threshold: 50}
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    scale: percent
"""
    )
    found = {
        0: Found(
            (
                Candidate(40.0, Origin("a.yaml", 1, notes="tools")),
                Candidate(70.0, Origin("a.yaml", 9)),
            )
        )
    }
    result = evaluate(collection, found)
    assert result.benchmarks[0].status is Status.AMBIGUOUS
    assert result.score is None
    assert not result.passed


def test_require_all_fails_the_collection_on_any_failed_benchmark() -> None:
    text = """\
name: two
category: x
pass_criteria:
  threshold: 50
  require_all: true
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    scale: percent
    threshold: 40
  - id: TIGER-Lab/MMLU-Pro
    task_id: mmlu_pro
    scale: percent
    threshold: 80
"""
    result = evaluate(checked(text), _found(90.0, 70.0))
    assert result.score == pytest.approx(80.0)
    assert not result.passed
    assert evaluate(checked(text.replace("  require_all: true\n", "")), _found(90.0, 70.0)).passed


def test_zero_weight_benchmarks_gate_but_do_not_aggregate() -> None:
    assert weighted_score([(0.0, Fraction(1)), (2.0, Fraction(1, 4))], 100.0) == 25
    assert weighted_score([(0.0, Fraction(1))], 100.0) is None
