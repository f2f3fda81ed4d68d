"""What an eval.yaml change does to the results that reference the benchmark."""

from __future__ import annotations

from bot.report.benchmark_impact import render_impact
from bot.validation.benchmark import parse_benchmark
from bot.validation.impact import Change, ChangeKind, assess, compare, referencing
from bot.validation.model import Benchmark

BASE = """\
name: B
description: d
metrics:
  - {id: accuracy, display_name: A, higher_is_better: true, primary: true}
  - {id: ece, display_name: E, higher_is_better: false}
tasks:
  - id: hle
  - id: extra
"""


def bench(text: str) -> Benchmark:
    benchmark, diagnostics = parse_benchmark("o/b", text.encode(), None)
    assert benchmark is not None, diagnostics
    return benchmark


def test_renames_removals_primary_and_direction_are_told_apart() -> None:
    old = bench(BASE)
    assert compare(old, old) == []
    assert compare(old, bench(BASE.replace("id: ece", "id: calibration"))) == [
        Change(ChangeKind.METRIC_RENAMED, "ece", "calibration")
    ]
    assert compare(old, bench(BASE.replace("  - id: extra\n", ""))) == [
        Change(ChangeKind.TASK_REMOVED, "extra")
    ]
    flipped = BASE.replace("higher_is_better: false", "higher_is_better: true")
    assert compare(old, bench(flipped)) == [Change(ChangeKind.DIRECTION_FLIPPED, "ece", "ece")]
    swapped = BASE.replace("primary: true}", "}").replace(
        "higher_is_better: false}", "higher_is_better: false, primary: true}"
    )
    assert compare(old, bench(swapped)) == [Change(ChangeKind.PRIMARY_CHANGED, "accuracy", "ece")]
    renamed_primary = BASE.replace("id: accuracy", "id: acc")
    assert compare(old, bench(renamed_primary)) == [
        Change(ChangeKind.METRIC_RENAMED, "accuracy", "acc")
    ]


def test_orphaned_and_reranked_results_from_real_files() -> None:
    file = b"""\
- dataset: {id: O/B, task_id: hle}
  metrics:
    - {metric_id: accuracy, value: 30}
    - {metric_id: ece, value: 9}
- dataset: {id: o/b, task_id: extra}
  value: 12
- dataset: {id: other/bench, task_id: hle}
  value: 1
"""
    refs = referencing(file, "o/b", "alice/m", ".eval_results/b.yaml", pr=4)
    assert [(r.line, r.task_id, r.metric_ids, r.pr) for r in refs] == [
        (1, "hle", ("accuracy", "ece"), 4),
        (5, "extra", (), 4),
    ]
    renamed = assess([Change(ChangeKind.METRIC_RENAMED, "ece", "calibration")], refs)
    assert [(r.line, c.kind) for r, c in renamed.orphaned] == [(1, ChangeKind.METRIC_RENAMED)]
    assert renamed.reranked == ()
    primary = assess([Change(ChangeKind.PRIMARY_CHANGED, "accuracy", "ece")], refs)
    assert primary.orphaned == ()
    assert [r.line for r in primary.reranked] == [1, 5]
    text = render_impact(renamed)
    assert "**1 result would be orphaned**" in text
    assert "(open PR #4)" in text
    assert "metric **ece** renamed to **calibration**" in text


def test_nothing_changed_says_the_results_are_unaffected() -> None:
    impact = assess([], [])
    assert "the 0 results on this benchmark's leaderboard are unaffected" in render_impact(impact)
    assert "cannot be assessed" in render_impact(None)
