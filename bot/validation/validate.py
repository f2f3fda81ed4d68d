"""Validation: a repo's results files checked, bytes in, reports out; the pure entry points the
CLI and the bot's workers both call.

Nothing here does I/O except through the `BenchmarkSource` passed in. Token verification is
not done here: an entry with a token leaves with `Verification(UNVERIFIED, "not-checked")`,
for the verifier (bot.tokens) to overwrite; one without has `absent`.

The checks, in the order a file meets them:

- one entry alone (`read_entry`): its dialect, shape, types and formats, as a `ResultEntry`.
  Both dialects are read (docs/decisions.md#dialects): the live one (scalar `value`,
  `verifyToken`) and the target one (`metrics[]`, `framework`, `verify_token`); a file valid
  under the live format never fails for lacking target fields;
- the entry against its benchmark's eval.yaml (`check_against_benchmark`). Ids follow
  docs/decisions.md#ids: benchmark ids are case-insensitive (a different spelling is a
  warning), task and metric ids are exact (a case-only difference is an error with a hint). A
  live `value` stands for the benchmark's primary metric;
- across the entries and files of a repo (`RepoChecks`, the file's name and path);
- the benchmark policy last (`Policy`): which draft-only warnings count as errors. Real files
  break some draft rules (40-hex revisions, file naming), so those are warnings by default; a
  deployment, or one benchmark, may make them errors through the `policy:` section of
  `config/bot.yaml`:

      policy:
        errors: [ENTRY-REVISION]            # everywhere
        benchmarks:
          Idavidrein/gpqa: [FILE-NAME]      # for entries of that benchmark only
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.validation import diagnostics
from bot.validation.benchmark import parse_benchmark
from bot.validation.diagnostics import (
    CATALOGUE,
    TOKEN_SPELLINGS,
    Diagnostic,
    Fix,
    Severity,
    did_you_mean,
    shown,
    suggestion_suffix,
    unique_match,
)
from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.model import (
    Benchmark,
    BenchmarkLookup,
    BenchmarkSource,
    Dialect,
    EntryReport,
    FileReport,
    MetricDef,
    ResultEntry,
    Verification,
    VerificationStatus,
    benchmark_file_stem,
    is_finite_number,
    is_http_url,
    is_iso8601,
    is_number,
    is_repo_id,
    is_sha40,
)
from bot.validation.yamlload import (
    LoadedYaml,
    Locator,
    NumberTooLong,
    Path,
    Position,
    describe,
    dotted,
    is_ambiguous,
    load_yaml,
    resolve_plain,
    same_value,
    yaml11_reading,
)

# --- the benchmark policy: which warnings count as errors -------------------------------------


class PolicyError(ValueError):
    """The policy file is unreadable or names a code that is not a warning."""


@dataclass(frozen=True, slots=True)
class Policy:
    errors: frozenset[str] = frozenset()
    #: lower-cased benchmark id -> codes that are errors for that benchmark's entries
    benchmark_errors: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def apply(self, diagnostic: Diagnostic, benchmark_id: str | None) -> Diagnostic:
        """The diagnostic, promoted to an error when the policy says so."""
        if diagnostic.severity is not Severity.WARNING:
            return diagnostic
        codes = self.errors
        if benchmark_id is not None:
            codes = codes | self.benchmark_errors.get(benchmark_id.lower(), frozenset())
        if diagnostic.code in codes:
            return dataclasses.replace(diagnostic, severity=Severity.ERROR)
        return diagnostic


DEFAULT_POLICY = Policy()


def policy_from_yaml(content: bytes) -> Policy:
    """Parse a policy document (`errors`, `benchmarks`); see `policy_from_mapping`."""
    loaded = load_yaml(content)
    if not loaded.ok:
        raise PolicyError("; ".join(diagnostic.message for diagnostic in loaded.diagnostics))
    return policy_from_mapping(loaded.data)


def policy_from_mapping(data: Any, *, section: str = "") -> Policy:
    """The policy in `data`, a mapping of `errors` and `benchmarks` (None: the default), as the
    `policy:` section of `config/bot.yaml` holds it; unknown keys, unknown codes and codes that
    are not warnings are refused. `section` is the mapping's place in its file (`policy.`):
    every message names the field from the top of the file, so the file's line can be found."""
    if data is None:
        return DEFAULT_POLICY
    if not isinstance(data, dict) or set(data) - {"errors", "benchmarks"}:
        where = f"`{section.rstrip('.')}` " if section else ""
        raise PolicyError(f"{where}policy must be a mapping with `errors` and `benchmarks`")
    errors = _codes(data.get("errors", []), f"{section}errors")
    benchmarks = data.get("benchmarks", {}) or {}
    if not isinstance(benchmarks, dict):
        raise PolicyError(f"`{section}benchmarks` must map benchmark ids to lists of codes")
    per_benchmark = {
        str(benchmark_id).lower(): _codes(codes, f"{section}benchmarks.{benchmark_id}")
        for benchmark_id, codes in benchmarks.items()
    }
    return Policy(errors=errors, benchmark_errors=per_benchmark)


