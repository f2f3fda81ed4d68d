"""A framework's output on its way to the issuer: refused as `evalbot convert` refuses it,
revisions pinned, values kept exact (the digest the issuer signs is the file's)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import Conversion, entries_from
from bot.convert.mapping import MappingTable, parse_mappings
from bot.convert.scale import Scaled
from bot.submit.converted import converted_entries
from bot.submit.errors import SubmitError
from bot.submit.merge import merge_results
from bot.tokens.claims import entry_digest
from bot.validation.yamlload import load_yaml
from tests.conftest import REPO_ROOT

REAL_LM_EVAL = (
    REPO_ROOT / "tests/samples/real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"
)
PARTIAL_EVALSCOPE = REPO_ROOT / "tests/samples/convert/evalscope/gsm8k_partial.json"
EMULATOR_BENCHMARKS = REPO_ROOT / "evalbot_dev/emulator/samples/benchmarks"
EXAMPLE_BENCHMARKS = REPO_ROOT / "examples/benchmarks"
SHIPPED = REPO_ROOT / "bot/data/convert/mappings.yaml"
#: The real lm-eval run's two tasks, mapped to the emulator's target-spec benchmark.
HLE_MINI_ROWS = REPO_ROOT / "tests/samples/convert/mappings/lm-eval-math-to-hle-mini.yaml"
RECORDED_MODEL = "82047f5e5d5245c1b3a4cd75ad98aa441d6487cd"  # the run's model_revision


def shipped() -> MappingTable:
    return parse_mappings(str(SHIPPED), SHIPPED.read_bytes())


def hle_mini_conversion() -> Conversion:
    table = shipped().merged(parse_mappings(str(HLE_MINI_ROWS), HLE_MINI_ROWS.read_bytes()))
    return entries_from(
        REAL_LM_EVAL,
        benchmarks=DirectoryBenchmarkSource(EMULATOR_BENCHMARKS),
        mappings=table,
    )


def revisions(asked: list[str]) -> Any:
    def revision(benchmark: str) -> str:
        asked.append(benchmark)
        return "c" * 40

    return revision


def test_entries_get_the_benchmark_commit_and_keep_the_recorded_model_revision() -> None:
    conversion = hle_mini_conversion()
    asked: list[str] = []
    entries = converted_entries(conversion, benchmark_revision=revisions(asked))
    assert [e["notes"] for e in entries] == [
        "lm-eval math_perturbed_full",
        "lm-eval math_rephrased_full",
    ]
    assert all(e["dataset"]["revision"] == "c" * 40 for e in entries)
    assert all(e["model_revision"] == RECORDED_MODEL for e in entries)
    assert asked == ["emulator-samples/hle-mini"]  # once per benchmark
    assert [e["metrics"][0]["value"] for e in entries] == [0.0, 0.04]  # 0.0004 as a percent
    assert "revision" not in conversion.entries[0]["dataset"]  # the conversion is not changed


def test_a_model_revision_is_needed_when_the_output_records_none() -> None:
    table = shipped()
    conversion = entries_from(
        REPO_ROOT / "tests/samples/convert/lm-eval/gsm8k-v0-res.json",
        benchmarks=DirectoryBenchmarkSource(EXAMPLE_BENCHMARKS),
        mappings=table,
    )
    assert conversion.ok()
    assert conversion.entries
    with pytest.raises(SubmitError, match=r"records no model revision; pass --model-revision"):
        converted_entries(conversion, benchmark_revision=revisions([]))
    entries = converted_entries(
        conversion, model_revision="a" * 40, benchmark_revision=revisions([])
    )
    assert entries[0]["model_revision"] == "a" * 40
    with pytest.raises(SubmitError, match="full 40-hex commit SHA"):
        converted_entries(conversion, model_revision="main", benchmark_revision=revisions([]))


def test_a_model_revision_that_contradicts_the_output_is_refused() -> None:
    with pytest.raises(SubmitError, match=f"records model revision {RECORDED_MODEL}, not a{{40}}"):
        converted_entries(
            hle_mini_conversion(), model_revision="a" * 40, benchmark_revision=revisions([])
        )


def test_unmapped_scores_alone_are_refused_with_the_row_to_add() -> None:
    conversion = entries_from(
        REAL_LM_EVAL, benchmarks=DirectoryBenchmarkSource(EXAMPLE_BENCHMARKS), mappings=shipped()
    )
    with pytest.raises(SubmitError) as caught:
        converted_entries(conversion, benchmark_revision=revisions([]))
    message = str(caught.value)
    assert (
        '- {framework: "lm-eval", task: "math_rephrased_full", metric: "exact_match,none", '
        "benchmark: <org/name>" in message
    )
    assert message.endswith("no score is mapped: nothing to submit")


def test_a_partial_run_is_refused_unless_allowed() -> None:
    conversion = entries_from(
        PARTIAL_EVALSCOPE,
        benchmarks=DirectoryBenchmarkSource(EXAMPLE_BENCHMARKS),
        mappings=shipped(),
    )
    assert conversion.entries  # a mapped score, from a run that did not finish
    with pytest.raises(SubmitError) as caught:
        converted_entries(conversion, model_revision="a" * 40, benchmark_revision=revisions([]))
    assert f"error: {PARTIAL_EVALSCOPE}: not every sample was scored" in str(caught.value)
    assert str(caught.value).endswith("nothing submitted")
    entries = converted_entries(
        conversion, allow_partial=True, model_revision="a" * 40, benchmark_revision=revisions([])
    )
    assert entries[0]["dataset"]["id"] == "openai/gsm8k"


def test_an_exact_decimal_is_written_as_its_text_and_digests_as_the_issuer_signed_it() -> None:
    """0.8885298869143781 as a percent is 88.85298869143781; the nearest double prints as
    ...782. The issuer receives JSON (the double) and signs its digest; the PR file shows the
    exact text, which reads back as the same double, so the bot computes the same digest."""
    value = Scaled(Decimal("0.8885298869143781") * 100)
    assert repr(float(value)) == "88.85298869143782"
    entry = {
        "dataset": {"id": "cais/hle", "task_id": "hle", "revision": "c" * 40},
        "model_revision": "a" * 40,
        "value": value,
        "framework": {"name": "lm-eval"},
    }
    signed = json.loads(json.dumps(entry))  # what the issuer parses from the request
    text = merge_results(None, [{**entry, "verifyToken": "x.y.z"}], path="p", replace=False)
    assert "value: 88.85298869143781\n" in text
    parsed = load_yaml(text.encode()).data[0]
    assert parsed["value"] == float(value)
    assert entry_digest(parsed) == entry_digest(signed)


def test_a_plain_float_is_written_as_before() -> None:
    text = merge_results(None, [{"value": 1e-05, "x": 0.1}], path="p", replace=False)
    assert text == "- value: 1.0e-05\n  x: 0.1\n"
