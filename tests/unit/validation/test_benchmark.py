"""eval.yaml rules: both the live shape (real files) and the target shape with metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.validation.benchmark import benchmark_from_eval_yaml, parse_benchmark
from bot.validation.catalogue import Severity
from bot.validation.model import Benchmark, BenchmarkNotFound, TaskDef
from tests.unit.validation.conftest import MATHARENA_EVAL_YAML, REAL_EVAL_YAML, repo_id_of

TARGET_EXAMPLE = b"""\
name: "Humanity's Last Exam"
description: "Multi-modal benchmark at the frontier of human knowledge."
metrics:
  - id: "accuracy"
    display_name: "Top-1 Accuracy"
    higher_is_better: true
    primary: true
  - id: "wer"
    display_name: "Word Error Rate"
    higher_is_better: false
tasks:
  - id: hle
    config: default
    split: test
"""

HEAD = b"name: X\ndescription: Y\n"
TASKS = b"tasks:\n  - id: t\n"


def codes(content: bytes) -> list[str]:
    _benchmark, diagnostics = parse_benchmark("org/bench", content, None)
    return [diagnostic.code for diagnostic in diagnostics]


@pytest.mark.parametrize("fixture", sorted(REAL_EVAL_YAML.glob("*.yaml")), ids=lambda p: p.name)
def test_every_real_eval_yaml_is_valid(fixture: Path) -> None:
    benchmark, diagnostics = parse_benchmark(repo_id_of(fixture), fixture.read_bytes(), None)
    assert diagnostics == []
    assert isinstance(benchmark, Benchmark)
    assert benchmark.metrics == ()
    assert benchmark.tasks


def test_real_gpqa_declares_its_three_tasks() -> None:
    content = (REAL_EVAL_YAML / "Idavidrein__gpqa.eval.yaml").read_bytes()
    benchmark, _ = parse_benchmark("Idavidrein/gpqa", content, "a" * 40)
    assert benchmark is not None
    assert [task.id for task in benchmark.tasks] == ["diamond", "main", "extended"]
    assert benchmark.evaluation_framework == "inspect-ai"
    assert benchmark.revision == "a" * 40


def test_target_spec_example_is_valid_with_its_primary_metric() -> None:
    benchmark, diagnostics = parse_benchmark("cais/hle", TARGET_EXAMPLE, None)
    assert diagnostics == []
    assert benchmark is not None
    assert benchmark.primary_metric is not None
    assert benchmark.primary_metric.id == "accuracy"
    wer = benchmark.metric("wer")
    assert wer is not None
    assert wer.higher_is_better is False


def test_target_extensions_are_read() -> None:
    benchmark, diagnostics = parse_benchmark("MathArena/aime_2026", MATHARENA_EVAL_YAML, None)
    assert diagnostics == []
    assert benchmark is not None
    accuracy = benchmark.metric("accuracy")
    assert accuracy is not None
    assert (accuracy.min_score, accuracy.max_score) == (0.0, 100.0)
    assert benchmark.tasks[1].display_name == "HMMT February 2026"


def test_single_metric_needs_no_primary_flag() -> None:
    content = HEAD + b"metrics:\n  - {id: acc, display_name: Acc, higher_is_better: true}\n" + TASKS
    benchmark, diagnostics = parse_benchmark("org/bench", content, None)
    assert diagnostics == []
    assert benchmark is not None
    assert benchmark.primary_metric is not None


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"- a\n", "BENCH-NOT-MAPPING"),
        (b"description: Y\n" + TASKS, "BENCH-FIELD-MISSING"),
        (b"name: X\n" + TASKS, "BENCH-FIELD-MISSING"),
        (HEAD, "BENCH-FIELD-MISSING"),
        (b"name: 12\ndescription: Y\n" + TASKS, "BENCH-FIELD-TYPE"),
        (HEAD + b"tasks: t\n", "BENCH-FIELD-TYPE"),
        (HEAD + b"tasks: []\n", "BENCH-TASKS-EMPTY"),
        (HEAD + b"tasks:\n  - config: default\n", "BENCH-FIELD-MISSING"),
        (HEAD + b"tasks:\n  - id: 2024\n", "BENCH-FIELD-TYPE"),
        (HEAD + b"tasks:\n  - just-a-string\n", "BENCH-FIELD-TYPE"),
        (HEAD + b"tasks:\n  - id: t\n  - id: t\n", "BENCH-TASK-DUPLICATE"),
        (HEAD + b"metrics: []\n" + TASKS, "BENCH-METRICS-EMPTY"),
        (HEAD + b"metrics: accuracy\n" + TASKS, "BENCH-FIELD-TYPE"),
        (
            HEAD + b"metrics:\n  - {display_name: A, higher_is_better: true}\n" + TASKS,
            "BENCH-FIELD-MISSING",
        ),
        (HEAD + b"metrics:\n  - {id: a, higher_is_better: true}\n" + TASKS, "BENCH-FIELD-MISSING"),
        (HEAD + b"metrics:\n  - {id: a, display_name: A}\n" + TASKS, "BENCH-FIELD-MISSING"),
        (
            HEAD + b"metrics:\n  - {id: a, display_name: A, higher_is_better: yes}\n" + TASKS,
            "BENCH-FIELD-TYPE",
        ),
        (
            HEAD + b"metrics:\n  - {id: a, display_name: A, higher_is_better: 'true'}\n" + TASKS,
            "BENCH-FIELD-TYPE",
        ),
        (
            HEAD + b"metrics:\n  - {id: a, display_name: A, higher_is_better: 1}\n" + TASKS,
            "BENCH-FIELD-TYPE",
        ),
        (
            HEAD
            + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true, primary: true}\n"
            + b"  - {id: a, display_name: B, higher_is_better: true}\n"
            + TASKS,
            "BENCH-METRIC-DUPLICATE",
        ),
        (
            HEAD
            + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true}\n"
            + b"  - {id: b, display_name: B, higher_is_better: true}\n"
            + TASKS,
            "BENCH-PRIMARY",
        ),
        (
            HEAD
            + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true, primary: true}\n"
            + b"  - {id: b, display_name: B, higher_is_better: true, primary: true}\n"
            + TASKS,
            "BENCH-PRIMARY",
        ),
        (
            HEAD
            + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true,"
            + b" min_score: 100, max_score: 0}\n"
            + TASKS,
            "BENCH-SCORE-RANGE",
        ),
        (
            HEAD
            + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true, max_score: '1'}\n"
            + TASKS,
            "BENCH-FIELD-TYPE",
        ),
        (
            HEAD
            + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true, aggregation: mean}\n"
            + TASKS,
            "BENCH-ENUM",
        ),
        (HEAD + b"tasks:\n  - id: t\n    dataset: {id: not-a-repo-id}\n", "BENCH-FIELD-TYPE"),
        (
            HEAD
            + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true, max_score: "
            + b"9" * 400
            + b"}\n"
            + TASKS,
            "BENCH-FIELD-TYPE",
        ),
        (
            HEAD
            + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true, min_score: .nan}\n"
            + TASKS,
            "BENCH-FIELD-TYPE",
        ),
        (b"a: 1\na: 2\n", "YAML-DUPLICATE-KEY"),
    ],
)
def test_errors(content: bytes, code: str) -> None:
    benchmark, diagnostics = parse_benchmark("org/bench", content, None)
    assert code in [diagnostic.code for diagnostic in diagnostics]
    assert benchmark is None


def test_primary_error_counts_the_primaries() -> None:
    content = (
        HEAD
        + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true}\n"
        + b"  - {id: b, display_name: B, higher_is_better: true}\n"
        + TASKS
    )
    _, diagnostics = parse_benchmark("org/bench", content, None)
    (diagnostic,) = diagnostics
    assert diagnostic.message.startswith("0 metrics are marked")
    assert diagnostic.line == 3


def test_enum_error_suggests_the_nearest_value() -> None:
    content = (
        HEAD
        + b"metrics:\n  - {id: a, display_name: A, higher_is_better: true, aggregation: macr}\n"
        + TASKS
    )
    _, diagnostics = parse_benchmark("org/bench", content, None)
    assert diagnostics[0].hint is not None
    assert "did you mean `macro`?" in diagnostics[0].hint


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (HEAD + b"tasks:\n  - id: t\n    dataset: {id: a/b, revision: main}\n", "BENCH-REVISION"),
        (HEAD + b"evaluation_framework: inspect_ai\n" + TASKS, "BENCH-FRAMEWORK-UNKNOWN"),
    ],
)
def test_warnings_keep_the_benchmark_usable(content: bytes, code: str) -> None:
    benchmark, diagnostics = parse_benchmark("org/bench", content, None)
    assert [d.code for d in diagnostics] == [code]
    assert diagnostics[0].severity is Severity.WARNING
    assert benchmark is not None


def test_pinned_task_revision_is_accepted() -> None:
    content = HEAD + b"tasks:\n  - id: t\n    dataset: {id: a/b, revision: '" + b"0" * 40 + b"'}\n"
    assert codes(content) == []


def test_unknown_top_level_keys_are_ignored() -> None:
    assert codes(HEAD + TASKS + b"languages: [en]\nleaderboard: {anything: 1}\n") == []


def test_invalid_eval_yaml_is_not_found_with_its_diagnostics() -> None:
    lookup = benchmark_from_eval_yaml("org/bench", HEAD + b"tasks: []\n", None)
    assert isinstance(lookup, BenchmarkNotFound)
    assert [d.code for d in lookup.diagnostics] == ["BENCH-TASKS-EMPTY"]
    assert lookup.reason == "its eval.yaml has 1 error"


def test_valid_eval_yaml_gives_the_benchmark() -> None:
    lookup = benchmark_from_eval_yaml("Org/Bench", HEAD + TASKS, "b" * 40)
    assert lookup == Benchmark(repo_id="Org/Bench", tasks=(TaskDef("t"),), revision="b" * 40)


@pytest.mark.parametrize("framework", ["extractbench", "mmmu", "nanofold", "real5-omnidocbench"])
def test_frameworks_the_hub_added_lately_are_known(framework: str) -> None:
    """The Hub accepted 30 frameworks when the list was last refreshed, not the 19 of spring."""
    assert codes(HEAD + f"evaluation_framework: {framework}\n".encode() + TASKS) == []


@pytest.mark.parametrize(
    ("framework", "suggested"),
    [
        ("inspect_ai", "inspect-ai"),
        ("Inspect-AI", "inspect-ai"),
        ("swe-bench-pr0", "swe-bench-pro"),
    ],
)
def test_a_typo_of_a_known_framework_gets_its_correction(framework: str, suggested: str) -> None:
    _, (diagnostic,) = parse_benchmark(
        "org/bench", HEAD + f"evaluation_framework: {framework}\n".encode() + TASKS, None
    )
    assert diagnostic.code == "BENCH-FRAMEWORK-UNKNOWN"
    assert diagnostic.hint is not None
    assert f"did you mean `{suggested}`?" in diagnostic.hint


@pytest.mark.parametrize("framework", ["lighteval", "mmlu-pro-eval", "helm", "bench"])
def test_an_unknown_framework_gets_no_misleading_suggestion(framework: str) -> None:
    """An id the Hub may have added since the last refresh is not a typo of a neighbour:
    the hint says the list may be out of date and how to refresh it, and suggests nothing."""
    _, (diagnostic,) = parse_benchmark(
        "org/bench", HEAD + f"evaluation_framework: {framework}\n".encode() + TASKS, None
    )
    assert diagnostic.code == "BENCH-FRAMEWORK-UNKNOWN"
    assert diagnostic.hint is not None
    assert "did you mean" not in diagnostic.hint
    assert "evalbot frameworks refresh" in diagnostic.hint
    assert "refreshed 20" in diagnostic.message
