"""Entry rules, one valid and one invalid case each, through the public validate API."""

from __future__ import annotations

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.validation.catalogue import Severity
from bot.validation.model import Dialect, VerificationStatus
from tests.unit.validation.helpers import GPQA_ENTRY, all_diagnostics, check

GPQA_HEAD = b"- dataset:\n    id: Idavidrein/gpqa\n    task_id: diamond\n"
AIME_HEAD = b"- dataset: {id: MathArena/aime_2026, task_id: aime_2026}\n"
AIME = ".eval_results/aime_2026.yaml"
SHA = b"5503434ddd753f426f4b38109466949a1217c2bb"


def test_a_minimal_live_entry_is_clean(store: DirectoryBenchmarkSource) -> None:
    report = check(GPQA_ENTRY, store)
    assert all_diagnostics(report) == []
    (entry,) = report.entries
    assert entry.ok
    assert entry.entry.dialect is Dialect.LIVE
    assert entry.benchmark is not None
    assert entry.benchmark.repo_id == "Idavidrein/gpqa"
    assert entry.verification.status is VerificationStatus.ABSENT


def test_a_full_target_entry_is_clean(store: DirectoryBenchmarkSource) -> None:
    content = AIME_HEAD.replace(b"}", b", revision: " + SHA + b"}") + (
        b"  framework:\n    name: math-arena\n    version: '0.3.1'\n    command: uv run run.py\n"
        b"  model_revision: 8a2f4ef13df15bfc95e46bd9fe5d52be5a95a087\n"
        b"  metrics:\n"
        b"    - {metric_id: accuracy, value: 61.7, value_type: percentage}\n"
        b"    - {metric_id: cost_usd, value: 14.83, slice: all}\n"
        b"    - {metric_id: attempts, value: 4, value_type: int}\n"
        b"  verify_token: aaa.bbb.ccc\n"
        b"  date: '2026-02-14T10:30:00Z'\n"
        b"  notes: No external tools\n"
        b"  source:\n    url: https://matharena.ai/\n    name: MathArena\n"
        b"    type: evaluation_run\n    organization_name: ETH\n"
        b"    organization_url: https://www.sri.inf.ethz.ch/\n"
        b"    evaluator_relationship: third_party\n"
        b"  inference_engine: {name: vLLM, version: '0.6.3'}\n"
        b"  generation_config:\n    generation_args: {temperature: 0.0}\n"
        b"    additional_details: {description: CoT}\n"
        b"  run: {framework_version: '0.3.1', seed: 0, num_samples: 30, batch_size: 8,"
        b" code_revision: " + SHA + b"}\n"
        b"  artifacts: [{url: 'https://example.org/log', sha256: abc}]\n"
        b"  runtime_context: {compute: 8xH100, environment: CUDA 12.6}\n"
    )
    report = check(content, store, AIME)
    assert all_diagnostics(report) == []
    (entry,) = report.entries
    assert entry.entry.dialect is Dialect.TARGET
    assert entry.entry.token == "aaa.bbb.ccc"
    assert entry.verification.status is VerificationStatus.UNVERIFIED
    assert entry.verification.reason == "not-checked"


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"- 1\n", "ENTRY-NOT-MAPPING"),
        (b"- value: 1\n", "ENTRY-FIELD-MISSING"),
        (b"- dataset: {task_id: diamond}\n  value: 1\n", "ENTRY-FIELD-MISSING"),
        (b"- dataset: {id: Idavidrein/gpqa}\n  value: 1\n", "ENTRY-FIELD-MISSING"),
        (b"- dataset: Idavidrein/gpqa\n  value: 1\n", "ENTRY-FIELD-TYPE"),
        (b"- dataset: {id: Idavidrein/gpqa, task_id: 1}\n  value: 1\n", "ENTRY-FIELD-TYPE"),
        (GPQA_HEAD + b"    revision: 123\n  value: 50\n", "ENTRY-FIELD-TYPE"),
        (GPQA_HEAD + b"  value: 50\n  notes: 1\n", "ENTRY-FIELD-TYPE"),
        (GPQA_HEAD + b"  value: 50\n  date: 2025\n", "ENTRY-FIELD-TYPE"),
        (GPQA_HEAD + b"  value: 50\n  source: https://x.org\n", "ENTRY-FIELD-TYPE"),
        (GPQA_HEAD + b"  value: 50\n  verifyToken: 1\n", "ENTRY-FIELD-TYPE"),
        (
            GPQA_HEAD + b"  value: 50\n  framework: {name: inspect-ai, version: 0.4}\n",
            "ENTRY-FIELD-TYPE",
        ),
        (GPQA_HEAD + b"  value: 50\n  framework: {version: '1'}\n", "ENTRY-FIELD-MISSING"),
        (GPQA_HEAD + b"  value: 50\n  run: {seed: -1}\n", "ENTRY-FIELD-TYPE"),
        (GPQA_HEAD + b"  value: 50\n  run: {batch_size: 0}\n", "ENTRY-FIELD-TYPE"),
        (GPQA_HEAD + b"  value: 50\n  artifacts: a-string\n", "ENTRY-FIELD-TYPE"),
        (GPQA_HEAD + b"  value: 50\n  runtime_context: a-string\n", "ENTRY-FIELD-TYPE"),
        (
            GPQA_HEAD + b"  value: 50\n  metrics: [{metric_id: a, value: 1}]\n",
            "ENTRY-DIALECT-MIXED",
        ),
        (GPQA_HEAD, "ENTRY-VALUE-MISSING"),
        (GPQA_HEAD + b"  value: '78.8'\n", "ENTRY-VALUE-NOT-NUMBER"),
        (GPQA_HEAD + b"  value: true\n", "ENTRY-VALUE-NOT-NUMBER"),
        (GPQA_HEAD + b"  value: [78.8]\n", "ENTRY-VALUE-NOT-NUMBER"),
        (GPQA_HEAD + b"  value: .nan\n", "ENTRY-VALUE-NOT-FINITE"),
        (GPQA_HEAD + b"  value: 1e999\n", "ENTRY-VALUE-NOT-FINITE"),
        (GPQA_HEAD + b"  value: " + b"9" * 400 + b"\n", "ENTRY-VALUE-NOT-FINITE"),
        (b"- dataset: {id: gpqa, task_id: diamond}\n  value: 50\n", "ENTRY-DATASET-ID"),
        (b"- dataset: {id: ../../etc, task_id: diamond}\n  value: 50\n", "ENTRY-DATASET-ID"),
        (GPQA_HEAD + b"  value: 50\n  date: yesterday\n", "ENTRY-DATE"),
        (GPQA_HEAD + b"  value: 50\n  date: '2025-13-45'\n", "ENTRY-DATE"),
        (GPQA_HEAD + b"  value: 50\n  date: '2025-01-15T25:00:00'\n", "ENTRY-DATE"),
        (GPQA_HEAD + b"  value: 50\n  source: {url: 'javascript:alert(1)'}\n", "ENTRY-URL"),
        (GPQA_HEAD + b"  value: 50\n  source: {url: 'https://'}\n", "ENTRY-URL"),
        (
            GPQA_HEAD
            + b"  value: 50\n  source: {url: 'https://a.org', organization_url: ftp://x}\n",
            "ENTRY-URL",
        ),
        (GPQA_HEAD + b"  value: 50\n  source: {name: Model Card}\n", "ENTRY-SOURCE-URL-MISSING"),
        (GPQA_HEAD + b"  value: 50\n  verifyToken: a\n  verify_token: b\n", "ENTRY-TOKEN-BOTH"),
        (GPQA_HEAD + b"  value: 0x1F\n", "ENTRY-NUMBER-NOTATION"),
    ],
)
def test_live_entry_errors(content: bytes, code: str, store: DirectoryBenchmarkSource) -> None:
    report = check(content, store)
    found = {d.code: d for d in all_diagnostics(report)}
    assert code in found, list(found)
    assert not report.ok or found[code].severity is Severity.WARNING


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (AIME_HEAD + b"  metrics: []\n", "ENTRY-METRICS-EMPTY"),
        (AIME_HEAD + b"  metrics: {accuracy: 1}\n", "ENTRY-FIELD-TYPE"),
        (AIME_HEAD + b"  metrics: [61.7]\n", "ENTRY-FIELD-TYPE"),
        (AIME_HEAD + b"  metrics: [{value: 61.7}]\n", "ENTRY-FIELD-MISSING"),
        (AIME_HEAD + b"  metrics: [{metric_id: accuracy}]\n", "ENTRY-FIELD-MISSING"),
        (
            AIME_HEAD
            + b"  metrics: [{metric_id: accuracy, value: 1}, {metric_id: accuracy, value: 2}]\n",
            "ENTRY-METRIC-DUPLICATE",
        ),
        (
            AIME_HEAD + b"  metrics: [{metric_id: attempts, value: 3.5, value_type: int}]\n",
            "ENTRY-VALUE-TYPE",
        ),
        (
            AIME_HEAD + b"  metrics: [{metric_id: attempts, value: 0, value_type: rank}]\n",
            "ENTRY-VALUE-TYPE",
        ),
        (
            AIME_HEAD + b"  metrics: [{metric_id: attempts, value: 1.5, value_type: rank}]\n",
            "ENTRY-VALUE-TYPE",
        ),
        (
            AIME_HEAD + b"  metrics: [{metric_id: accuracy, value: 120, value_type: percentage}]\n",
            "ENTRY-VALUE-TYPE",
        ),
        (
            AIME_HEAD + b"  metrics: [{metric_id: attempts, value: 3, value_type: integer}]\n",
            "ENTRY-VALUE-TYPE-UNKNOWN",
        ),
        (AIME_HEAD + b"  metrics: [{metric_id: accuracy, value: 101}]\n", "ENTRY-VALUE-RANGE"),
        (AIME_HEAD + b"  metrics: [{metric_id: accuracy, value: -1}]\n", "ENTRY-VALUE-RANGE"),
        (AIME_HEAD + b"  metrics: [{metric_id: Accuracy, value: 61.7}]\n", "ENTRY-METRIC-UNKNOWN"),
    ],
)
def test_target_entry_errors(content: bytes, code: str, store: DirectoryBenchmarkSource) -> None:
    report = check(content, store, AIME)
    assert code in [d.code for d in all_diagnostics(report)]
    assert not report.ok