def _codes(raw: Any, where: str) -> frozenset[str]:
    if raw is None:
        return frozenset()
    if not isinstance(raw, list) or not all(isinstance(code, str) for code in raw):
        raise PolicyError(f"`{where}` must be a list of diagnostic codes")
    for code in raw:
        message = CATALOGUE.get(code)
        if message is None:
            raise PolicyError(f"`{where}`: unknown diagnostic code {code!r}")
        if message.severity is not Severity.WARNING:
            raise PolicyError(f"`{where}`: {code} is already an error")
    return frozenset(raw)


# --- the entry points: files in, reports out --------------------------------------------------

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


# --- one entry alone --------------------------------------------------------------------------

# Known keys per mapping; `None` means free-form below that key (not checked further).
ENTRY_KEYS = frozenset(
    {
        "dataset",
        "value",
        "metrics",
        "verifyToken",
        "verify_token",
        "date",
        "source",
        "notes",
        "framework",
        "model_revision",
        "evaluation_framework",
        "inference_engine",
        "generation_config",
        "run",
        "artifacts",
        "runtime_context",
    }
)
DATASET_KEYS = frozenset({"id", "task_id", "revision", "config", "split"})
SOURCE_KEYS = frozenset(
    {
        "url",
        "name",
        "user",
        "org",
        "type",
        "organization_name",
        "organization_url",
        "evaluator_relationship",
    }
)
FRAMEWORK_KEYS = frozenset({"name", "version", "command"})
METRIC_KEYS = frozenset({"metric_id", "value", "value_type", "slice", "unit"})
RUN_KEYS = frozenset(
    {
        "framework_version",
        "adapter_version",
        "dataset_revision",
        "code_revision",
        "seed",
        "num_samples",
        "batch_size",
    }
)
INFERENCE_ENGINE_KEYS = frozenset({"name", "version"})
GENERATION_CONFIG_KEYS = frozenset({"generation_args", "additional_details"})
VALUE_TYPES = ("float", "int", "percentage", "rank")
TOKEN_KEYS = TOKEN_SPELLINGS


@dataclass(slots=True)
class ItemPositions:
    """What the loader recorded about one list item, keyed by paths relative to the item."""

    positions: dict[Path, Position] = field(default_factory=dict)
    ambiguous: dict[Path, str] = field(default_factory=dict)
    hexadecimal: dict[Path, str] = field(default_factory=dict)


def split_by_item(loaded: LoadedYaml, count: int) -> list[ItemPositions]:
    """Split a top-level list's position maps per item, in one pass over each map."""
    items = [ItemPositions() for _ in range(count)]
    for source, attribute in (
        (loaded.positions, "positions"),
        (loaded.ambiguous, "ambiguous"),
        (loaded.hexadecimal, "hexadecimal"),
    ):
        for path, value in source.items():
            if path and isinstance(path[0], int) and path[0] < count:
                getattr(items[path[0]], attribute)[path[1:]] = value
    return items


