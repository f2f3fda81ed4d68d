"""A collection is checked like an eval.yaml: each problem has a code, a line and a fix."""

from __future__ import annotations

import pytest

from bot.collections.check import check_collection
from bot.collections.model import Scale, Scope
from tests.unit.collections.helpers import ROOT, SYSTEM, MemorySource, check, checked, codes

GOOD = """\
name: Assistant gate
category: x
pass_criteria:
  threshold: 55.0
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    threshold: 25.0
    weight: 0.5
    scale: percent
"""


def test_the_shipped_system_collections_are_valid() -> None:
    names = sorted(path.stem for path in SYSTEM.glob("*.yaml"))
    assert names == ["frontier-reasoning-v1", "leaderboard-v2"]
    for path in SYSTEM.glob("*.yaml"):
        collection, diagnostics = check_collection(
            path.stem, path.read_bytes(), MemorySource(), scope=Scope.SYSTEM
        )
        assert collection is not None, diagnostics
        assert diagnostics == []
        assert collection.scope is Scope.SYSTEM


def test_leaderboard_v2_maps_gpqa_and_mmlu_pro_with_evalhubs_thresholds() -> None:
    path = SYSTEM / "leaderboard-v2.yaml"
    collection, _ = check_collection("leaderboard-v2", path.read_bytes(), MemorySource())
    assert collection is not None
    assert collection.threshold == 38.0
    assert [(b.id, b.task_id, b.metric, b.threshold) for b in collection.benchmarks] == [
        ("Idavidrein/gpqa", "diamond", "value", 40.0),
        ("TIGER-Lab/MMLU-Pro", "mmlu_pro", "value", 60.0),
    ]


def test_a_good_collection_resolves_metric_scale_and_defaults() -> None:
    collection = checked(GOOD)
    member = collection.benchmarks[0]
    assert (member.metric, member.low, member.high, member.weight) == ("value", 0.0, 100.0, 0.5)
    assert member.lower_is_better is False
    assert member.line == 6
    assert collection.scale is Scale.PERCENT
    assert not collection.allow_missing


def test_an_unknown_task_is_an_error_on_its_line_with_did_you_mean() -> None:
    _, diagnostics = check(GOOD.replace("task_id: diamond", "task_id: Diamond"))
    assert codes(diagnostics) == ["COLL-TASK-UNKNOWN"]
    assert diagnostics[0].line == 7
    assert diagnostics[0].field == "benchmarks[0].task_id"
    assert diagnostics[0].hint is not None
    assert "did you mean `diamond`" in diagnostics[0].hint


def test_a_metric_the_benchmark_does_not_declare_is_an_error() -> None:
    text = GOOD.replace(
        "    task_id: diamond\n",
        "    task_id: diamond\n    metric: acc_norm\n",
    )
    _, diagnostics = check(text)
    assert codes(diagnostics) == ["COLL-METRIC-UNDECLARED"]
    assert diagnostics[0].line == 8
    text = """\
name: x
category: y
pass_criteria: {threshold: 50}
benchmarks:
  - id: MathArena/aime_2026
    task_id: aime_2026
    metric: acuracy
"""
    _, diagnostics = check(text)
    assert codes(diagnostics) == ["COLL-METRIC-UNKNOWN"]
    assert diagnostics[0].line == 7
    assert "did you mean `accuracy`" in (diagnostics[0].hint or "")


def test_lower_is_better_disagreeing_with_the_benchmark_is_an_error() -> None:
    text = """\
name: x
category: y
pass_criteria: {threshold: 50}
benchmarks:
  - id: MathArena/aime_2026
    task_id: aime_2026
    metric: accuracy
    lower_is_better: true
"""
    _, diagnostics = check(text)
    assert codes(diagnostics) == ["COLL-DIRECTION"]
    assert diagnostics[0].line == 8
    assert diagnostics[0].hint == (
        "write `lower_is_better: false` (or remove it: the benchmark says)"
    )


def test_a_benchmark_without_any_known_scale_is_refused() -> None:
    _, diagnostics = check(GOOD.replace("    scale: percent\n", ""))
    assert codes(diagnostics) == ["COLL-SCALE-UNKNOWN"]
    assert diagnostics[0].line == 6
    text = """\
name: x
category: y
pass_criteria: {threshold: 50}
benchmarks:
  - id: test/wikitext
    task_id: wikitext
"""
    _, diagnostics = check(text)
    assert codes(diagnostics) == ["COLL-SCALE-UNKNOWN"]


def test_a_percent_threshold_on_a_fraction_scale_is_caught_with_the_likely_fix() -> None:
    _, diagnostics = check(
        GOOD.replace("scale: percent", "scale: fraction").replace(
            "threshold: 25.0", "threshold: 40"
        )
    )
    assert codes(diagnostics) == ["COLL-THRESHOLD-RANGE"]
    assert diagnostics[0].hint == "results are on 0-1: did you mean 0.4?"


