"""Canonical claims and the entry digest: what issuer and verifier must compute identically."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

import pytest
import rfc8785
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.strictjson import I_JSON, DuplicateKey, NumberRefused
from bot.tokens.claims import ClaimsUnavailable, canonical_json, content_claims, entry_digest
from bot.validation.model import Benchmark, Dialect, MetricDef, TaskDef
from tests.support.tokens import (
    GPQA,
    LIVE_FILE,
    MODEL_REPO,
    TARGET_FILE,
    entries_from_yaml,
    entry_report,
)


def test_golden_vector_matches_hand_written_rfc8785() -> None:
    # The canonical form written out by hand following RFC 8785: keys sorted, no whitespace,
    # 20.90 and 100.0 as ECMAScript prints them. Issuers in other languages test against this.
    entry = yaml.safe_load(
        "dataset: {task_id: hle, id: cais/hle}\n"
        "metrics: [{value: 20.90, metric_id: accuracy}, {value: 100.0, metric_id: n}]\n"
        "verify_token: abc.def.ghi\n"
    )
    by_hand = (
        '{"dataset":{"id":"cais/hle","task_id":"hle"},'
        '"metrics":[{"metric_id":"accuracy","value":20.9},{"metric_id":"n","value":100}]}'
    )
    assert entry_digest(entry) == "sha256:" + hashlib.sha256(by_hand.encode()).hexdigest()


def test_digest_ignores_both_token_spellings_and_key_order() -> None:
    data = entries_from_yaml(TARGET_FILE)[0]
    reordered = dict(reversed(list(data.items())))
    with_tokens = {**data, "verify_token": "a.b.c", "verifyToken": "d.e.f"}
    assert entry_digest(data) == entry_digest(reordered) == entry_digest(with_tokens)


def test_yaml_number_spellings_share_a_digest_but_a_quoted_number_does_not() -> None:
    def digest_of(value_text: str) -> str:
        return entry_digest(
            yaml.safe_load(f"dataset: {{id: a/b, task_id: t}}\nvalue: {value_text}")
        )

    assert digest_of("20.90") == digest_of("20.9") == digest_of("2.09e+1")
    assert digest_of('"20.90"') != digest_of("20.9")
    assert digest_of("20.900000000000002") != digest_of("20.9")


def test_digest_changes_with_any_field_and_with_metric_order() -> None:
    data = entries_from_yaml(TARGET_FILE)[0]
    changed_notes = {**data, "notes": "pass@1, tools"}
    swapped = {**data, "metrics": list(reversed(data["metrics"]))}
    assert entry_digest(changed_notes) != entry_digest(data)
    assert entry_digest(swapped) != entry_digest(data)


@pytest.mark.parametrize("value", [math.nan, math.inf, 2**53 + 1])
def test_values_without_canonical_form_are_refused(value: Any) -> None:
    with pytest.raises(ClaimsUnavailable):
        entry_digest({"value": value})


def test_target_claims_sort_metrics_drop_extensions_and_use_canonical_benchmark() -> None:
    data = entries_from_yaml(TARGET_FILE)[0]
    data["dataset"]["id"] = "CAIS/HLE"  # looked up case-insensitively; the claim is canonical
    data["metrics"][1]["value_type"] = "percentage"
    claims = content_claims(entry_report(data), model_repo=MODEL_REPO)
    assert claims == {
        "model_repo": MODEL_REPO,
        "model_revision": data["model_revision"],
        "benchmark_repo": "cais/hle",
        "benchmark_revision": data["dataset"]["revision"],
        "task_id": "hle",
        "metrics": [
            {"metric_id": "accuracy", "value": 20.9},
            {"metric_id": "calibration_error", "value": 12},
        ],
        "framework": data["framework"],
        "digest": entry_digest(data),
    }


def test_optional_claims_are_absent_when_the_entry_lacks_the_field() -> None:
    data = entries_from_yaml(TARGET_FILE)[1]
    claims = content_claims(entry_report(data), model_repo=MODEL_REPO)
    assert "model_revision" not in claims
    assert "benchmark_revision" not in claims
    assert claims["framework"] == {"name": "inspect-ai"}


def test_live_value_stands_for_the_primary_metric_or_for_value() -> None:
    data = entries_from_yaml(LIVE_FILE)[0]
    without_metrics = content_claims(entry_report(data, benchmark=GPQA), model_repo=MODEL_REPO)
    assert without_metrics["metrics"] == [{"metric_id": "value", "value": 61.2}]
    assert "framework" not in without_metrics

    with_primary = Benchmark(
        repo_id="Idavidrein/gpqa",
        tasks=(TaskDef("diamond"),),
        metrics=(MetricDef("pass_at_1", "Pass@1", True),),
    )
    data["evaluation_framework"] = "inspect-ai"
    claims = content_claims(entry_report(data, benchmark=with_primary), model_repo=MODEL_REPO)
    assert claims["metrics"] == [{"metric_id": "pass_at_1", "value": 61.2}]
    assert claims["framework"] == {"name": "inspect-ai"}


def test_claims_need_a_known_benchmark_and_well_formed_fields() -> None:
    data = entries_from_yaml(TARGET_FILE)[0]
    with pytest.raises(ClaimsUnavailable):
        content_claims(entry_report(data, benchmark=None), model_repo=MODEL_REPO)
    data["metrics"][0]["value"] = "12"
    with pytest.raises(ClaimsUnavailable):
        content_claims(entry_report(data, dialect=Dialect.TARGET), model_repo=MODEL_REPO)


# --- property tests: the strict JSON reader and the canonical form -------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    # JCS prints a float >= 2^53 as integer digits, which I-JSON readers refuse: stay below.
    | st.floats(
        allow_nan=False, allow_infinity=False, min_value=-(2.0**53), max_value=2.0**53
    ).filter(lambda number: abs(number) < 2.0**53)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values)
def test_strict_reader_reads_what_json_writes(value: Any) -> None:
    assert I_JSON.read(json.dumps(value)) == value


@given(st.dictionaries(st.text(max_size=8), json_values, min_size=1, max_size=4), json_values)
def test_strict_reader_refuses_any_duplicate_name(obj: dict[str, Any], extra: Any) -> None:
    name = next(iter(obj))
    text = json.dumps(obj)[:-1] + f", {json.dumps(name)}: {json.dumps(extra)}}}"
    with pytest.raises(DuplicateKey):
        I_JSON.read(text)


@pytest.mark.parametrize(
    "text", ["NaN", "[Infinity]", '{"v": -Infinity}', "1e400", "9007199254740993"]
)
def test_strict_reader_refuses_what_is_not_i_json(text: str) -> None:
    with pytest.raises(NumberRefused):
        I_JSON.read(text)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=6))
def test_canonical_form_is_independent_of_key_order_and_round_trips(obj: dict[str, Any]) -> None:
    reordered = dict(reversed(list(obj.items())))
    canonical = canonical_json(obj)
    assert canonical == canonical_json(reordered)
    assert canonical_json(I_JSON.read(canonical)) == canonical


any_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats()
    | st.sampled_from([100.0, -0.0, 1e-7, 1e21, 1e20, 123456789012345680000.0, 5e-324, 0.1 + 0.2])
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=600)
@given(any_json_values)
def test_canonical_json_is_byte_identical_to_rfc8785(value: Any) -> None:
    try:
        reference = rfc8785.dumps(value)
    except rfc8785.CanonicalizationError:
        with pytest.raises(ClaimsUnavailable):
            canonical_json(value)
        return
    assert canonical_json(value) == reference


@pytest.mark.parametrize(
    "value",
    [
        {"\U0001f600": 1, "\ufb33": 2, "a": 3},  # UTF-16 order differs from code point order
        {"s": '\u2028\x7f\x00\x1f"\\é'},
        {"lone": "\ud800"},
        [100.0, -0.0, 1e-7, 1e21, 1e-6, 1e16, 2**53 - 1, 2.5],
    ],
)
def test_canonical_json_edge_cases_match_rfc8785(value: Any) -> None:
    try:
        reference = rfc8785.dumps(value)
    except rfc8785.CanonicalizationError:
        with pytest.raises(ClaimsUnavailable):
            canonical_json(value)
        return
    assert canonical_json(value) == reference