def read_entry(index: int, data: Any, item: ItemPositions) -> tuple[ResultEntry, list[Diagnostic]]:
    """Build the `ResultEntry` for list item `index` and check everything local to it."""
    line = item.positions.get((), (0, 0))[0]
    checker = _EntryChecker(Locator(item.positions))
    if not isinstance(data, dict):
        checker.report("ENTRY-NOT-MAPPING", (), kind=diagnostics.kind_of(data))
        entry = ResultEntry(index=index, line=line, data={}, dialect=Dialect.LIVE)
        return entry, checker.diagnostics
    dialect = checker.check(data)
    for path, text in item.ambiguous.items():
        checker.ambiguity(path, text, _value_at(data, path))
    for path, text in item.hexadecimal.items():
        value = int(text, 16)
        checker.report(
            "ENTRY-NUMBER-NOTATION",
            path,
            text=text,
            value=value,
            fix=Fix("rewrite", value, path, text=str(value)),
        )
    dataset = data.get("dataset")
    dataset_id = task_id = None
    if isinstance(dataset, dict):
        dataset_id = dataset.get("id") if isinstance(dataset.get("id"), str) else None
        task_id = dataset.get("task_id") if isinstance(dataset.get("task_id"), str) else None
    token = next((data[key] for key in TOKEN_KEYS if isinstance(data.get(key), str)), None)
    entry = ResultEntry(
        index=index,
        line=line,
        data=data,
        dialect=dialect,
        dataset_id=dataset_id,
        task_id=task_id,
        token=token,
        lines={dotted(path): position[0] for path, position in item.positions.items() if path},
        ambiguous_fields=frozenset(dotted(path) for path in item.ambiguous),
    )
    return entry, checker.diagnostics