@pytest.mark.parametrize(
    ("content", "valid"),
    [
        (b"    - {metric_id: attempts, value: 4, value_type: int}\n", True),
        (b"    - {metric_id: attempts, value: 4.0, value_type: int}\n", True),
        (b"    - {metric_id: attempts, value: 1, value_type: rank}\n", True),
        (b"    - {metric_id: accuracy, value: 100, value_type: percentage}\n", True),
        (b"    - {metric_id: cost_usd, value: 3.25, value_type: float}\n", True),
    ],
)
def test_value_types_that_hold(
    content: bytes, valid: bool, store: DirectoryBenchmarkSource
) -> None:
    base = AIME_HEAD + b"  metrics:\n    - {metric_id: accuracy, value: 61.7}\n"
    if b"accuracy" in content:
        base = AIME_HEAD + b"  metrics:\n"
    assert check(base + content, store, AIME).ok is valid


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (GPQA_HEAD + b"  value: 50\n  valeu: 1\n", "ENTRY-FIELD-UNKNOWN"),
        (
            b"- dataset: {id: Idavidrein/gpqa, task_id: diamond, subset: x}\n  value: 50\n",
            "ENTRY-FIELD-UNKNOWN",
        ),
        (GPQA_HEAD + b"    revision: '1'\n  value: 50\n", "ENTRY-REVISION"),
        (GPQA_HEAD + b"  value: 50\n  model_revision: 9f3c2c9a1c4e6d1e\n", "ENTRY-REVISION"),
        (GPQA_HEAD + b"  value: 50\n  run: {code_revision: main}\n", "ENTRY-REVISION"),
        (GPQA_HEAD + b"  value: 50\n  date: 2025-01-15\n", "ENTRY-YAML11-AMBIGUOUS"),
        (GPQA_HEAD + b"  value: 0.412\n", "ENTRY-VALUE-SCALE"),
        (
            AIME_HEAD + b"  metrics: [{metric_id: accuracy, value: 0.617}]\n",
            "ENTRY-VALUE-SCALE",
        ),
        (AIME_HEAD + b"  metrics: [{metric_id: cost_usd, value: 14.8}]\n", "ENTRY-PRIMARY-MISSING"),
        (GPQA_HEAD + b"  value: 50\n  framework: {name: lighteval}\n", "ENTRY-FRAMEWORK-MISMATCH"),
        (
            b"- dataset: {id: idavidrein/GPQA, task_id: diamond}\n  value: 50\n",
            "ENTRY-BENCHMARK-CASE",
        ),
    ],
)
def test_warnings_leave_the_entry_valid(
    content: bytes, code: str, store: DirectoryBenchmarkSource
) -> None:
    path = AIME if b"MathArena" in content else ".eval_results/gpqa.yaml"
    report = check(content, store, path)
    found = {d.code: d for d in all_diagnostics(report)}
    assert code in found, list(found)
    assert found[code].severity is Severity.WARNING
    assert report.ok, list(found)


