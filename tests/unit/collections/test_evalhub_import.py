"""EvalHub's real collection files (eval-hub/eval-hub config/collections) into evalbot's."""

from __future__ import annotations

from bot.collections.evalhub import HubTarget, import_evalhub
from bot.collections.model import Scale
from bot.validation.yamlload import load_yaml
from tests.unit.collections.helpers import ROOT, check, codes

SAMPLES = ROOT / "tests" / "samples" / "real-world" / "eval-hub"
LEADERBOARD = (SAMPLES / "collection.leaderboard-v2.yaml").read_bytes()
SAFETY = (SAMPLES / "collection.safety-and-fairness-v1.yaml").read_bytes()
MAP = {
    "leaderboard_gpqa": HubTarget("Idavidrein/gpqa", "diamond"),
    "leaderboard_mmlu_pro": HubTarget("TIGER-Lab/MMLU-Pro", "mmlu_pro"),
}


def test_leaderboard_v2_maps_nested_scores_and_thresholds_onto_hub_benchmarks() -> None:
    imported = import_evalhub(LEADERBOARD, MAP, drop_unmapped=True)
    assert imported.text is not None, imported.diagnostics
    assert imported.diagnostics == []
    assert imported.scale is Scale.PERCENT  # thresholds of 38-80: not fractions
    assert imported.scale_inferred
    data = load_yaml(imported.text.encode()).data
    assert data["pass_criteria"] == {"threshold": 38.0}
    assert data["scale"] == "percent"
    assert data["benchmarks"] == [
        {
            "id": "Idavidrein/gpqa",
            "task_id": "diamond",
            "threshold": 40.0,
            "weight": 1.0,
            "lower_is_better": False,
            "scale": "percent",
        },
        {
            "id": "TIGER-Lab/MMLU-Pro",
            "task_id": "mmlu_pro",
            "threshold": 60.0,
            "weight": 1.0,
            "lower_is_better": False,
            "scale": "percent",
        },
    ]
    assert "provider_id" in imported.text  # named in the header as dropped
    assert "leaderboard_ifeval, leaderboard_bbh" in imported.text
    collection, diagnostics = check(imported.text)
    assert collection is not None, diagnostics
    assert diagnostics == []


def test_an_unmapped_benchmark_is_an_error_naming_it_and_its_line() -> None:
    imported = import_evalhub(LEADERBOARD, MAP)
    assert imported.text is None
    unmapped = [d for d in imported.diagnostics if d.code == "IMPORT-UNMAPPED"]
    assert [d.line for d in unmapped] == [10, 18, 42, 50]
    assert "--map leaderboard_ifeval=OWNER/NAME:TASK" in (unmapped[0].hint or "")


def test_fraction_thresholds_are_read_as_fractions_or_flagged_on_a_percent_scale() -> None:
    """safety-and-fairness-v1 passes at 0.758: on evalbot's percent default a 33 % model passed."""
    target = {"truthfulqa_mc1": HubTarget("Idavidrein/gpqa", "diamond")}
    inferred = import_evalhub(SAFETY, target, drop_unmapped=True)
    assert inferred.scale is Scale.FRACTION
    assert inferred.text is not None
    assert "# Scale: fraction (inferred from the thresholds" in inferred.text
    collection, diagnostics = check(inferred.text)
    assert collection is not None, diagnostics
    assert collection.threshold == 0.758
    forced = import_evalhub(SAFETY, target, scale=Scale.PERCENT, drop_unmapped=True)
    assert forced.text is not None
    collection, diagnostics = check(forced.text)
    assert collection is not None
    assert codes(diagnostics) == ["COLL-THRESHOLD-FRACTION", "COLL-THRESHOLD-FRACTION"]
    assert "write 75.8" in (diagnostics[0].hint or "")


def test_an_omitted_weight_is_1_and_a_field_outside_evalhubs_schema_is_an_error() -> None:
    text = b"""\
name: n
category: c
pass_criteria: {threshold: 0.5}
benchmarks:
  - id: gpqa
    provider_id: lighteval
    primary_score: {metric: acc}
    pass_criteria: {threshold: 0.4}
"""
    imported = import_evalhub(text, {"gpqa": HubTarget("Idavidrein/gpqa", "diamond")})
    assert imported.text is not None
    assert load_yaml(imported.text.encode()).data["benchmarks"][0]["weight"] == 1.0
    bad = import_evalhub(
        text.replace(b"    primary_score", b"    thresold: 3\n    primary_score"), {}
    )
    assert bad.text is None
    assert codes(bad.diagnostics) == ["COLL-FIELD-UNKNOWN"]
    assert bad.diagnostics[0].line == 7


def test_a_mapping_is_owner_name_task_and_an_optional_metric() -> None:
    assert HubTarget.parse("Idavidrein/gpqa:diamond") == HubTarget("Idavidrein/gpqa", "diamond")
    assert HubTarget.parse("MathArena/aime_2026:aime_2026:accuracy") == HubTarget(
        "MathArena/aime_2026", "aime_2026", "accuracy"
    )
    assert HubTarget.parse("gpqa:diamond") is None
    assert HubTarget.parse("Idavidrein/gpqa") is None
    assert HubTarget.parse("Idavidrein/gpqa::") is None