class _EntryChecker:
    def __init__(self, where: Locator) -> None:
        self.where = where
        self.diagnostics: list[Diagnostic] = []

    def report(self, code: str, path: Path, *, fix: Fix | None = None, **params: object) -> None:
        self.diagnostics.append(self.where.diagnostic(code, path, fix=fix, **params))

    # --- typed field readers ---------------------------------------------------------------

    def mapping(
        self, data: dict[str, Any], path: Path, keys: frozenset[str] | None
    ) -> dict[str, Any] | None:
        key = str(path[-1])
        value = data.get(key)
        if value is None and key not in data:
            return None
        if not isinstance(value, dict):
            self.type_error(path, value, "a mapping", "indent its fields under it")
            return None
        if keys is not None:
            self.unknown_keys(value, path, keys)
        return value

    def string(
        self, data: dict[str, Any], path: Path, *, required: bool = False, hint: str = ""
    ) -> str | None:
        key = path[-1]
        if key not in data:
            if required:
                self.report("ENTRY-FIELD-MISSING", path, hint=hint or f"add `{dotted(path)}`")
            return None
        value = data[key]
        if not isinstance(value, str):
            self.type_error(path, value, "a string", _quote_hint(value))
            return None
        return value

    def type_error(self, path: Path, value: Any, expected: str, hint: str) -> None:
        self.report(
            "ENTRY-FIELD-TYPE", path, expected=expected, kind=diagnostics.kind_of(value), hint=hint
        )

    def unknown_keys(self, mapping: dict[str, Any], path: Path, known: frozenset[str]) -> None:
        for key in mapping:
            if key not in known:
                self.report(
                    "ENTRY-FIELD-UNKNOWN",
                    (*path, key),
                    suggestion=suggestion_suffix(key, known),
                    fix=_key_fix(mapping, path, key, known),
                )

    def revision(self, data: dict[str, Any], path: Path) -> None:
        value = self.string(data, path)
        if value is not None and not is_sha40(value):
            self.report("ENTRY-REVISION", path, value=diagnostics.shown(value))

    def url(self, data: dict[str, Any], path: Path) -> None:
        value = self.string(data, path)
        if value is not None and not is_http_url(value):
            self.report("ENTRY-URL", path, value=diagnostics.shown(value))

    def integer(self, data: dict[str, Any], path: Path, *, minimum: int) -> None:
        if path[-1] not in data:
            return
        value = data[path[-1]]
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            expected = "a non-negative integer" if minimum == 0 else "a positive integer"
            self.type_error(path, value, expected, "write a whole number, unquoted")

    # --- the entry -------------------------------------------------------------------------

    def check(self, data: dict[str, Any]) -> Dialect:
        self.unknown_keys(data, (), ENTRY_KEYS)
        self.dataset(data)
        dialect = self.scores(data)
        self.framework(data)
        self.revision(data, ("model_revision",))
        self.tokens(data)
        date = self.string(data, ("date",))
        if date is not None and not is_iso8601(date):
            self.report("ENTRY-DATE", ("date",), value=diagnostics.shown(date))
        self.source(data)
        self.string(data, ("notes",))
        self.string(data, ("evaluation_framework",))
        engine = self.mapping(data, ("inference_engine",), INFERENCE_ENGINE_KEYS)
        if engine is not None:
            self.string(engine, ("inference_engine", "name"))
            self.string(engine, ("inference_engine", "version"))
        generation = self.mapping(data, ("generation_config",), GENERATION_CONFIG_KEYS)
        if generation is not None:
            self.mapping(generation, ("generation_config", "generation_args"), None)
            self.mapping(generation, ("generation_config", "additional_details"), None)
        self.run(data)
        self.mapping(data, ("runtime_context",), None)
        if "artifacts" in data and not isinstance(data["artifacts"], list | dict):
            self.type_error(
                ("artifacts",), data["artifacts"], "a list or a mapping", "list URLs and hashes"
            )
        return dialect

    def dataset(self, data: dict[str, Any]) -> None:
        if "dataset" not in data:
            self.report(
                "ENTRY-FIELD-MISSING",
                ("dataset",),
                hint="add `dataset:` with `id:` (the benchmark) and `task_id:`",
            )
            return
        dataset = self.mapping(data, ("dataset",), DATASET_KEYS)
        if dataset is None:
            return
        dataset_id = self.string(
            dataset,
            ("dataset", "id"),
            required=True,
            hint="add `id:` under `dataset:`, the benchmark's Hub id, e.g. `Idavidrein/gpqa`",
        )
        if dataset_id is not None and not is_repo_id(dataset_id):
            self.report("ENTRY-DATASET-ID", ("dataset", "id"), value=diagnostics.shown(dataset_id))
        self.string(
            dataset,
            ("dataset", "task_id"),
            required=True,
            hint="add `task_id:` under `dataset:`, one of the tasks in the benchmark's eval.yaml",
        )
        self.revision(dataset, ("dataset", "revision"))
        self.string(dataset, ("dataset", "config"))
        self.string(dataset, ("dataset", "split"))

    def scores(self, data: dict[str, Any]) -> Dialect:
        has_value = "value" in data
        has_metrics = "metrics" in data
        if has_value and has_metrics:
            self.report("ENTRY-DIALECT-MIXED", ("metrics",))
            return Dialect.TARGET
        if has_value:
            self.score(data["value"], ("value",))
            return Dialect.LIVE
        if not has_metrics:
            self.report("ENTRY-VALUE-MISSING", ())
            return Dialect.LIVE
        metrics = data["metrics"]
        if not isinstance(metrics, list):
            self.type_error(
                ("metrics",), metrics, "a list", "write `- metric_id: ...` items under `metrics:`"
            )
            return Dialect.TARGET
        if not metrics:
            self.report("ENTRY-METRICS-EMPTY", ("metrics",))
        seen: set[tuple[str, Any]] = set()
        for position, item in enumerate(metrics):
            path: Path = ("metrics", position)
            if not isinstance(item, dict):
                self.type_error(
                    path, item, "a mapping", "write `- metric_id: ...` and `value: ...`"
                )
                continue
            self.unknown_keys(item, path, METRIC_KEYS)
            metric_id = self.string(
                item,
                (*path, "metric_id"),
                required=True,
                hint="add `metric_id:`, one of the metrics in the benchmark's eval.yaml",
            )
            if "value" not in item:
                self.report("ENTRY-FIELD-MISSING", (*path, "value"), hint="add `value: <score>`")
            elif self.score(item["value"], (*path, "value")):
                self.value_type(item, path)
            self.string(item, (*path, "slice"))
            self.string(item, (*path, "unit"))
            if metric_id is not None:
                key = (metric_id, item.get("slice"))
                if key in seen:
                    self.report("ENTRY-METRIC-DUPLICATE", (*path, "metric_id"), metric_id=metric_id)
                seen.add(key)
        return Dialect.TARGET

    def score(self, value: Any, path: Path) -> bool:
        """A score is a finite int or float; True when it is one."""
        if not is_number(value):
            hint = "write the score as a plain number, e.g. `78.8`"
            fix: Fix | None = None
            if isinstance(value, str):
                try:
                    parsed = resolve_plain(value.strip())
                except ValueError:
                    parsed = value
                if is_number(parsed):
                    hint = "remove the quotes: the score must be a number, not a string"
                    if is_finite_number(parsed) and _DECIMAL.match(value.strip()):
                        fix = Fix("replace", parsed, path, text=value.strip())
            self.report(
                "ENTRY-VALUE-NOT-NUMBER", path, kind=diagnostics.kind_of(value), hint=hint, fix=fix
            )
            return False
        if not is_finite_number(value):
            self.report("ENTRY-VALUE-NOT-FINITE", path, value=diagnostics.shown(value))
            return False
        return True

    def value_type(self, item: dict[str, Any], path: Path) -> None:
        """`value_type` (target-spec extension): int is integral, rank a positive integer."""
        if "value_type" not in item:
            return
        value_type = self.string(item, (*path, "value_type"))
        if value_type is None:
            return
        value = item["value"]
        if value_type not in VALUE_TYPES:
            self.report(
                "ENTRY-VALUE-TYPE-UNKNOWN",
                (*path, "value_type"),
                value=diagnostics.shown(value_type),
                suggestion=suggestion_suffix(value_type, VALUE_TYPES),
            )
            return
        integral = float(value).is_integer()
        problem: tuple[str, str] | None = None
        if value_type == "int" and not integral:
            problem = ("an integer", "write a whole number, or use `value_type: float`")
        elif value_type == "rank" and not (integral and value >= 1):
            problem = ("a positive integer", "ranks start at 1")
        elif value_type == "percentage" and not 0 <= value <= 100:
            problem = ("a percentage between 0 and 100", "write the percentage, e.g. 41.2")
        if problem is not None:
            self.report(
                "ENTRY-VALUE-TYPE",
                (*path, "value"),
                value=diagnostics.shown(value),
                expected=problem[0],
                value_type=value_type,
                hint=problem[1],
            )

    def framework(self, data: dict[str, Any]) -> None:
        framework = self.mapping(data, ("framework",), FRAMEWORK_KEYS)
        if framework is None:
            return
        self.string(
            framework,
            ("framework", "name"),
            required=True,
            hint="add `name:` under `framework:`, e.g. `inspect-ai`",
        )
        self.string(framework, ("framework", "version"))
        self.string(framework, ("framework", "command"))

    def tokens(self, data: dict[str, Any]) -> None:
        present = [key for key in TOKEN_KEYS if key in data]
        if len(present) == 2:
            self.report("ENTRY-TOKEN-BOTH", ("verify_token",))
        for key in present:
            self.string(data, (key,))
        shapes = [shape for shape in ("value", "metrics") if shape in data]
        if len(present) == 1 and len(shapes) == 1:
            key, shape = present[0], shapes[0]
            dialect = Dialect.TARGET if shape == "metrics" else Dialect.LIVE
            expected = _TOKEN_KEY_OF[dialect]
            if key != expected:
                # huggingface_hub's `parse_eval_result_entries` reads only `verifyToken` beside
                # `value`; the target spec names it `verify_token` beside `metrics[]`.
                reader = "the Hub's client" if dialect is Dialect.LIVE else "the target spec"
                self.report(
                    "ENTRY-TOKEN-KEY",
                    (key,),
                    key=key,
                    shape=shape,
                    reader=reader,
                    expected=expected,
                    fix=Fix("rename-key", expected, (key,)),
                )

    def source(self, data: dict[str, Any]) -> None:
        source = self.mapping(data, ("source",), SOURCE_KEYS)
        if source is None:
            return
        if "url" not in source:
            self.report("ENTRY-SOURCE-URL-MISSING", ("source",))
        else:
            self.url(source, ("source", "url"))
        for key in ("name", "user", "org", "type", "organization_name", "evaluator_relationship"):
            self.string(source, ("source", key))
        self.url(source, ("source", "organization_url"))

    def run(self, data: dict[str, Any]) -> None:
        run = self.mapping(data, ("run",), RUN_KEYS)
        if run is None:
            return
        for key in ("framework_version", "adapter_version"):
            self.string(run, ("run", key))
        for key in ("dataset_revision", "code_revision"):
            self.revision(run, ("run", key))
        self.integer(run, ("run", "seed"), minimum=0)
        self.integer(run, ("run", "num_samples"), minimum=0)
        self.integer(run, ("run", "batch_size"), minimum=1)

    def ambiguity(self, path: Path, text: str, value: Any) -> None:
        """Warn about a plain scalar that YAML 1.1 readers take for another value. `value` is
        what the entry holds at `path` (the scalar, unless the ambiguous text is its key)."""
        try:
            ours = resolve_plain(text)  # keys are strings, and resolve so too (else: error)
        except ValueError:
            ours = text
        self.report(
            "ENTRY-YAML11-AMBIGUOUS",
            path,
            text=text,
            ours=describe(ours),
            theirs=describe(yaml11_reading(text)),
            quoted=f'"{text}"',
            fix=_unambiguous(ours, value, path),
        )