def test_unknown_field_suggests_the_known_one(store: DirectoryBenchmarkSource) -> None:
    (diagnostic,) = list(all_diagnostics(check(GPQA_HEAD + b"  value: 50\n  valeu: 1\n", store)))
    assert diagnostic.hint is not None
    assert "did you mean `value`?" in diagnostic.hint
    assert (diagnostic.line, diagnostic.column, diagnostic.field) == (5, 3, "valeu")


def test_quoted_number_hint_says_remove_the_quotes(store: DirectoryBenchmarkSource) -> None:
    (diagnostic,) = all_diagnostics(check(GPQA_HEAD + b"  value: '78.8'\n", store))
    assert diagnostic.hint == "remove the quotes: the score must be a number, not a string"


def test_missing_field_points_at_its_parent_line(store: DirectoryBenchmarkSource) -> None:
    (diagnostic,) = all_diagnostics(
        check(b"- value: 1\n  dataset:\n    id: Idavidrein/gpqa\n", store)
    )
    assert diagnostic.code == "ENTRY-FIELD-MISSING"
    assert diagnostic.field == "dataset.task_id"
    assert (diagnostic.line, diagnostic.column) == (2, None)


def test_ambiguity_warning_explains_both_readings(store: DirectoryBenchmarkSource) -> None:
    report = check(GPQA_HEAD + b"  value: 1e3\n", store)
    ambiguity = [d for d in all_diagnostics(report) if d.code == "ENTRY-YAML11-AMBIGUOUS"]
    assert ambiguity[0].message == (
        "`value: 1e3` reads as the number 1000.0 under YAML 1.2"
        " but as the string '1e3' under YAML 1.1"
    )
    assert report.entries[0].entry.ambiguous_fields == frozenset({"value"})


def test_entry_records_lines_of_its_fields(store: DirectoryBenchmarkSource) -> None:
    content = GPQA_ENTRY + GPQA_HEAD.replace(b"diamond", b"main") + b"  value: 50\n  notes: x\n"
    report = check(content, store)
    second = report.entries[1].entry
    assert second.index == 1
    assert second.line == 5
    assert second.field_line("dataset.task_id") == 7
    assert second.field_line("notes") == 9
    assert second.dataset_id == "Idavidrein/gpqa"
    assert second.task_id == "main"


def test_live_token_is_read_from_camel_case(store: DirectoryBenchmarkSource) -> None:
    report = check(GPQA_ENTRY + b"  verifyToken: x.y.z\n", store)
    entry = report.entries[0]
    assert entry.entry.token == "x.y.z"
    assert entry.entry.data["verifyToken"] == "x.y.z"
    assert entry.verification.reason == "not-checked"
