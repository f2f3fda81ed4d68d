"""`evalbot convert --to eee`: Every Eval Ever records and their samples, printed or laid out in a
datastore folder and checked by its rules before anything is written
(docs/convert.md, "Every Eval Ever")."""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli.sources import UsageError

if TYPE_CHECKING:
    from bot.convert.api import Conversion
    from bot.convert.eee import MetricLookup, RecordKey
    from bot.eee.publish import Laid
    from bot.validation.model import BenchmarkSource, MetricDef

Rows = list[dict[str, Any]]
RESULTS_SUFFIXES = (".yaml", ".yml")
#: A samples file is read whole to be converted: bounded, with the cap in the error.
MAX_SAMPLES_BYTES = 256 * 1024 * 1024


class Refused(Exception):
    """Nothing is written: the findings were printed; exit status 1."""


@dataclass
class Gathered:
    entries: list[dict[str, Any]] = field(default_factory=list)
    #: instance rows by the record they belong to
    rows: dict[RecordKey, Rows] = field(default_factory=dict)


def run(args: argparse.Namespace) -> int:
    """`--to eee`; a `UsageError` or `ConvertError` is the caller's to print (exit 2)."""
    from bot.convert.eee import EeeWriteError, keyed_records
    from bot.validation.model import is_repo_id

    if not args.model_repo or not is_repo_id(args.model_repo):
        raise UsageError("evalbot convert --to eee: --model-repo ID (owner/name) is required")
    if not args.inputs:
        raise UsageError(
            "evalbot convert --to eee: give .eval_results files, a model repo folder or"
            " framework outputs"
        )
    if args.collection is not None and args.out is None:
        raise UsageError("evalbot convert --to eee: --collection names a folder of --out DIR")
    from bot.cli.convert import _benchmarks

    source = _benchmarks(args.benchmarks, offline=args.offline)
    try:
        gathered = _gather(args, source)
        records = keyed_records(
            gathered.entries,
            model_id=args.model_repo,
            retrieved_timestamp=f"{time.time():.6f}",
            version=args.eee_version,
            metric_of=_metric_lookup(source),
        )
    except Refused:
        return 1
    except EeeWriteError as error:
        print(f"evalbot convert: {error}", file=sys.stderr)
        return 1
    if not records:
        print("evalbot convert: no entry to write as an EEE record", file=sys.stderr)
        return 1
    if args.out is None:
        return _print(records)
    return _publish(Path(args.out), records, gathered.rows, args.collection)


def _gather(args: argparse.Namespace, source: BenchmarkSource) -> Gathered:
    """The entries of every INPUT, and the samples rows of framework outputs."""
    from bot.cli.sources import collect

    gathered = Gathered()
    results = [p for p in args.inputs if Path(p).is_dir() or p.lower().endswith(RESULTS_SUFFIXES)]
    outputs = [p for p in args.inputs if p not in results]
    if results:
        inputs = collect(results)
        for group in inputs.results.values():
            for shown, content in group.files.values():
                gathered.entries.extend(_entries_of(shown, content))
    if outputs:
        _gather_outputs(args, outputs, gathered, source)
    return gathered


def _entries_of(shown: str, content: bytes) -> list[dict[str, Any]]:
    from bot.validation.yamlload import load_yaml

    loaded = load_yaml(content)
    if not loaded.ok or not isinstance(loaded.data, list):
        print(f"evalbot convert: {shown}: not a valid results file", file=sys.stderr)
        raise Refused
    return [item for item in loaded.data if isinstance(item, dict)]


def _gather_outputs(
    args: argparse.Namespace, outputs: list[str], gathered: Gathered, source: BenchmarkSource
) -> None:
    """Framework outputs, converted as `evalbot convert` does (nothing goes on when one is
    refused), with the rows of their per-sample logs."""
    from bot.cli.convert import _convert, _mappings
    from bot.cli.sources import bot_config
    from bot.convert.findings import findings

    table = _mappings(args.mappings)
    policy = bot_config().policy
    conversions = [(path, _convert(path, args, table, source, policy)) for path in outputs]
    refused = []
    for _path, conversion in conversions:
        for line in findings(
            conversion, allow_partial=args.allow_partial, all_suggestions=args.all_suggestions
        ):
            print(line, file=sys.stderr)
        if not conversion.ok(allow_partial=args.allow_partial):
            refused.append(conversion.source)
    if refused:
        print(
            f"evalbot convert: nothing written: {len(refused)} of {len(conversions)} input(s)"
            f" refused ({', '.join(refused)}); see the errors above",
            file=sys.stderr,
        )
        raise Refused
    for path, conversion in conversions:
        gathered.entries.extend(conversion.entries)
        for key, rows in _samples(Path(path), conversion).items():
            gathered.rows.setdefault(key, []).extend(rows)


