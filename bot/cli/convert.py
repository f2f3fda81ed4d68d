"""`evalbot convert` (docs/convert.md): reads the files, hands bytes to `bot.convert`, and writes
only what validated, as YAML or (`--to eee`, `bot.cli.convert_eee`) Every Eval Ever records."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli.sources import UsageError, add_conversion_options, bot_config
from bot.cli.terminal import reading

if TYPE_CHECKING:
    from bot.convert.api import Conversion
    from bot.convert.mapping import MappingTable
    from bot.convert.yamlio import Merged
    from bot.validation.model import BenchmarkSource
    from bot.validation.policy import Policy


#: the EEE schema versions written; `bot.validation.eee.VERSIONS`, which `validate` and the reader
#: use, must hold the same (tests/unit/convert/test_eee_versions.py)
_EEE_VERSIONS = ("0.2.0", "0.2.2", "0.3.0")


class _Usage(Exception):
    """Exit status 2, message on stderr."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "convert",
        help="framework outputs to .eval_results entries, or entries to Every Eval Ever",
        description=(
            "Convert lm-eval, inspect-ai, lighteval, EvalScope or Every Eval Ever outputs into "
            ".eval_results entries, validated against their benchmarks before anything is "
            "written; or (--to eee) .eval_results files into Every Eval Ever records."
        ),
    )
    parser.add_argument("inputs", nargs="*", metavar="INPUT", help="framework output files")
    parser.add_argument("--from", dest="framework", metavar="NAME", help="force a converter")
    add_conversion_options(parser)
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="model repo folder to merge results into (with --to eee: a datastore folder)",
    )
    parser.add_argument("--to", choices=("results", "eee"), default="results")
    parser.add_argument("--model-repo", metavar="ID", help="the model (required with --to eee)")
    parser.add_argument("--eee-version", default="0.3.0", choices=_EEE_VERSIONS)
    parser.add_argument(
        "--collection",
        metavar="NAME",
        help="with --to eee --out: the datastore collection folder (default: the benchmark's,"
        " as EEE's publisher names it from source_data.dataset_name)",
    )
    parser.add_argument(
        "--allow-partial", action="store_true", help="write results of failed or partial runs"
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default: the entries as YAML on stdout, findings on stderr) or json: one "
        "object on stdout with each input's findings and the entries",
    )
    parser.add_argument("--check-mappings", action="store_true", help="check the table, exit")
    parser.add_argument(
        "--write-mappings",
        metavar="FILE",
        help="add the rows suggested for unmapped scores to FILE (created if absent), each part"
        " nothing can tell marked `TODO(evalbot)`",
    )
    parser.add_argument("--list", action="store_true", help="list the converters, exit")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bot.convert.registry import ConvertError, adapters
    from bot.hub.errors import HubError

    if args.list:
        for name, cls in sorted(adapters().items()):
            print(f"{name:12} {cls.description}")
        return 0
    try:
        if args.to == "eee":
            from bot.cli import convert_eee

            return convert_eee.run(args)
        table = _mappings(args.mappings)
        source = _benchmarks(args.benchmarks, offline=args.offline)
        if args.check_mappings:
            return _check(table, source, args.mappings)
        if not args.inputs:
            raise _Usage("evalbot convert: give at least one INPUT")
        policy = bot_config().policy
        conversions = [_convert(path, args, table, source, policy) for path in args.inputs]
        if args.write_mappings is not None:
            _write_mappings(Path(args.write_mappings), conversions, args.all_suggestions)
        return _emit(conversions, args, source, policy)
    except (_Usage, UsageError, ConvertError) as error:
        print(error, file=sys.stderr)
        return 2
    except HubError as error:  # reading benchmarks: offline, unreachable, timed out
        from bot.cli.sources import hub_failure

        print(hub_failure("convert", error), file=sys.stderr)
        return 2


