"""Every real results file in tests/samples/real-world (verbatim public
files, provenance in its README), with its expected verdict.

The store holds only the five real eval.yaml files (no synthetic benchmark), so what is
checked here is what the real Hub files say about each other.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.validation.model import FileReport
from bot.validation.validate import validate_results_files
from tests.conftest import REAL_WORLD
from tests.unit.validation.conftest import REAL_EVAL_YAML, repo_id_of

MODEL_REPOS = REAL_WORLD / "hf-model-repos"
HUB_DOCS = REAL_WORLD / "hub-docs"


@pytest.fixture(scope="module")
def real_store(tmp_path_factory: pytest.TempPathFactory) -> DirectoryBenchmarkSource:
    root = tmp_path_factory.mktemp("real-benchmarks")
    for fixture in REAL_EVAL_YAML.glob("*.yaml"):
        target = root / repo_id_of(fixture) / "eval.yaml"
        target.parent.mkdir(parents=True)
        target.write_bytes(fixture.read_bytes())
    return DirectoryBenchmarkSource(root)


def validate_fixture(fixture: Path, store: DirectoryBenchmarkSource) -> FileReport:
    name = fixture.name.rsplit("__", 1)[-1]
    (report,) = validate_results_files({f".eval_results/{name}": fixture.read_bytes()}, store)
    return report


def entry_codes(report: FileReport) -> list[list[str]]:
    return [sorted({d.code for d in entry.diagnostics}) for entry in report.entries]


# file -> (ok, codes per entry)
EXPECTED: dict[str, tuple[bool, list[list[str]]]] = {
    "gemma-4-12B-it__gpqa.yaml": (True, [[]]),
    "gemma-4-12B-it__hle.yaml": (True, [[]]),
    "gemma-4-12B-it__mmlu_pro.yaml": (True, [[]]),
    "Ch3nOff__dual-loop-controller__mmlu_pro.yaml": (True, [[]]),
    # no eval.yaml for these two benchmarks among the real fixtures
    "gemma-4-12B-it__mmmu_pro.yaml": (False, [["ENTRY-BENCHMARK-UNKNOWN"]]),
    "gemma-4-12B-it__aime_2026.yaml": (False, [["ENTRY-BENCHMARK-UNKNOWN"]]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_model_repo_files(name: str, real_store: DirectoryBenchmarkSource) -> None:
    report = validate_fixture(MODEL_REPOS / name, real_store)
    ok, codes = EXPECTED[name]
    assert report.diagnostics == []
    assert entry_codes(report) == codes
    assert report.ok is ok


def test_every_model_repo_fixture_has_a_verdict() -> None:
    assert sorted(path.name for path in MODEL_REPOS.glob("*.yaml")) == sorted(EXPECTED)


def test_real_gpqa_entry_links_to_its_benchmark(real_store: DirectoryBenchmarkSource) -> None:
    report = validate_fixture(MODEL_REPOS / "gemma-4-12B-it__gpqa.yaml", real_store)
    (entry,) = report.entries
    assert entry.benchmark is not None
    assert entry.benchmark.repo_id == "Idavidrein/gpqa"
    assert entry.entry.task_id == "diamond"
    assert entry.entry.data["value"] == 78.8
    assert entry.entry.ambiguous_fields == frozenset()


def test_aime_task_id_is_the_repo_id_not_a_task(store: DirectoryBenchmarkSource) -> None:
    """Against the target-spec MathArena eval.yaml, gemma's `task_id: MathArena/aime_2026` fails."""
    report = validate_fixture(MODEL_REPOS / "gemma-4-12B-it__aime_2026.yaml", store)
    (diagnostic,) = report.entries[0].diagnostics
    assert diagnostic.code == "ENTRY-TASK-UNKNOWN"
    assert diagnostic.hint == "did you mean `aime_2026`? Write `task_id: aime_2026`"


def test_live_spec_template(real_store: DirectoryBenchmarkSource) -> None:
    report = validate_fixture(HUB_DOCS / "eval_results.spec.main.yaml", real_store)
    placeholders, minimal = entry_codes(report)
    assert "ENTRY-FIELD-TYPE" in placeholders  # `task_id: {task_id}` is a flow mapping
    assert "ENTRY-VALUE-NOT-NUMBER" in placeholders
    # gpqa_diamond is no GPQA task; 0.412 looks 0-1; the template is not named gpqa.yaml
    assert minimal == ["ENTRY-TASK-UNKNOWN", "ENTRY-VALUE-SCALE", "FILE-NAME"]
    assert not report.ok


def test_draft_spec_template(real_store: DirectoryBenchmarkSource) -> None:
    report = validate_fixture(
        HUB_DOCS / "eval_results.spec.draft-branch-feature_update_eval_results.yaml", real_store
    )
    _placeholders, minimal, full = entry_codes(report)
    assert minimal == ["ENTRY-METRICS-UNDECLARED", "ENTRY-TASK-UNKNOWN"]
    assert "ENTRY-REVISION" in full  # the draft's own 16-hex model_revision
    assert "ENTRY-DUPLICATE" in full
    assert [entry.ok for entry in report.entries] == [False, False, False]