def _samples(path: Path, conversion: Conversion) -> dict[RecordKey, Rows]:
    """The rows of the output's per-sample logs, by the record their task's entry goes to."""
    from bot.convert.eee import record_key
    from bot.convert.samples import SamplesError, inspect_rows, lm_eval_rows, lm_eval_task

    by_task: dict[str, Rows] = {}
    try:
        if conversion.adapter == "lm-eval":
            for sibling in sorted(path.parent.iterdir()):
                task = lm_eval_task(path.name, sibling.name)
                if task is not None and sibling.is_file():
                    by_task[task] = lm_eval_rows(_read(sibling), str(sibling))
        elif conversion.adapter == "inspect-ai":
            rows = inspect_rows(_read(path), str(path))
            tasks = {score.task for run in conversion.runs for score in run.scores}
            for task in tasks:
                by_task[task] = rows
    except SamplesError as error:
        raise UsageError(f"evalbot convert: {error}") from error
    found: dict[RecordKey, Rows] = {}
    for task, rows in by_task.items():
        origin = conversion.origins.get(task)
        run = next((r for r in conversion.runs if any(s.task == task for s in r.scores)), None)
        if origin is None or run is None:
            print(
                f"evalbot convert: {path}: the samples of task `{task}` are not written: no"
                " entry was converted from its scores, so no record holds them",
                file=sys.stderr,
            )
            continue
        key = record_key(run.framework, run.framework_version, origin[0])
        for row in rows:
            metadata = dict(row.get("metadata") or {}, framework_task=task)
            found.setdefault(key, []).append(
                {"evaluation_name": origin[1], **row, "metadata": metadata}
            )
    return found