def _write_mappings(file: Path, conversions: list[Conversion], all_suggestions: bool) -> None:
    """Add the suggested rows to `file` (docs/convert.md#writing-the-rows): created when
    absent, else merged after its last row with every line of it kept."""
    from bot.convert.rowsfile import RowsFileError, add_rows

    suggested = [
        item
        for conversion in conversions
        for item in (
            [*conversion.unmapped, *conversion.not_needed]
            if all_suggestions
            else conversion.unmapped
        )
    ]
    try:
        existing = file.read_bytes() if file.exists() else None
    except OSError as error:
        raise _Usage(f"evalbot convert: {file}: {error.strerror}") from error
    try:
        added = add_rows(str(file), existing, [item.fields for item in suggested])
    except RowsFileError as error:
        raise _Usage(f"evalbot convert: {error}") from error
    if added.content is not None:
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(added.content)
        except OSError as error:
            raise _Usage(f"evalbot convert: {file}: {error.strerror}") from error
    print(f"evalbot convert: {file}: {added.summary()}", file=sys.stderr)


def _mappings(extra: list[str]) -> MappingTable:
    from bot.cli.sources import UsageError, mapping_table

    try:
        return mapping_table(extra)
    except UsageError as error:
        raise _Usage(str(error)) from error


def _benchmarks(folder: str | None, *, offline: bool = False) -> BenchmarkSource:
    from bot.cli.sources import UsageError, benchmark_source

    try:
        return benchmark_source(folder, offline=offline)
    except UsageError as error:
        raise _Usage(str(error).replace("evalbot validate", "evalbot convert")) from error