#: a number as people write a score, which every YAML reader reads as that number
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")


def _value_at(data: Any, path: Path) -> Any:
    """The value at `path` inside `data`, None when there is none."""
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _unambiguous(ours: Any, value: Any, path: Path) -> Fix | None:
    """The same value written so YAML 1.1 reads it too: a string quoted, a number in its plain
    decimal form (`012` as `12`); None when the ambiguous text is a key, or no such form is
    sure (a float whose shortest text YAML 1.1 reads otherwise)."""
    if not same_value(ours, value):
        return None  # the ambiguous scalar is the key, not the value at `path`
    if isinstance(ours, str):
        return Fix("rewrite", ours, path, text=json.dumps(ours, ensure_ascii=False))
    if isinstance(ours, bool) or not isinstance(ours, int | float):
        return None
    text = str(ours) if isinstance(ours, int) else repr(ours)
    try:
        if not same_value(resolve_plain(text), ours) or is_ambiguous(text, ours):
            return None
    except (ValueError, NumberTooLong):
        return None
    return Fix("rewrite", ours, path, text=text)


#: the spellings of the token key, by the dialect whose spelling each is
_TOKEN_KEY_OF = {Dialect.LIVE: "verifyToken", Dialect.TARGET: "verify_token"}


def _key_fix(mapping: dict[str, Any], path: Path, key: str, known: frozenset[str]) -> Fix | None:
    """The rename of an unknown key to the one known key it stands for: none when it could be
    several, when that key is there already, or when it would give an entry both `value` and
    `metrics`. A misspelt token key takes the spelling of the entry's dialect."""
    match = unique_match(key, sorted(known))
    if match is None and not path:
        close = set(diagnostics.close_matches(key, known))
        if close and close <= set(TOKEN_KEYS):
            dialect = Dialect.TARGET if "metrics" in mapping else Dialect.LIVE
            match = _TOKEN_KEY_OF[dialect]
    if match is None or match in mapping:
        return None
    if not path and {match, *mapping} >= {"value", "metrics"}:
        return None
    if not path and match in TOKEN_KEYS and any(token in mapping for token in TOKEN_KEYS):
        return None
    return Fix("rename-key", match, (*path, key))