def test_the_benchmarks_own_range_wins_and_a_contradicting_scale_is_an_error() -> None:
    text = """\
name: x
category: y
pass_criteria: {threshold: 50}
benchmarks:
  - id: MathArena/aime_2026
    task_id: aime_2026
    scale: fraction
"""
    _, diagnostics = check(text)
    assert codes(diagnostics) == ["COLL-SCALE-CONFLICT"]
    assert diagnostics[0].field == "benchmarks[0].scale"
    collection = checked(text.replace("    scale: fraction\n", ""))
    assert (collection.benchmarks[0].low, collection.benchmarks[0].high) == (0.0, 100.0)


def test_reference_bounds_must_point_the_way_the_metric_goes() -> None:
    text = """\
name: x
category: y
pass_criteria: {threshold: 50}
benchmarks:
  - id: test/wikitext
    task_id: wikitext
    bounds: {best: 40, worst: 1}
"""
    _, diagnostics = check(text)
    assert codes(diagnostics) == ["COLL-BOUNDS-DIRECTION"]
    assert "below `worst`" in (diagnostics[0].hint or "")
    collection = checked(text.replace("{best: 40, worst: 1}", "{best: 1, worst: 40}"))
    assert collection.benchmarks[0].lower_is_better


@pytest.mark.parametrize(
    ("change", "code", "line"),
    [
        (("weight: 0.5", "weight: -1"), "COLL-WEIGHT-NEGATIVE", 9),
        (("weight: 0.5", "weight: 0"), "COLL-WEIGHTS-ZERO", 5),
        (("threshold: 55.0", "threshold: 155.0"), "COLL-PASS-RANGE", 4),
        (("threshold: 55.0", "threshold: '55'"), "COLL-FIELD-TYPE", 4),
        (("name: Assistant gate\n", ""), "COLL-FIELD-MISSING", 1),
        (("id: Idavidrein/gpqa", "id: Idavidrein/gpqb"), "COLL-BENCHMARK-UNKNOWN", 6),
        (("id: Idavidrein/gpqa", "id: gpqa"), "COLL-FIELD-TYPE", 6),
        (("scale: percent", "scale: percentage"), "COLL-SCALE-ENUM", 10),
        (("category: x\n", "category: x\nid: other\n"), "COLL-ID-MISMATCH", 3),
    ],
)
def test_each_rule_has_its_code_and_line(
    change: tuple[str, str], code: str, line: int | None
) -> None:
    _, diagnostics = check(GOOD.replace(*change))
    assert code in codes(diagnostics)
    found = next(d for d in diagnostics if d.code == code)
    assert found.line == line
    assert found.hint


def test_an_unknown_field_is_an_error_and_a_wrong_case_id_warns() -> None:
    """A field evalbot does not read would leave the gate weaker than its author meant."""
    collection, diagnostics = check(
        GOOD.replace("id: Idavidrein/gpqa", "id: idavidrein/GPQA").replace(
            "category:", "catgory: x\ncategory:"
        )
    )
    assert collection is None
    assert sorted(codes(diagnostics)) == ["COLL-BENCHMARK-CASE", "COLL-FIELD-UNKNOWN"]
    unknown = next(d for d in diagnostics if d.code == "COLL-FIELD-UNKNOWN")
    assert unknown.is_error
    assert unknown.line == 2
    assert "did you mean `category`" in (unknown.hint or "")
    collection, diagnostics = check(GOOD.replace("id: Idavidrein/gpqa", "id: idavidrein/GPQA"))
    assert collection is not None
    assert codes(diagnostics) == ["COLL-BENCHMARK-CASE"]
    assert collection.benchmarks[0].id == "Idavidrein/gpqa"


def test_the_same_benchmark_twice_is_an_error_unless_notes_tell_them_apart() -> None:
    item = GOOD[GOOD.index("  - id:") :]
    _, diagnostics = check(GOOD + item)
    assert codes(diagnostics) == ["COLL-BENCHMARK-DUPLICATE"]
    assert "line 6" in diagnostics[0].message
    collection = checked(GOOD + item.replace("scale: percent", "scale: percent\n    notes: tools"))
    assert [member.notes for member in collection.benchmarks] == [None, "tools"]


def test_strict_yaml_rules_apply_to_collections_too() -> None:
    _, diagnostics = check(GOOD + "name: again\n")
    assert codes(diagnostics) == ["YAML-DUPLICATE-KEY"]
    _, diagnostics = check("- a list\n")
    assert codes(diagnostics) == ["COLL-NOT-MAPPING"]


def test_evalhubs_nested_shape_is_not_silently_accepted() -> None:
    """EvalHub's repo nests `primary_score.metric`; flat fields are the documented shape."""
    text = ROOT / "tests/samples/real-world/eval-hub/collection.leaderboard-v2.yaml"
    _, diagnostics = check_collection("leaderboard-v2", text.read_bytes(), MemorySource())
    assert "COLL-FIELD-TYPE" in codes(diagnostics)  # `leaderboard_ifeval` is not a Hub id
    assert "COLL-FIELD-UNKNOWN" in codes(diagnostics)  # provider_id: nothing evalbot reads
    nested = [d for d in diagnostics if d.code == "COLL-EVALHUB-SHAPE"]
    assert {d.field for d in nested} >= {"benchmarks[0].primary_score"}
    assert all(d.is_error and "evalbot collections import" in (d.hint or "") for d in nested)