def _check(table: MappingTable, source: BenchmarkSource, extra: list[str]) -> int:
    """Check every row against its benchmark; an empty table is refused, since a check of
    nothing would pass while every conversion maps nothing."""
    from bot.cli.sources import mapping_files
    from bot.convert.mapping import check_mappings

    files = ", ".join(map(str, mapping_files(extra)))
    if not table.rows:
        print(f"evalbot convert: {files}: no mapping row; nothing to check", file=sys.stderr)
        return 1
    problems = check_mappings(table, source)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{files}: {len(table.rows)} mapping rows: {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


def _convert(
    path: str,
    args: argparse.Namespace,
    table: MappingTable,
    source: BenchmarkSource,
    policy: Policy,
) -> Conversion:
    from bot.cli.sources import source_info
    from bot.convert.api import entries_from, read_input

    try:
        with reading(path, Path(path).stat().st_size):
            content = read_input(Path(path))
    except OSError as error:
        raise _Usage(f"evalbot convert: {path}: {error.strerror}") from error
    with reading(path, len(content)):
        return entries_from(
            content,
            filename=path,
            benchmarks=source,
            mappings=table,
            framework=args.framework,
            source_info=source_info(args),
            policy=policy,
        )


def _emit(
    conversions: list[Conversion], args: argparse.Namespace, source: BenchmarkSource, policy: Policy
) -> int:
    """Findings on stderr, entries on stdout or into `--out`; with `--format json`, one object
    on stdout saying the same (`_report`)."""
    status, files = _emit_text(conversions, args, source, policy)
    if args.format == "json":
        print(json.dumps(_report(conversions, args, files, status), indent=2, ensure_ascii=False))
    return status


def _report(
    conversions: list[Conversion],
    args: argparse.Namespace,
    files: dict[str, list[dict[str, Any]]],
    status: int,
) -> dict[str, Any]:
    from bot.convert.findings import findings

    return {
        "ok": status == 0,
        "inputs": [
            {
                "source": conversion.source,
                "converter": conversion.adapter,
                "ok": conversion.ok(allow_partial=args.allow_partial),
                "entries": len(conversion.entries),
                "findings": findings(
                    conversion,
                    allow_partial=args.allow_partial,
                    all_suggestions=args.all_suggestions,
                ),
            }
            for conversion in conversions
        ],
        "files": files if status == 0 else {},
        "out": args.out,
    }


def _emit_text(
    conversions: list[Conversion], args: argparse.Namespace, source: BenchmarkSource, policy: Policy
) -> tuple[int, dict[str, list[dict[str, Any]]]]:
    from bot.convert.findings import findings

    refused: list[str] = []
    files: dict[str, list[dict[str, Any]]] = {}
    for conversion in conversions:
        for line in findings(
            conversion, allow_partial=args.allow_partial, all_suggestions=args.all_suggestions
        ):
            print(line, file=sys.stderr)
        if not conversion.ok(allow_partial=args.allow_partial):
            refused.append(conversion.source)
        for path, entries in conversion.files.items():
            files.setdefault(path, []).extend(entries)
    if refused:
        which = ", ".join(refused)
        print(
            f"evalbot convert: nothing written: {len(refused)} of {len(conversions)} input(s)"
            f" refused ({which}); see the errors above",
            file=sys.stderr,
        )
        return 1, files
    if not files:
        which = ", ".join(conversion.source for conversion in conversions)
        print(f"evalbot convert: no score is mapped in {which}: nothing to write", file=sys.stderr)
        return 1, files
    if args.out is None:
        if args.format == "json":
            return 0, files
        from bot.convert.yamlio import dump_entries

        for path, entries in files.items():
            if len(files) > 1:
                sys.stdout.write(f"# {path}\n")
            sys.stdout.write(dump_entries(entries).decode("utf-8"))
        return 0, files
    return _write_into(Path(args.out), files, source, policy), files


def _write_into(
    folder: Path, files: dict[str, list[dict[str, Any]]], source: BenchmarkSource, policy: Policy
) -> int:
    """Merge into the repo's files (keeping what is there: comments, quotes, other entries),
    validate the repo as it would be, then write, saying what was added and replaced."""
    from bot.convert.yamlio import MergeError, merge
    from bot.report.validation_formats import counts, render_text
    from bot.validation.validate import validate_results_files

    results = folder / ".eval_results"
    contents: dict[str, bytes] = {}
    if results.is_dir():
        for existing in sorted(results.glob("*.y*ml")):
            contents[f".eval_results/{existing.name}"] = existing.read_bytes()
    merged: dict[str, Merged] = {}
    for path, entries in files.items():
        try:
            merged[path] = merge(contents.get(path), entries)
        except MergeError as error:
            print(f"evalbot convert: {folder / path}: {error}", file=sys.stderr)
            return 1
        contents[path] = merged[path].content
    reports = validate_results_files(contents, source, policy=policy)
    if not all(report.ok for report in reports):
        print(render_text(reports, strict=False), file=sys.stderr)
        print("evalbot convert: nothing written", file=sys.stderr)
        return 1
    written = [report for report in reports if report.path in files]
    if counts(written)[1]:
        # warnings on what evalbot writes are shown, so that `validate --strict` holds no surprise
        print(render_text(written, strict=False), file=sys.stderr)
    results.mkdir(parents=True, exist_ok=True)
    for path, done in merged.items():
        (folder / path).write_bytes(done.content)
        print(f"wrote {folder / path}: {_what_changed(done)}", file=sys.stderr)
    return 0


def _what_changed(merged: Merged) -> str:
    """`added 1 entry (Idavidrein/gpqa diamond); replaced entry 2 (…)`."""

    def cell(entry: dict[str, Any]) -> str:
        dataset = entry.get("dataset") or {}
        notes = f", notes {entry['notes']!r}" if entry.get("notes") else ""
        return f"{dataset.get('id')} {dataset.get('task_id')}{notes}"

    parts = []
    if merged.added:
        listed = "; ".join(cell(entry) for entry in merged.added)
        parts.append(
            f"added {len(merged.added)} entr{'y' if len(merged.added) == 1 else 'ies'} ({listed})"
        )
    for index, entry in merged.replaced:
        parts.append(f"replaced entry {index + 1} ({cell(entry)})")
    return "; ".join(parts)