def _quote_hint(value: Any) -> str:
    if isinstance(value, bool | int | float) or value is None:
        return "quote the value so it stays text"
    return "write a single text value"


# --- an entry against its benchmark, and across the entries and files of a repo ---------------


def check_against_benchmark(
    entry: ResultEntry, lookup: BenchmarkLookup, where: Locator
) -> tuple[Benchmark | None, list[Diagnostic]]:
    """Cross-check one entry; returns the benchmark it links to (None when unknown)."""
    diagnostics: list[Diagnostic] = []
    dataset_id = entry.dataset_id or ""
    if not isinstance(lookup, Benchmark):
        if lookup.diagnostics:
            errors = sum(1 for diagnostic in lookup.diagnostics if diagnostic.is_error)
            diagnostics.append(
                where.diagnostic(
                    "ENTRY-BENCHMARK-INVALID",
                    ("dataset", "id"),
                    dataset_id=dataset_id,
                    count=errors,
                )
            )
        else:
            diagnostics.append(
                where.diagnostic(
                    "ENTRY-BENCHMARK-UNKNOWN",
                    ("dataset", "id"),
                    dataset_id=dataset_id,
                    reason=lookup.reason,
                    hint="use the Hub id of a benchmark dataset (one with an eval.yaml)",
                )
            )
        return None, diagnostics
    benchmark = lookup
    if benchmark.repo_id != dataset_id:
        diagnostics.append(
            where.diagnostic(
                "ENTRY-BENCHMARK-CASE",
                ("dataset", "id"),
                dataset_id=dataset_id,
                canonical=benchmark.repo_id,
                fix=Fix("replace", benchmark.repo_id, ("dataset", "id")),
            )
        )
    task_ids = [task.id for task in benchmark.tasks]
    if entry.task_id is not None and benchmark.task(entry.task_id) is None:
        diagnostics.append(
            where.diagnostic(
                "ENTRY-TASK-UNKNOWN",
                ("dataset", "task_id"),
                task_id=entry.task_id,
                dataset_id=benchmark.repo_id,
                known=_listing(task_ids),
                hint=_did_you_mean_hint(entry.task_id, task_ids, "task_id"),
                fix=_replacement(entry.task_id, task_ids, ("dataset", "task_id")),
            )
        )
    framework = entry.data.get("framework")
    if (
        benchmark.evaluation_framework is not None
        and isinstance(framework, dict)
        and isinstance(framework.get("name"), str)
        and framework["name"] != benchmark.evaluation_framework
    ):
        diagnostics.append(
            where.diagnostic(
                "ENTRY-FRAMEWORK-MISMATCH",
                ("framework", "name"),
                value=shown(framework["name"]),
                expected=benchmark.evaluation_framework,
            )
        )
    if entry.dialect is Dialect.TARGET:
        diagnostics.extend(_check_metrics(entry, benchmark, where))
    else:
        primary = benchmark.primary_metric
        value = entry.data.get("value")
        if is_finite_number(value):
            diagnostics.extend(_check_score(value, ("value",), primary, None, where))
    return benchmark, diagnostics