def _read(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_SAMPLES_BYTES:
            raise UsageError(
                f"evalbot convert: {path}: {size} bytes, over the {MAX_SAMPLES_BYTES}-byte cap"
                " of a per-sample log; convert without it (move it aside) or split the run"
            )
        return path.read_bytes()
    except OSError as error:
        raise UsageError(f"evalbot convert: {path}: {error.strerror}") from error


def _metric_lookup(source: BenchmarkSource) -> MetricLookup:
    """Each result's metric as its benchmark declares it, read from the source every command
    reads benchmarks from (`--benchmarks DIR`, else the Hub through its cache). Never guessed:
    a benchmark that cannot be read stops the run (a `HubError`, exit 2), one that is not there
    or lacks the metric refuses it (exit 1); only a benchmark that declares no metrics leaves
    the draft spec's default, higher is better."""
    from bot.validation.model import Benchmark

    def metric_of(benchmark: str, revision: str | None, metric_id: str | None) -> MetricDef | None:
        found = source.lookup(benchmark, revision)
        at = f" at revision {revision}" if revision else ""
        if not isinstance(found, Benchmark):
            print(
                f"evalbot convert: {benchmark}{at}: {found.reason}; nothing written (the"
                " record's metric direction and bounds come from its eval.yaml; `evalbot"
                " validate` on the results shows the entry's problem)",
                file=sys.stderr,
            )
            raise Refused
        if metric_id is None:
            return found.primary_metric
        metric = found.metric(metric_id)
        if metric is None:
            declared = ", ".join(f"`{m.id}`" for m in found.metrics) or "none"
            print(
                f"evalbot convert: {benchmark}{at} declares no metric `{metric_id}` (its"
                f" metrics: {declared}); nothing written (`evalbot validate` on the results"
                " shows the fix)",
                file=sys.stderr,
            )
            raise Refused
        return metric

    return metric_of


def _print(records: list[tuple[RecordKey, dict[str, Any]]]) -> int:
    for _key, record in records:
        if not _schema_ok("record.json", _dumped(record)):
            return 1
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


def _schema_ok(name: str, content: bytes) -> bool:
    from bot.validation.eee import validate_eee_file

    report = validate_eee_file(name, content)
    for diagnostic in report.diagnostics:
        print(f"{name}:{diagnostic.line}: {diagnostic.message}", file=sys.stderr)
    return report.ok


def _dumped(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _publish(
    out: Path,
    records: list[tuple[RecordKey, dict[str, Any]]],
    rows: dict[RecordKey, Rows],
    collection: str | None,
) -> int:
    """Lay every record out under `out`, check the whole as the datastore would, then write."""
    from bot.eee.publish import LayoutError, lay_out

    planned: list[tuple[Laid, bool]] = []  # (the files, whether they replace a record)
    for key, record in records:
        try:
            fresh = lay_out(record, rows.get(key), uuid=str(uuid.uuid4()), collection=collection)
            earlier = _earlier(out, fresh.folder, record)
            if earlier is not None:
                name, evaluation_id, retrieved = earlier
                again = dict(record, evaluation_id=evaluation_id, retrieved_timestamp=retrieved)
                fresh = lay_out(again, rows.get(key), uuid=name, collection=collection)
        except LayoutError as error:
            print(f"evalbot convert: {record['evaluation_id']}: {error}", file=sys.stderr)
            return 1
        planned.append((fresh, earlier is not None))
    if not _checked(out, [laid for laid, _ in planned]):
        print("evalbot convert: nothing written", file=sys.stderr)
        return 1
    counts = {"wrote": 0, "replaced": 0, "unchanged": 0}
    for laid, replaces in planned:
        try:
            said = _write(out, laid, replaces)
        except OSError as error:
            print(f"evalbot convert: {error.filename}: {error.strerror}", file=sys.stderr)
            return 2
        counts[said] += 1
    print(
        f"evalbot convert: {len(planned)} EEE record(s) in {out}: {counts['wrote']} new,"
        f" {counts['replaced']} replaced, {counts['unchanged']} unchanged",
        file=sys.stderr,
    )
    return 0


def _earlier(out: Path, folder: str, record: dict[str, Any]) -> tuple[str, str, str] | None:
    """(uuid, evaluation_id, retrieved_timestamp) of the record in `out/folder` that is the
    same evaluation as `record`, written by an earlier run; None when there is none."""
    from bot.eee.paths import path_problem
    from bot.eee.publish import same_evaluation

    where = out / folder
    if not where.is_dir():
        return None
    wanted = same_evaluation(record)
    for candidate in sorted(where.glob("*.json")):
        if path_problem(f"{folder}/{candidate.name}") is not None:
            continue
        try:
            existing = json.loads(candidate.read_bytes())
        except OSError as error:
            raise UsageError(f"evalbot convert: {candidate}: {error.strerror}") from error
        except (ValueError, RecursionError):
            continue  # not a record this command wrote; the check below judges it if needed
        if isinstance(existing, dict) and same_evaluation(existing) == wanted:
            evaluation_id = existing.get("evaluation_id")
            retrieved = existing.get("retrieved_timestamp")
            if isinstance(evaluation_id, str) and isinstance(retrieved, str):
                return candidate.stem, evaluation_id, retrieved
    return None


def _checked(out: Path, planned: list[Laid]) -> bool:
    """The planned files checked as a PR adding them to the datastore at `out` would be."""
    from bot.adapters.datastore_dir import PlannedFiles, index_of
    from bot.eee.dedupe import HashIndex
    from bot.eee.submission import Change, DatastorePolicy, check_submission
    from bot.report.validation_formats import counts, render_text

    files: dict[str, bytes] = {}
    for laid in planned:
        files[laid.path] = laid.record
        if laid.samples is not None:
            files[laid.samples_path] = laid.samples
    changes = [
        Change(path, "modified" if (out / path).is_file() else "added") for path in sorted(files)
    ]
    index = index_of(out, set(files)) if (out / "data").is_dir() else HashIndex()
    result = check_submission(
        changes,
        PlannedFiles(files, out),
        index,
        DatastorePolicy(schema_rows=None, max_files=None),
    )
    errors, _warnings = counts(result.files)
    if errors or result.blocking():
        for report in result.files:
            report.path = str(out / report.path)
        print(render_text(result.files, strict=False), file=sys.stderr)
        return False
    return True


def _write(out: Path, laid: Laid, replacing: bool) -> str:
    """Write one record and its samples file; what was done, for the summary."""
    record_file = out / laid.path
    samples_file = out / laid.samples_path
    same = (
        replacing
        and record_file.read_bytes() == laid.record
        and (
            samples_file.is_file() and samples_file.read_bytes() == laid.samples
            if laid.samples is not None
            else not samples_file.exists()
        )
    )
    if same:
        print(f"unchanged {record_file} (the same evaluation)", file=sys.stderr)
        return "unchanged"
    record_file.parent.mkdir(parents=True, exist_ok=True)
    if laid.samples is not None:
        samples_file.write_bytes(laid.samples)
    elif samples_file.exists():
        samples_file.unlink()
        print(f"removed {samples_file} (the record written again declares none)", file=sys.stderr)
    record_file.write_bytes(laid.record)
    if replacing:
        print(f"replaced {record_file} (the same evaluation, written again)", file=sys.stderr)
        return "replaced"
    print(f"wrote {record_file}", file=sys.stderr)
    if laid.samples is not None:
        print(f"wrote {samples_file}", file=sys.stderr)
    return "wrote"
