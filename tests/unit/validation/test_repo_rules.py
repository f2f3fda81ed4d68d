"""Cross-checks against eval.yaml, rules across files, caps, policy and the offline store."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.botconfig.document import ConfigError
from bot.botconfig.files import load_bot_config
from bot.validation.catalogue import Severity
from bot.validation.limits import Limits
from bot.validation.model import Benchmark, BenchmarkNotFound
from bot.validation.policy import Policy, PolicyError, policy_from_yaml
from bot.validation.validate import validate_benchmark_file, validate_results_files
from tests.conftest import REPO_ROOT
from tests.unit.validation.helpers import AIME_ENTRY, GPQA_ENTRY, all_diagnostics, check, codes


def test_unknown_benchmark_is_an_error_with_a_near_miss(store: DirectoryBenchmarkSource) -> None:
    report = check(GPQA_ENTRY.replace(b"Idavidrein/gpqa", b"Idavidrein/gpqq"), store)
    (diagnostic,) = all_diagnostics(report)
    assert diagnostic.code == "ENTRY-BENCHMARK-UNKNOWN"
    assert "did you mean `Idavidrein/gpqa`?" in diagnostic.message
    assert report.entries[0].benchmark is None
    assert (diagnostic.line, diagnostic.column) == (2, 5)


def test_benchmark_with_broken_eval_yaml(tmp_path: Path) -> None:
    broken = tmp_path / "org" / "bench" / "eval.yaml"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"name: X\ndescription: Y\ntasks: []\n")
    source = DirectoryBenchmarkSource(tmp_path)
    lookup = source.lookup("ORG/Bench", None)
    assert isinstance(lookup, BenchmarkNotFound)
    content = b"- dataset: {id: org/bench, task_id: t}\n  value: 50\n"
    assert codes(content, source, ".eval_results/bench.yaml") == ["ENTRY-BENCHMARK-INVALID"]


def test_store_lookup_is_case_insensitive_with_canonical_id(
    store: DirectoryBenchmarkSource,
) -> None:
    lookup = store.lookup("tiger-lab/mmlu-pro", None)
    assert isinstance(lookup, Benchmark)
    assert lookup.repo_id == "TIGER-Lab/MMLU-Pro"
    assert store.lookup("nobody/nothing", None) == BenchmarkNotFound(
        "nobody/nothing", f"no nobody/nothing/eval.yaml under {store.root}"
    )


@pytest.mark.parametrize(
    ("task_id", "suggestion"),
    [("gpqa_diamond", "diamond"), ("Diamond", "diamond"), ("extnded", "extended")],
)
def test_unknown_task_suggests_the_nearest(
    task_id: str, suggestion: str, store: DirectoryBenchmarkSource
) -> None:
    report = check(GPQA_ENTRY.replace(b"diamond", task_id.encode()), store)
    (diagnostic,) = all_diagnostics(report)
    assert diagnostic.code == "ENTRY-TASK-UNKNOWN"
    assert diagnostic.severity is Severity.ERROR
    assert diagnostic.hint == f"did you mean `{suggestion}`? Write `task_id: {suggestion}`"
    assert diagnostic.field == "dataset.task_id"


def test_unknown_metric_suggests_the_exact_spelling(store: DirectoryBenchmarkSource) -> None:
    content = AIME_ENTRY.replace(b"metric_id: accuracy", b"metric_id: Accuracy")
    found = list(all_diagnostics(check(content, store, ".eval_results/aime_2026.yaml")))
    unknown = [d for d in found if d.code == "ENTRY-METRIC-UNKNOWN"]
    assert unknown[0].hint == "did you mean `accuracy`? Write `metric_id: accuracy`"


def test_metrics_against_a_benchmark_without_metrics(store: DirectoryBenchmarkSource) -> None:
    content = (
        b"- dataset: {id: Idavidrein/gpqa, task_id: diamond}\n"
        b"  metrics: [{metric_id: accuracy, value: 50}]\n"
    )
    assert codes(content, store) == ["ENTRY-METRICS-UNDECLARED"]


def test_live_value_checked_against_primary_metric_bounds(store: DirectoryBenchmarkSource) -> None:
    content = b"- dataset: {id: MathArena/aime_2026, task_id: aime_2026}\n  value: 250\n"
    assert codes(content, store, ".eval_results/aime_2026.yaml") == ["ENTRY-VALUE-RANGE"]
    assert codes(content.replace(b"250", b"61.7"), store, ".eval_results/aime_2026.yaml") == []


def test_duplicates_within_a_file_mark_the_later(store: DirectoryBenchmarkSource) -> None:
    report = check(GPQA_ENTRY + GPQA_ENTRY, store)
    assert report.entries[0].ok
    (diagnostic,) = report.entries[1].diagnostics
    assert diagnostic.code == "ENTRY-DUPLICATE"
    assert (
        diagnostic.message
        == "same benchmark, task and notes as entry 1 (`[0]`) of `.eval_results/gpqa.yaml`"
    )


def test_duplicates_across_files_mark_the_later_file(store: DirectoryBenchmarkSource) -> None:
    files = {
        ".eval_results/gpqa_with_tools.yaml": GPQA_ENTRY.replace(
            b"Idavidrein/gpqa", b"IDAVIDREIN/gpqa"
        ),
        ".eval_results/gpqa.yaml": GPQA_ENTRY,
    }
    first, second = validate_results_files(files, store)
    assert first.path == ".eval_results/gpqa.yaml"
    assert first.ok
    assert "ENTRY-DUPLICATE" in [d.code for d in all_diagnostics(second)]


def test_notes_tell_variants_apart(store: DirectoryBenchmarkSource) -> None:
    content = GPQA_ENTRY + GPQA_ENTRY + b"  notes: With tools\n"
    assert check(content, store).ok


def test_file_name_rule_is_a_warning(store: DirectoryBenchmarkSource) -> None:
    report = check(GPQA_ENTRY, store, ".eval_results/results.yaml")
    (diagnostic,) = all_diagnostics(report)
    assert diagnostic.code == "FILE-NAME"
    assert diagnostic.hint == "name it `gpqa.yaml` (benchmark repo name, lower-cased, `-` as `_`)"
    assert report.ok


@pytest.mark.parametrize("path", [".eval_results/gpqa.yaml", ".eval_results/gpqa_diamond.yaml"])
def test_file_names_that_follow_the_rule(path: str, store: DirectoryBenchmarkSource) -> None:
    assert codes(GPQA_ENTRY, store, path) == []


def test_mmlu_pro_name_lowercases_and_underscores(store: DirectoryBenchmarkSource) -> None:
    content = b"- dataset: {id: TIGER-Lab/MMLU-Pro, task_id: mmlu_pro}\n  value: 70\n"
    assert codes(content, store, ".eval_results/mmlu_pro.yaml") == []
    assert codes(content, store, ".eval_results/mmlu-pro.yaml") == ["FILE-NAME"]


@pytest.mark.parametrize(
    "path", [".eval_results/gpqa.yml", ".eval_results/sub/gpqa.yaml", "gpqa.yaml"]
)
def test_file_path_rule_is_a_warning(path: str, store: DirectoryBenchmarkSource) -> None:
    report = check(GPQA_ENTRY, store, path)
    assert "FILE-PATH" in [d.code for d in report.diagnostics]
    assert report.ok


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"[]\n", "FILE-EMPTY-LIST"), (b"a: 1\n", "FILE-NOT-LIST"), (b"~\n", "FILE-NOT-LIST")],
)
def test_file_shape(content: bytes, code: str, store: DirectoryBenchmarkSource) -> None:
    report = check(content, store)
    assert [d.code for d in report.diagnostics] == [code]
    assert not report.ok


def test_entry_cap_is_inclusive(store: DirectoryBenchmarkSource) -> None:
    two = GPQA_ENTRY + GPQA_ENTRY.replace(b"diamond", b"main")
    (report,) = validate_results_files(
        {".eval_results/gpqa.yaml": two}, store, limits=Limits(max_entries=2)
    )
    assert report.ok
    (report,) = validate_results_files(
        {".eval_results/gpqa.yaml": two}, store, limits=Limits(max_entries=1)
    )
    assert [d.code for d in report.diagnostics] == ["FILE-TOO-MANY-ENTRIES"]


def test_file_cap_marks_the_files_beyond_it(store: DirectoryBenchmarkSource) -> None:
    files = {
        f".eval_results/gpqa_{n}.yaml": GPQA_ENTRY.replace(b"diamond", t)
        for n, t in enumerate([b"diamond", b"main", b"extended"])
    }
    reports = validate_results_files(files, store, limits=Limits(max_files=2))
    assert [r.ok for r in reports] == [True, True, False]
    assert [d.code for d in reports[2].diagnostics] == ["FILE-TOO-MANY-FILES"]
    assert reports[2].entries == []


def test_policy_promotes_a_warning_everywhere(store: DirectoryBenchmarkSource) -> None:
    content = GPQA_ENTRY.replace(
        b"    task_id: diamond\n", b"    task_id: diamond\n    revision: main\n"
    )
    policy = Policy(errors=frozenset({"ENTRY-REVISION"}))
    (report,) = validate_results_files({".eval_results/gpqa.yaml": content}, store, policy=policy)
    (diagnostic,) = all_diagnostics(report)
    assert diagnostic.severity is Severity.ERROR
    assert not report.ok


def test_policy_per_benchmark(store: DirectoryBenchmarkSource) -> None:
    policy = policy_from_yaml(b"benchmarks:\n  idavidrein/GPQA: [FILE-NAME]\n")
    files = {
        ".eval_results/x.yaml": GPQA_ENTRY,
        ".eval_results/y.yaml": b"- dataset: {id: cais/hle, task_id: hle}\n  value: 5\n",
    }
    gpqa, hle = validate_results_files(files, store, policy=policy)
    assert not gpqa.ok
    assert hle.ok
    assert [d.code for d in all_diagnostics(hle)] == ["FILE-NAME"]


@pytest.mark.parametrize(
    "content",
    [
        b"errors: [NOT-A-CODE]\n",
        b"errors: [ENTRY-TASK-UNKNOWN]\n",
        b"errors: x\n",
        b"- a\n",
        b"a: 1\na: 2\n",
        b"error: [FILE-NAME]\n",
    ],
)
def test_bad_policy_files_are_refused(content: bytes) -> None:
    with pytest.raises(PolicyError):
        policy_from_yaml(content)


def test_shipped_policy_loads() -> None:
    assert load_bot_config(REPO_ROOT / "config" / "bot.yaml").policy == Policy()


def test_a_policy_error_in_bot_yaml_names_the_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text("maintainers: []\npolicy:\n  errors: []\n  benchmarks:\n    o/b: [NOPE]\n")
    with pytest.raises(ConfigError) as raised:
        load_bot_config(path)
    assert str(raised.value).startswith(f"{path}:5: `policy.benchmarks.o/b`: unknown diagnostic")
    path.write_text("policy:\n  error: [FILE-NAME]\n")  # a misspelt key is not ignored
    with pytest.raises(ConfigError, match=r"bot.yaml:1: `policy` policy must be a mapping"):
        load_bot_config(path)


def test_benchmark_file_report(store_root: Path) -> None:
    path = store_root / "Idavidrein" / "gpqa" / "eval.yaml"
    report = validate_benchmark_file(str(path), path.read_bytes())
    assert report.kind == "benchmark"
    assert report.ok
    assert report.entries == []
    broken = validate_benchmark_file("eval.yaml", b"name: X\ntasks: []\n")
    assert [d.code for d in broken.diagnostics] == ["BENCH-FIELD-MISSING", "BENCH-TASKS-EMPTY"]
    assert not broken.ok


def test_lookups_are_made_once_per_id_and_revision(store: DirectoryBenchmarkSource) -> None:
    calls: list[tuple[str, str | None]] = []

    class Recording:
        def lookup(self, dataset_id: str, revision: str | None) -> Benchmark | BenchmarkNotFound:
            calls.append((dataset_id, revision))
            return store.lookup(dataset_id, revision)

    content = (
        b"".join(GPQA_ENTRY.replace(b"diamond", t) for t in (b"diamond", b"main", b"extended"))
        + b"- dataset: {id: IDAVIDREIN/GPQA, task_id: main, revision: '"
        + b"a" * 40
        + b"'}\n  value: 1\n  notes: x\n"
    )
    validate_results_files({".eval_results/gpqa.yaml": content}, Recording())
    assert calls == [("Idavidrein/gpqa", None), ("IDAVIDREIN/GPQA", "a" * 40)]


@pytest.mark.parametrize(
    ("path", "says", "fix"),
    [
        (".eval_results/gpqa.yml", "end in `.yaml`, not `.yml`", "rename the file to"),
        (".eval_results/sub/gpqa.yaml", "not in a sub-folder", "move the file to"),
        ("gpqa.yaml", "live in the repo's `.eval_results/` folder", "move the file to"),
    ],
)
def test_file_path_says_what_is_actually_wrong(
    path: str, says: str, fix: str, store: DirectoryBenchmarkSource
) -> None:
    """A file that ends in `.yaml` is not told to end in `.yaml`."""
    (diagnostic,) = [d for d in check(GPQA_ENTRY, store, path).diagnostics if d.code == "FILE-PATH"]
    assert says in diagnostic.message
    assert path.endswith(".yml") == ("`.yaml`" in diagnostic.message)
    assert diagnostic.hint is not None
    assert diagnostic.hint.startswith(fix)
    assert diagnostic.hint.endswith("`.eval_results/gpqa.yaml`")


@pytest.mark.parametrize("path", ["benchmark.yaml", "eval.yml", ".eval_results/eval.yaml"])
def test_a_benchmark_definition_under_another_name_is_told_to_be_eval_yaml(
    path: str, store: DirectoryBenchmarkSource
) -> None:
    """Not "move it into `.eval_results/`": that is where results go, not benchmarks."""
    content = b"name: X\ndescription: y\nevaluation_framework: inspect-ai\ntasks:\n  - id: t\n"
    report = check(content, store, path)
    assert [d.code for d in report.diagnostics] == ["FILE-IS-BENCHMARK"]
    (diagnostic,) = report.diagnostics
    assert diagnostic.hint is not None
    assert "`eval.yaml`" in diagnostic.hint
    assert ".eval_results/eval" not in diagnostic.hint
