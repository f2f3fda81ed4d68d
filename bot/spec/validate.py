"""The pure entry points the CLI and the bot's workers both call: bytes in, reports out.

Nothing here does I/O except through the `BenchmarkSource` passed in. Token verification is
not done here: an entry with a token leaves with `Verification(UNVERIFIED, "not-checked")`,
for the verifier (bot.tokens) to overwrite; one without has `absent`.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.spec import messages
from bot.spec.benchmark import parse_benchmark
from bot.spec.crosscheck import (
    RepoChecks,
    check_against_benchmark,
    file_name_diagnostic,
    file_path_diagnostic,
    looks_like_benchmark,
)
from bot.spec.diagnostics import Diagnostic
from bot.spec.entries import read_entry, split_by_item
from bot.spec.formats import is_repo_id
from bot.spec.limits import DEFAULT_LIMITS, Limits
from bot.spec.located import Locator
from bot.spec.model import (
    Benchmark,
    BenchmarkLookup,
    BenchmarkSource,
    EntryReport,
    FileReport,
    Verification,
    VerificationStatus,
)
from bot.spec.policy import DEFAULT_POLICY, Policy
from bot.spec.yamlload import load_yaml

NOT_CHECKED = Verification(VerificationStatus.UNVERIFIED, "not-checked")


def validate_benchmark_file(
    path: str, content: bytes, *, limits: Limits = DEFAULT_LIMITS
) -> FileReport:
    """Check a benchmark's eval.yaml; its findings are file-level diagnostics."""
    _benchmark, diagnostics = parse_benchmark(
        _repo_id_from_path(path), content, None, limits=limits
    )
    return FileReport(path=path, kind="benchmark", diagnostics=list(diagnostics))


def validate_results_files(
    files: Mapping[str, bytes],
    benchmarks: BenchmarkSource,
    *,
    limits: Limits = DEFAULT_LIMITS,
    policy: Policy = DEFAULT_POLICY,
) -> list[FileReport]:
    """Check a repo's results files, in sorted path order, against their benchmarks.

    `files` maps repo-relative paths (`.eval_results/gpqa.yaml`) to their bytes. Duplicates
    across files are reported on the later entry; files beyond `limits.max_files` are not read.
    """
    run = _Run(benchmarks, limits, policy)
    return [
        run.file(number, path, files[path], len(files)) for number, path in enumerate(sorted(files))
    ]


class _Run:
    """One validation run: the benchmark lookups and repo-wide checks it shares across files."""

    def __init__(self, benchmarks: BenchmarkSource, limits: Limits, policy: Policy) -> None:
        self.benchmarks = benchmarks
        self.limits = limits
        self.policy = policy
        self.lookups: dict[tuple[str, str | None], BenchmarkLookup] = {}
        self.repo = RepoChecks()

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        key = (dataset_id.lower(), revision)
        found = self.lookups.get(key)
        if found is None:
            found = self.benchmarks.lookup(dataset_id, revision)
            self.lookups[key] = found
        return found

    def file(self, number: int, path: str, content: bytes, count: int) -> FileReport:
        report = FileReport(path=path, kind="results")
        if number >= self.limits.max_files:
            report.diagnostics.append(
                messages.make("FILE-TOO-MANY-FILES", count=count, limit=self.limits.max_files)
            )
            return report
        path_warning = file_path_diagnostic(path)
        loaded = load_yaml(content, self.limits)
        data = loaded.data
        if looks_like_benchmark(data):
            # where a results file belongs is no advice for a benchmark definition
            line = loaded.positions.get((), (None, None))[0]
            report.diagnostics.append(messages.make("FILE-IS-BENCHMARK", line=line))
            return report
        if path_warning is not None:
            report.diagnostics.append(self.policy.apply(path_warning, None))
        report.diagnostics.extend(loaded.diagnostics)
        if not loaded.ok:
            return report
        if not isinstance(data, list):
            line = loaded.positions.get((), (None, None))[0]
            report.diagnostics.append(
                messages.make("FILE-NOT-LIST", line=line, kind=messages.kind_of(data))
            )
            return report
        if not data:
            report.diagnostics.append(messages.make("FILE-EMPTY-LIST", line=1))
            return report
        if len(data) > self.limits.max_entries:
            report.diagnostics.append(
                messages.make(
                    "FILE-TOO-MANY-ENTRIES", count=len(data), limit=self.limits.max_entries
                )
            )
            return report
        named: set[str] = set()
        items = split_by_item(loaded, len(data))
        for index, item in enumerate(data):
            entry, diagnostics = read_entry(index, item, items[index])
            entry_report = EntryReport(entry=entry, diagnostics=diagnostics)
            if entry.token is not None:
                entry_report.verification = NOT_CHECKED
            where = Locator(items[index].positions)
            benchmark: Benchmark | None = None
            if entry.dataset_id is not None and is_repo_id(entry.dataset_id):
                revision = _dataset_revision(item)
                benchmark, more = check_against_benchmark(
                    entry, self.lookup(entry.dataset_id, revision), where
                )
                entry_report.benchmark = benchmark
                diagnostics.extend(more)
                if benchmark is not None and benchmark.repo_id.lower() not in named:
                    named.add(benchmark.repo_id.lower())
                    name_warning = file_name_diagnostic(path, entry, benchmark, where)
                    if name_warning is not None:
                        diagnostics.append(name_warning)
            duplicate = self.repo.duplicate(path, entry, benchmark, where)
            if duplicate is not None:
                diagnostics.append(duplicate)
            benchmark_id = benchmark.repo_id if benchmark else entry.dataset_id
            entry_report.diagnostics = sorted(
                (self.policy.apply(diagnostic, benchmark_id) for diagnostic in diagnostics),
                key=_reading_order,
            )
            report.entries.append(entry_report)
        return report


def _reading_order(diagnostic: Diagnostic) -> tuple[int, int]:
    """Diagnostics of an entry in the order a reader meets them in the file (stable)."""
    return (diagnostic.line or 0, diagnostic.column or 0)


def _dataset_revision(item: object) -> str | None:
    if isinstance(item, dict):
        dataset = item.get("dataset")
        if isinstance(dataset, dict) and isinstance(dataset.get("revision"), str):
            revision: str = dataset["revision"]
            return revision
    return None


def _repo_id_from_path(path: str) -> str:
    """`<root>/<org>/<name>/eval.yaml` -> `org/name`, as the offline store lays benchmarks out."""
    parts = path.replace("\\", "/").split("/")
    if len(parts) >= 3 and parts[-1] == "eval.yaml":
        return f"{parts[-3]}/{parts[-2]}"
    return "local/benchmark"