def _check_metrics(entry: ResultEntry, benchmark: Benchmark, where: Locator) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    metrics = entry.data.get("metrics")
    if not isinstance(metrics, list):
        return diagnostics
    if not benchmark.metrics:
        diagnostics.append(
            where.diagnostic("ENTRY-METRICS-UNDECLARED", ("metrics",), dataset_id=benchmark.repo_id)
        )
        return diagnostics
    metric_ids = [metric.id for metric in benchmark.metrics]
    reported: set[str] = set()
    for position, item in enumerate(metrics):
        if not isinstance(item, dict) or not isinstance(item.get("metric_id"), str):
            continue
        metric_id = item["metric_id"]
        path: Path = ("metrics", position)
        metric = benchmark.metric(metric_id)
        if metric is None:
            diagnostics.append(
                where.diagnostic(
                    "ENTRY-METRIC-UNKNOWN",
                    (*path, "metric_id"),
                    metric_id=metric_id,
                    dataset_id=benchmark.repo_id,
                    known=_listing(metric_ids),
                    hint=_did_you_mean_hint(metric_id, metric_ids, "metric_id"),
                    fix=_replacement(metric_id, metric_ids, (*path, "metric_id")),
                )
            )
            continue
        reported.add(metric_id)
        value = item.get("value")
        if is_finite_number(value):
            diagnostics.extend(
                _check_score(value, (*path, "value"), metric, item.get("value_type"), where)
            )
    primary = benchmark.primary_metric
    if primary is not None and primary.id not in reported:
        diagnostics.append(
            where.diagnostic(
                "ENTRY-PRIMARY-MISSING",
                ("metrics",),
                metric_id=primary.id,
                dataset_id=benchmark.repo_id,
            )
        )
    return diagnostics


def _check_score(
    value: float, path: Path, metric: MetricDef | None, value_type: Any, where: Locator
) -> list[Diagnostic]:
    """Declared bounds (an error when broken) and the 0-1 vs 0-100 heuristic (a warning)."""
    low = metric.min_score if metric is not None else None
    high = metric.max_score if metric is not None else None
    if (low is not None and value < low) or (high is not None and value > high):
        return [
            where.diagnostic(
                "ENTRY-VALUE-RANGE",
                path,
                value=diagnostics.shown(value),
                low="-inf" if low is None else f"{low:g}",
                high="inf" if high is None else f"{high:g}",
            )
        ]
    if not 0 < abs(value) < 1:
        return []
    if high is not None and high > 1:
        why = f"the metric's max_score is {high:g}"
    elif value_type == "percentage":
        why = "its value_type is percentage"
    elif metric is None and high is None:
        why = "results on the Hub are reported on a 0-100 scale"
    else:
        return []
    return [
        where.diagnostic(
            "ENTRY-VALUE-SCALE",
            path,
            value=diagnostics.shown(value),
            looks="0-1",
            why=why,
            hint=f"if this is a fraction, report it as a percentage ({value * 100:g})",
        )
    ]


def _listing(ids: list[str], limit: int = 8) -> str:
    shown = ", ".join(f"`{item}`" for item in ids[:limit])
    return shown + (f", … ({len(ids)} in all)" if len(ids) > limit else "")


