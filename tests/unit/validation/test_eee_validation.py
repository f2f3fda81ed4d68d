"""`bot.validation.eee`: EEE records checked against the schema they declare.

The cases marked "EEE:" are Every Eval Ever's own validator tests
(`evaleval/every_eval_ever` `tests/test_validate.py` @ 9bce413), the ones about the schema,
with the same verdicts. Cases about its Pydantic-only rules (single_turn with messages,
multi_turn without them) or its CLI (globs, exit 2 on warnings) do not apply to a JSON-schema
check and are left out; docs/validate.md says so.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from bot.validation.diagnostics import Diagnostic
from bot.validation.eee import validate_eee_file

UUID = "550e8400-e29b-41d4-a716-446655440000"  # as EEE's own tests use
SAMPLES = Path(__file__).parents[2] / "samples" / "real-world" / "every_eval_ever"

VALID_AGGREGATE: dict[str, Any] = {
    "schema_version": "0.3.0",
    "evaluation_id": "test/model/123",
    "retrieved_timestamp": "1234567890",
    "source_metadata": {
        "source_type": "evaluation_run",
        "source_organization_name": "TestOrg",
        "evaluator_relationship": "first_party",
    },
    "eval_library": {"name": "inspect_ai", "version": "0.3.0"},
    "model_info": {
        "name": "test-model",
        "id": "org/test-model",
        "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"},
    },
    "evaluation_results": [
        {
            "evaluation_name": "test_eval",
            "source_data": {
                "dataset_name": "test_ds",
                "source_type": "hf_dataset",
                "hf_repo": "org/test-ds",
            },
            "metric_config": {"lower_is_better": False, "score_type": "binary"},
            "score_details": {"score": 0.95},
        }
    ],
}

VALID_SINGLE_TURN: dict[str, Any] = {
    "schema_version": "0.3.0",
    "evaluation_id": "test/model/123",
    "model_id": "org/test-model",
    "evaluation_name": "test_eval",
    "sample_id": "sample_001",
    "interaction_type": "single_turn",
    "input": {"raw": "What is 2+2?", "reference": ["4"]},
    "output": {"raw": ["4"]},
    "answer_attribution": [
        {
            "turn_idx": 0,
            "source": "output.raw",
            "extracted_value": "4",
            "extraction_method": "exact_match",
            "is_terminal": True,
        }
    ],
    "evaluation": {"score": 1.0, "is_correct": True},
}


def aggregate(**changes: object) -> dict[str, Any]:
    data = copy.deepcopy(VALID_AGGREGATE)
    data.update(changes)
    return data


def check(data: object, name: str = "record.json") -> list[Diagnostic]:
    return validate_eee_file(name, json.dumps(data, indent=2).encode()).diagnostics


def test_valid_json_passes() -> None:  # EEE: test_valid_json_passes
    assert check(VALID_AGGREGATE) == []


def test_missing_required_field() -> None:  # EEE
    data = aggregate()
    del data["evaluation_id"]
    [diagnostic] = check(data)
    assert "evaluation_id" in diagnostic.message
    assert diagnostic.code == "EEE-SCHEMA"


def test_extra_field_on_evaluation_log_fails() -> None:  # EEE
    [diagnostic] = check(aggregate(unexpected_field="oops"))
    assert "unexpected_field" in diagnostic.message


def test_extra_field_on_generation_args_fails() -> None:  # EEE
    data = aggregate()
    data["evaluation_results"][0]["generation_config"] = {
        "generation_args": {"temperature": 0.7, "unknown_param": "bad"}
    }
    diagnostics = check(data)
    assert any("unknown_param" in d.message for d in diagnostics)
    assert diagnostics[0].field == "evaluation_results[0].generation_config.generation_args"


def test_score_type_levels_without_level_names_fails() -> None:  # EEE
    data = aggregate()
    data["evaluation_results"][0]["metric_config"] = {
        "lower_is_better": False,
        "score_type": "levels",
    }
    assert any("level_names" in d.message for d in check(data))


def test_score_type_continuous_without_min_score_fails() -> None:  # EEE
    data = aggregate()
    data["evaluation_results"][0]["metric_config"] = {
        "lower_is_better": False,
        "score_type": "continuous",
    }
    assert any("min_score" in d.message for d in check(data))


def test_source_data_hf_dataset_without_repo_passes() -> None:  # EEE: discriminated
    data = aggregate()
    data["evaluation_results"][0]["source_data"] = {
        "dataset_name": "test",
        "source_type": "hf_dataset",
    }
    assert check(data) == []


def test_source_data_wrong_source_type_fails() -> None:  # EEE
    data = aggregate()
    data["evaluation_results"][0]["source_data"] = {
        "dataset_name": "test",
        "source_type": "invalid_type",
    }
    assert check(data)


def test_additional_details_non_string_values_fail() -> None:  # EEE
    data = aggregate()
    data["model_info"]["additional_details"] = {
        "deployment_type": "unknown",
        "model_availability": "unknown",
        "params_billions": 8.357,
    }
    assert any("string" in d.message for d in check(data))


def test_json_parse_error() -> None:  # EEE
    [diagnostic] = validate_eee_file("bad.json", b"{invalid json}").diagnostics
    assert diagnostic.code == "EEE-JSON"
    assert (diagnostic.line, diagnostic.column) == (1, 2)


def test_valid_single_turn_passes() -> None:  # EEE
    content = (json.dumps(VALID_SINGLE_TURN) + "\n").encode()
    assert validate_eee_file("valid.jsonl", content).diagnostics == []


def test_invalid_line_in_middle_reports_correct_line_number() -> None:  # EEE
    bad = dict(VALID_SINGLE_TURN)
    del bad["evaluation_id"]
    lines = [json.dumps(row) for row in (VALID_SINGLE_TURN, bad, VALID_SINGLE_TURN)]
    [diagnostic] = validate_eee_file("mid.jsonl", "\n".join(lines).encode()).diagnostics
    assert diagnostic.line == 2
    assert "evaluation_id" in diagnostic.message


def test_json_parse_error_reports_line_number() -> None:  # EEE
    content = (json.dumps(VALID_SINGLE_TURN) + "\n{bad json}\n").encode()
    [diagnostic] = validate_eee_file("parse.jsonl", content).diagnostics
    assert (diagnostic.code, diagnostic.line) == ("EEE-JSON", 2)


def test_empty_jsonl_passes() -> None:  # EEE
    assert validate_eee_file("empty.jsonl", b"").diagnostics == []


def test_blank_lines_skipped() -> None:  # EEE
    content = ("\n" + json.dumps(VALID_SINGLE_TURN) + "\n\n").encode()
    assert validate_eee_file("blank.jsonl", content).diagnostics == []


def test_error_points_at_the_value_line_and_column() -> None:
    data = aggregate()
    data["evaluation_results"][0]["metric_config"]["lower_is_better"] = "no"
    text = json.dumps(data, indent=2)
    [diagnostic] = validate_eee_file("x.json", text.encode()).diagnostics
    assert diagnostic.line is not None
    line = text.splitlines()[diagnostic.line - 1]
    assert '"lower_is_better": "no"' in line
    assert diagnostic.field == "evaluation_results[0].metric_config.lower_is_better"


@pytest.mark.parametrize(("version", "ok"), [("0.2.0", False), ("0.3.0", True), ("9.9.9", False)])
def test_the_declared_version_chooses_the_schema(version: str, ok: bool) -> None:
    # a 0.3.0 record is invalid under 0.2.0 (eval_library is not a 0.2.0 field)
    assert (check(aggregate(schema_version=version)) == []) is ok


def test_nan_is_not_json() -> None:
    [diagnostic] = validate_eee_file("n.json", b'{"schema_version": NaN}').diagnostics
    assert diagnostic.code == "EEE-JSON"


@pytest.mark.parametrize(
    "name",
    [
        "98ea850e-7019-4728-a558-8b1819ec47c2.json",  # 0.2.0
        "community_evals_converter_676f4465-ce78-411a-9f5a-c97b3d2eac4f.json",  # 0.2.2
        "demo_f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json",  # 0.3.0
        "demo_f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl",  # instance-level 0.3.0
    ],
)
def test_real_records_are_valid(name: str) -> None:
    assert validate_eee_file(name, (SAMPLES / name).read_bytes()).diagnostics == []


# The schema cases of EEE's `tests/test_validation_scope.py` (@ 9bce413), same verdicts. Its
# datastore-path, companion-file and reversed-range rules are not schema rules (docs/validate.md).


def test_model_unknown_placeholders_pass_but_missing_raw_fields_fail() -> None:  # EEE
    assert check(VALID_AGGREGATE) == []
    missing = aggregate()
    missing["model_info"].pop("additional_details")
    messages = " ".join(d.message for d in check(missing))
    assert "additional_details" in messages


def test_judge_models_require_raw_deployment_metadata() -> None:  # EEE
    data = aggregate()
    data["evaluation_results"][0]["metric_config"]["llm_scoring"] = {
        "judges": [{"model_info": {"name": "judge", "id": "dev/judge", "developer": "dev"}}],
        "input_prompt": "p",
    }
    fields = [d.field for d in check(data)]
    assert "evaluation_results[0].metric_config.llm_scoring.judges[0].model_info" in fields


def test_json_schema_constrains_model_metadata() -> None:  # EEE
    data = aggregate()
    data["model_info"]["additional_details"]["deployment_type"] = "banana"
    assert any("banana" in d.message for d in check(data))


def test_metric_with_unknown_bounds_is_accepted() -> None:  # EEE
    data = aggregate()
    data["evaluation_results"][0]["metric_config"].pop("score_type")
    assert check(data) == []


def test_score_bounds_are_required_for_continuous_metrics() -> None:  # EEE
    data = aggregate()
    data["evaluation_results"][0]["metric_config"]["score_type"] = "continuous"
    messages = " ".join(d.message for d in check(data))
    assert "min_score" in messages
    assert "max_score" in messages


def test_score_bounds_accept_infinity() -> None:  # EEE
    data = aggregate()
    data["evaluation_results"][0]["metric_config"].update(
        {"score_type": "continuous", "min_score": "-Infinity", "max_score": "Infinity"}
    )
    assert check(data) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"score": NaN}', "NaN is not JSON"),
        ('{"score": 1e999}', "non-finite JSON number 1e999"),
        ('{"x": 1, "x": 2}', 'duplicate JSON object key "x"'),
    ],
)
def test_strict_json_rejects_nonfinite_tokens_and_duplicate_keys(text: str, message: str) -> None:
    [diagnostic] = validate_eee_file("x.json", text.encode()).diagnostics  # EEE
    assert diagnostic.code == "EEE-JSON"
    assert message in diagnostic.message


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_a_record_not_in_utf8_is_refused(encoding: str) -> None:
    """JSON is UTF-8 (RFC 8259 §8.1); Python's reader would also take UTF-16 and UTF-32."""
    [diagnostic] = validate_eee_file(
        "r.json", json.dumps(VALID_AGGREGATE).encode(encoding)
    ).diagnostics
    assert diagnostic.code == "EEE-JSON"
    assert "not UTF-8 (byte 0)" in diagnostic.message


