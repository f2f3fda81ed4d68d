"""`bot.eee.impact` and `evalbot eee impact`: a schema change measured on real records."""

from __future__ import annotations

import json

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
    assert "evalbot ships 0.2.0, 0.2.2, 0.3.0" in capsys.readouterr().err
