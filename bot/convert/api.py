"""`entries_from`: one framework output in, validated `.eval_results` entries out, as
`evalbot convert` and `evalbot submit` need them; nothing is written here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.convert import registry
from bot.convert.build import Unmapped, build_entries, group_by_file
from bot.convert.jsonread import looks_like_json, read_json
from bot.convert.mapping import MappingProblem, MappingTable, check_mappings
from bot.convert.model import LeftOut, Run
from bot.convert.yamlio import dump_entries
from bot.strictjson import TooDeep
from bot.validation.model import Benchmark, BenchmarkLookup, BenchmarkSource, FileReport
from bot.validation.policy import DEFAULT_POLICY, Policy
from bot.validation.validate import validate_results_files

#: Framework outputs are bounded like results files are, only larger (logs carry configs).
MAX_INPUT_BYTES = 64 * 1024 * 1024


@dataclass(slots=True)
class Conversion:
    """Everything one conversion found; `ok` means the entries may be written."""

    adapter: str
    runs: list[Run]
    entries: list[dict[str, Any]]
    files: dict[str, list[dict[str, Any]]]  # `.eval_results/<name>.yaml` -> its entries
    unmapped: list[Unmapped] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # block writing
    #: the input as the user named it: every finding printed names it
    source: str = "<bytes>"
    #: mapped scores whose value cannot be converted: block unless a partial result is allowed
    left_out: list[LeftOut] = field(default_factory=list)
    #: unmapped scores whose value is not a number: reported, not blocking
    ignored: list[LeftOut] = field(default_factory=list)
    #: unmapped scores of converted tasks (other metrics, subsets): not suggested by default
    not_needed: list[Unmapped] = field(default_factory=list)
    mapping_problems: list[MappingProblem] = field(default_factory=list)  # block writing
    reports: list[FileReport] = field(default_factory=list)
    #: each converted framework task's entry: (benchmark id, task id)
    origins: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: what the entries leave out and why (never blocking)
    notes: list[str] = field(default_factory=list)

    @property
    def run_problems(self) -> list[str]:
        """Findings about the runs themselves (failed, partial): block unless allowed."""
        return [problem for run in self.runs for problem in run.problems]

    def ok(self, *, allow_partial: bool = False) -> bool:
        return (
            not self.problems
            and not self.mapping_problems
            and (allow_partial or not (self.run_problems or self.left_out))
            and all(report.ok for report in self.reports)
        )


def parse_output(content: bytes, filename: str = "<bytes>") -> Any:
    """The output's JSON, or None when it is not JSON (an .eval zip archive, say); an output
    that starts as JSON but is truncated, malformed or holds a key twice is a ConvertError
    saying where (`bot.convert.jsonread`)."""
    if content[:4] == b"PK\x03\x04" or not looks_like_json(content):
        return None
    return read_json(content, filename)


def read_input(path: Path) -> bytes:
    """A framework output's bytes, its size checked before it is read (a stray 10 GB file
    is refused, not loaded); OSError when it cannot be read."""
    size = path.stat().st_size
    if size > MAX_INPUT_BYTES:
        raise registry.ConvertError(f"{path}: {size} bytes, over the {MAX_INPUT_BYTES}-byte cap")
    return path.read_bytes()


def read_runs(
    content: bytes, filename: str, framework: str | None = None
) -> tuple[registry.Adapter, list[Run]]:
    """The adapter for the output and the runs it reads; ConvertError when it cannot."""
    if len(content) > MAX_INPUT_BYTES:
        raise registry.ConvertError(
            f"{filename}: {len(content)} bytes, over the {MAX_INPUT_BYTES}-byte cap"
        )
    try:
        data = parse_output(content, filename)
    except TooDeep as error:
        raise registry.ConvertError(
            f"{filename}: JSON nested too deeply to read; is it a framework's output?"
        ) from error
    chosen = (
        registry.get(framework)
        if framework is not None
        else registry.detect(filename, content, data)
    )
    return chosen, chosen.read(filename, content, data)


#: datasets no row names that one conversion looks up to complete its suggestions (each may
#: be a Hub request); beyond them, suggestions name the framework side only
MAX_SUGGESTION_LOOKUPS = 32


class _Remembered:
    """The benchmark source, each benchmark read once per conversion: the mapping check, the
    evidence check and the validation of the entries all ask for the same ones."""

    def __init__(self, source: BenchmarkSource) -> None:
        self._source = source
        self._seen: dict[tuple[str, str | None], BenchmarkLookup] = {}
        self._suggested = 0

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        key = (dataset_id.lower(), revision)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = self._source.lookup(dataset_id, revision)
        return found

    def benchmark(self, dataset_id: str) -> Benchmark | None:
        """The benchmark a row names (always read: the row is checked against it)."""
        found = self.lookup(dataset_id, None)
        return found if isinstance(found, Benchmark) else None

    def look_up_suggestions(self, unmapped: list[Unmapped]) -> None:
        """Read the benchmarks the unmapped scores' recorded datasets may be, in the output's
        order and up to the cap, so that their suggested rows can name them."""
        for item in unmapped:
            dataset_id = item.score.dataset_id
            if dataset_id is None or (dataset_id.lower(), None) in self._seen:
                continue
            if self._suggested >= MAX_SUGGESTION_LOOKUPS:
                return
            self._suggested += 1
            self.lookup(dataset_id, None)

    def known(self, dataset_id: str) -> Benchmark | None:
        """The benchmark `dataset_id` is, if it was read already (no new lookup)."""
        found = self._seen.get((dataset_id.lower(), None))
        return found if isinstance(found, Benchmark) else None


def entries_from(
    source: str | Path | bytes,
    *,
    benchmarks: BenchmarkSource,
    mappings: MappingTable,
    filename: str | None = None,
    framework: str | None = None,
    source_info: dict[str, str] | None = None,
    policy: Policy = DEFAULT_POLICY,
) -> Conversion:
    """Convert one framework output (a path, or its bytes with `filename`).

    `framework` forces an adapter (`lm-eval`, `inspect-ai`, `lighteval`, `evalscope`, `eee`,
    or a third-party one); by default the output is recognised. `source_info` is the entries'
    `source` (`url`, optionally `name`, ...) when the caller knows where the output lives.
    Raises `registry.ConvertError` for an output that cannot be read at all.
    """
    if isinstance(source, bytes):
        content, shown = source, filename or "<bytes>"
    else:
        path = Path(source)
        content, shown = read_input(path), filename or str(source)
    adapter, runs = read_runs(content, shown, framework)
    remembered = _Remembered(benchmarks)
    built = build_entries(
        adapter.name,
        runs,
        mappings,
        source=source_info,
        benchmark_of=remembered.benchmark,
        suggestion_of=remembered.known,
    )
    remembered.look_up_suggestions(built.unmapped)
    # the rows this output's scores name (looked up per score: the table may hold thousands)
    named = {(adapter.name, score.task, score.metric) for run in runs for score in run.scores}
    used = MappingTable({key: mappings.rows[key] for key in named if key in mappings.rows})
    files = group_by_file(built.entries)
    conversion = Conversion(
        adapter=adapter.name,
        runs=runs,
        entries=built.entries,
        files=files,
        unmapped=built.unmapped,
        problems=built.problems,
        source=shown,
        left_out=built.left_out,
        ignored=built.ignored,
        not_needed=built.not_needed,
        mapping_problems=check_mappings(used, remembered),
        origins=built.origins,
        notes=built.notes,
    )
    if files:
        contents = {path: dump_entries(file_entries) for path, file_entries in files.items()}
        conversion.reports = validate_results_files(contents, remembered, policy=policy)
    return conversion