def test_a_record_after_a_utf8_byte_order_mark_is_read() -> None:
    content = b"\xef\xbb\xbf" + json.dumps(VALID_AGGREGATE).encode()
    assert validate_eee_file("r.json", content).diagnostics == []


def test_uncertainty_values_must_be_raw_numbers() -> None:  # EEE
    data = aggregate()
    data["evaluation_results"][0]["score_details"]["uncertainty"] = {
        "standard_deviation": "Infinity",
        "standard_error": {"value": "0.1"},
        "confidence_interval": {"lower": 0.1, "upper": "inf"},
    }
    assert len(check(data)) == 3


@pytest.mark.parametrize(
    ("detailed", "ok"),
    [
        ({}, False),
        ({"format": "json", "file_path": "details.json"}, False),
        (
            {
                "format": "jsonl",
                "file_path": f"data/bench/dev/model/{UUID}_samples.jsonl",
            },
            True,
        ),
    ],
)
def test_detailed_results_requires_a_jsonl_path(detailed: dict[str, str], ok: bool) -> None:
    assert (check(aggregate(detailed_evaluation_results=detailed)) == []) is ok  # EEE


def test_null_at_an_optional_field_reads_as_absent_as_eees_validator_reads_it() -> None:
    """EEE's lm-eval converter writes `"evaluation_result_id": null` in every instance row
    (a real run: `datastore/pass/.../2fe532ba-..._samples.jsonl`, 10 rows); EEE's Pydantic
    validator accepts it. A required field stays required and non-null."""
    (samples,) = (SAMPLES / "datastore" / "pass").rglob("2fe532ba-*_samples.jsonl")
    report = validate_eee_file(samples.name, samples.read_bytes())
    assert report.diagnostics == []
    row = json.loads(samples.read_bytes().splitlines()[0])
    row["evaluation"]["is_correct"] = None
    broken = validate_eee_file("x_samples.jsonl", json.dumps(row).encode())
    assert [d.field for d in broken.diagnostics] == ["evaluation.is_correct"]


@pytest.mark.parametrize(
    ("content", "found"),
    [(b"[]", "a JSON array"), (b'"0.3.0"', "a JSON string"), (b"3", "a JSON number")],
)
def test_a_document_that_is_not_an_object_is_named_so(content: bytes, found: str) -> None:
    """`[]` is JSON, only not a record: not "no schema_version"."""
    (diagnostic,) = validate_eee_file("record.json", content).diagnostics
    assert diagnostic.code == "EEE-NOT-OBJECT"
    assert diagnostic.message == f"the file holds {found}, not a JSON object"
    assert diagnostic.line == 1
    rows = validate_eee_file("samples.jsonl", b"[1]\n").diagnostics
    assert [(d.code, d.message) for d in rows] == [
        ("EEE-NOT-OBJECT", "the row holds a JSON array, not a JSON object")
    ]
