"""`bot.eee.impact` and `evalbot eee impact`: a schema change measured on real records."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.datastore_dir import datastore_files
from bot.cli import main
from bot.eee.impact import assess
from tests.unit.eee.helpers import DATASTORE


def records() -> list[tuple[str, bytes]]:
    paths = [p for p in datastore_files(DATASTORE) if p.endswith(".json")]
    return [(p, (DATASTORE / p).read_bytes()) for p in paths]


def test_0_3_0_turns_the_legacy_records_invalid_as_eee_at_head_found() -> None:
    """PROVENANCE.md: EEE @ HEAD (0.3.0) rejects the five legacy records (`eval_library`, the
    two deployment axes), which were valid when accepted."""
    report = assess(records(), "0.3.0")
    assert (report.records, report.invalid_now, report.invalid_after) == (10, 0, 7)
    assert report.newly_invalid == 7
    rules = {rule.rule: rule.records for rule in report.rules}
    assert rules["model_info.additional_details: 'deployment_type' is a required property"] == 4
    assert rules["(record): 'eval_library' is a required property"] == 4
    legacy = [(p, c) for p, c in records() if p.startswith("legacy/")]
    assert len(legacy) == 5
    assert all(assess([record], "0.3.0").newly_invalid == 1 for record in legacy)


def test_the_version_they_declare_breaks_nothing() -> None:
    report = assess([(p, c) for p, c in records() if b'"0.2.2"' in c], "0.2.2")
    assert report.records >= 2
    assert report.invalid_after == 0


def test_rules_fold_list_indices() -> None:
    record = json.loads((DATASTORE / "pass").rglob("f3a1c0de-*.json").__next__().read_bytes())
    for result in record["evaluation_results"]:
        result["metric_config"]["lower_is_better"] = "no"
    (rule,) = assess([("x.json", json.dumps(record).encode())], "0.3.0").rules
    assert rule.rule.startswith("evaluation_results[].metric_config.lower_is_better: must")


def test_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eee", "impact", "--schema", "0.3.0", str(DATASTORE), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["invalid_after"] == 7
    assert main(["eee", "impact", "--schema", "0.4.0", str(DATASTORE)]) == 2
    assert "evalbot ships (0.2.0, 0.2.2, 0.3.0)" in capsys.readouterr().err


SHIPPED = Path(__file__).parents[3] / "bot" / "data" / "eee"


def draft(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], name: str = "eval.schema.json"
) -> Path:
    """A draft: the shipped 0.3.0 aggregate schema with one change, as a PR to EEE would make."""
    schema = json.loads((SHIPPED / "eval.schema.v0.3.0.json").read_bytes())
    change(schema)
    path = tmp_path / name
    path.write_text(json.dumps(schema, indent=2))
    return path


def test_the_summary_says_schema_valid(capsys: pytest.CaptureFixture[str]) -> None:
    """Only the schema is measured, not the datastore's rules: the words say so."""
    assert main(["eee", "impact", "--schema", "0.3.0", str(DATASTORE)]) == 0
    summary = capsys.readouterr().out.splitlines()[0]
    assert summary == (
        "Schema 0.3.0: 7 of 10 records would be schema-invalid (7 of them schema-valid under"
        " the version they declare today; 0 schema-invalid already; 0 not JSON)."
    )


def test_a_draft_schema_file_or_folder_is_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def require_samples(schema: dict[str, Any]) -> None:
        schema["version"] = "0.4.0"
        schema["required"].append("detailed_evaluation_results")

    path = draft(tmp_path, require_samples)
    assert main(["eee", "impact", "--schema", str(path), str(DATASTORE), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["version"] == "0.4.0"
    assert report["schema"] == f"{path} (draft of 0.4.0)"
    rules = {rule["rule"]: rule["records"] for rule in report["rules"]}
    needs = "(record): 'detailed_evaluation_results' is a required property"
    assert rules[needs] == 8  # all but the two records of pass/ that have a samples file
    folder = tmp_path / "every_eval_ever_checkout"
    (folder / "every_eval_ever" / "schemas").mkdir(parents=True)
    path.rename(folder / "every_eval_ever" / "schemas" / "eval.schema.json")
    assert main(["eee", "impact", "--schema", str(folder), str(DATASTORE)]) == 0
    assert capsys.readouterr().out.startswith(
        f"Schema {folder / 'every_eval_ever' / 'schemas' / 'eval.schema.json'} (draft of 0.4.0):"
    )


def test_a_bad_draft_is_named_with_its_line_and_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def bad_type(schema: dict[str, Any]) -> None:
        schema["properties"]["model_info"]["type"] = "objekt"

    def bad_ref(schema: dict[str, Any]) -> None:
        schema["properties"]["model_info"] = {"$ref": "#/definitions/Nope"}

    def other_draft(schema: dict[str, Any]) -> None:
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"

    cases = [
        (
            draft(tmp_path, bad_type, "a.json"),
            r":\d+:\d+: not a valid draft-07 schema at"
            r" `properties.model_info.type`: 'objekt' is not valid",
        ),
        (
            draft(tmp_path, bad_ref, "b.json"),
            r':\d+:\d+: `\$ref` "#/definitions/Nope" does not'
            r" point inside this file",
        ),
        (draft(tmp_path, other_draft, "c.json"), r":2: `\$schema` is .*draft-07"),
    ]
    broken = tmp_path / "d.json"
    broken.write_text('{\n  "type": "object",\n  "type": "array"\n}\n')
    cases.append((broken, r":3:\d+: not valid JSON: duplicate JSON object key"))
    cut = tmp_path / "e.json"
    cut.write_text('{\n  "properties": {\n')
    cases.append((cut, r":3:1: not valid JSON"))
    instance = tmp_path / "f.json"
    instance.write_text(json.dumps({"type": "object", "properties": {"sample_id": {}}}))
    cases.append((instance, r": declares no `properties.evaluation_results`"))
    for path, expected in cases:
        assert main(["eee", "impact", "--schema", str(path), str(DATASTORE)]) == 2
        err = capsys.readouterr().err
        assert re.search(f"^evalbot eee impact: {re.escape(str(path))}{expected}", err), err
    assert main(["eee", "impact", "--schema", str(tmp_path), str(DATASTORE)]) == 2
    assert "no aggregate schema in this folder" in capsys.readouterr().err
