"""A repo's results files checked, bytes in, reports out: the pure entry points the CLI and the
workers both call. Tokens are left `not-checked` for `bot.tokens`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from bot.validation import diagnostics
from bot.validation.against_benchmark import check_against_benchmark
from bot.validation.benchmark import parse_benchmark
from bot.validation.diagnostics import Diagnostic
from bot.validation.entry import read_entry, split_by_item
from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.model import (
    Benchmark,
    BenchmarkLookup,
    BenchmarkSource,
    EntryReport,
    FileReport,
    Verification,
    VerificationStatus,
    is_repo_id,
)
from bot.validation.policy import DEFAULT_POLICY, Policy
from bot.validation.positions import Locator
from bot.validation.repo_rules import (
    RepoChecks,
    file_name_diagnostic,
    file_path_diagnostic,
    looks_like_benchmark,
)
from bot.validation.yamlload import load_yaml

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
                diagnostics.make("FILE-TOO-MANY-FILES", count=count, limit=self.limits.max_files)
            )
            return report
        path_warning = file_path_diagnostic(path)
        loaded = load_yaml(content, self.limits)
        data = loaded.data
        if looks_like_benchmark(data):
            # where a results file belongs is no advice for a benchmark definition
            line = loaded.positions.get((), (None, None))[0]
            report.diagnostics.append(diagnostics.make("FILE-IS-BENCHMARK", line=line))
            return report
        if path_warning is not None:
            report.diagnostics.append(self.policy.apply(path_warning, None))
        report.diagnostics.extend(loaded.diagnostics)
        if not loaded.ok:
            return report
        if not isinstance(data, list):
            line = loaded.positions.get((), (None, None))[0]
            report.diagnostics.append(
                diagnostics.make("FILE-NOT-LIST", line=line, kind=diagnostics.kind_of(data))
            )
            return report
        if not data:
            report.diagnostics.append(diagnostics.make("FILE-EMPTY-LIST", line=1))
            return report
        if len(data) > self.limits.max_entries:
            report.diagnostics.append(
                diagnostics.make(
                    "FILE-TOO-MANY-ENTRIES", count=len(data), limit=self.limits.max_entries
                )
            )
            return report
        named: set[str] = set()
        items = split_by_item(loaded, len(data))
        for index, item in enumerate(data):
            entry, found = read_entry(index, item, items[index])
            entry_report = EntryReport(entry=entry, diagnostics=found)
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
                found.extend(more)
                if benchmark is not None and benchmark.repo_id.lower() not in named:
                    named.add(benchmark.repo_id.lower())
                    name_warning = file_name_diagnostic(path, entry, benchmark, where)
                    if name_warning is not None:
                        found.append(name_warning)
            duplicate = self.repo.duplicate(path, entry, benchmark, where)
            if duplicate is not None:
                found.append(duplicate)
            benchmark_id = benchmark.repo_id if benchmark else entry.dataset_id
            entry_report.diagnostics = sorted(
                (self.policy.apply(diagnostic, benchmark_id) for diagnostic in found),
                key=_reading_order,
            )
            report.entries.append(entry_report)
        _withdraw_renames(report)
        return report


def _withdraw_renames(report: FileReport) -> None:
    """A file's rename (FILE-NAME) is the one right answer only when all its entries are of
    one benchmark: with several, or one that is unknown, no single name is right."""
    benchmarks = {
        entry.benchmark.repo_id if entry.benchmark is not None else None for entry in report.entries
    }
    if len(benchmarks) == 1 and None not in benchmarks:
        return
    for entry in report.entries:
        for position, diagnostic in enumerate(entry.diagnostics):
            if diagnostic.code == "FILE-NAME" and diagnostic.fix is not None:
                entry.diagnostics[position] = dataclasses.replace(diagnostic, fix=None)


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