def _replacement(value: str, candidates: list[str], path: Path) -> Fix | None:
    """The fix for an id that is not declared: the one declared id it stands for, if any."""
    match = unique_match(value, candidates)
    return Fix("replace", match, path) if match is not None else None


def _did_you_mean_hint(value: str, candidates: list[str], key: str) -> str:
    match = did_you_mean(value, candidates)
    if match is not None:
        return f"did you mean `{match}`? Write `{key}: {match}`"
    return f"use one of the ids the benchmark's eval.yaml declares for `{key}`"


@dataclass
class RepoChecks:
    """State kept across the files of one repo: duplicate keys and file-name warnings."""

    seen: dict[tuple[str, str, str | None], tuple[str, int]] = field(default_factory=dict)

    def duplicate(
        self, path: str, entry: ResultEntry, benchmark: Benchmark | None, where: Locator
    ) -> Diagnostic | None:
        """The later of two entries with the same (benchmark, task, notes) carries the error."""
        if entry.dataset_id is None or entry.task_id is None:
            return None
        benchmark_id = (benchmark.repo_id if benchmark else entry.dataset_id).lower()
        notes = entry.data.get("notes")
        key = (benchmark_id, entry.task_id, notes if isinstance(notes, str) else None)
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = (path, entry.index)
            return None
        return where.diagnostic(
            "ENTRY-DUPLICATE",
            ("dataset",),
            other_number=first[1] + 1,  # counted from 1 like every entry shown to a person
            other_index=first[1],
            other_path=first[0],
        )


def file_name_diagnostic(
    path: str, entry: ResultEntry, benchmark: Benchmark | None, where: Locator
) -> Diagnostic | None:
    """The draft naming rule (F2), a warning: `.eval_results/<benchmark repo name>.yaml`.

    A suffix after `_` is accepted for variants (`hle_with_tools.yaml`), as HF's own
    community-evals guidance asks for separate files per variant (docs/specs.md#validation-rules,
    F2).
    """
    if entry.dataset_id is None:
        return None
    dataset_id = benchmark.repo_id if benchmark else entry.dataset_id
    expected = benchmark_file_stem(dataset_id)
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if stem == expected or stem.startswith(expected + "_"):
        return None
    # a name that follows the rule once lower-cased with `-` as `_` keeps its variant suffix
    normalised = benchmark_file_stem(stem)
    if normalised == expected or normalised.startswith(expected + "_"):
        expected = normalised
    parts = path.split("/")
    in_folder = len(parts) == 2 and parts[0] == ".eval_results"
    return where.diagnostic(
        "FILE-NAME",
        ("dataset", "id"),
        name=name,
        dataset_id=dataset_id,
        expected=f"{expected}.yaml",
        fix=Fix("rename-file", f".eval_results/{expected}.yaml") if in_folder else None,
    )


def file_path_diagnostic(path: str) -> Diagnostic | None:
    """Results files sit directly in `.eval_results/` and end in `.yaml` (F1); the message
    says which of the two is wrong, and the hint whether to move or to rename."""
    parts = path.split("/")
    name = parts[-1]
    in_folder = len(parts) == 2 and parts[0] == ".eval_results"
    if in_folder and name.endswith(".yaml"):
        return None
    stem = name.rsplit(".", 1)[0] if "." in name else name
    problems = []
    if not in_folder:
        problems.append(
            "live directly in `.eval_results/`, not in a sub-folder"
            if ".eval_results" in parts[:-1]
            else "live in the repo's `.eval_results/` folder"
        )
    if not name.endswith(".yaml"):
        problems.append(f"end in `.yaml`, not `{name[len(stem) :] or 'nothing'}`")
    # moved within the repo's `.eval_results/` only: a file outside it may be anywhere
    inside = parts[0] == ".eval_results"
    return diagnostics.make(
        "FILE-PATH",
        path=path,
        problem="results files " + " and ".join(problems),
        verb="move the file to" if not in_folder else "rename the file to",
        suggestion=f"{stem}.yaml",
        fix=Fix("rename-file", f".eval_results/{stem}.yaml") if inside else None,
    )


def looks_like_benchmark(data: object) -> bool:
    """A mapping with `tasks`: an eval.yaml under another name (a results file is a list)."""
    return isinstance(data, dict) and "tasks" in data
