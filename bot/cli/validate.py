"""`evalbot validate` (docs/validate.md): reads the files, hands bytes to
`bot.validation.validate`, verifies tokens, and prints text, JSON or GitHub annotations."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import command_texts
from bot.cli.sources import (
    Inputs,
    UsageError,
    add_offline_option,
    benchmark_source,
    bot_config,
    collect,
    hub_failure,
)
from bot.cli.terminal import add_color_option, colour_wanted, working

if TYPE_CHECKING:
    from bot.botconfig.sections import BotConfig
    from bot.eee.sourcecheck import RecordReader
    from bot.report.validation_formats import Style
    from bot.tokens.issuers import IssuerRegistry
    from bot.validation.model import FileReport
    from bot.validation.policy import Policy

_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}\Z")

#: The text report's colours (`--color`, `bot.cli.terminal.colour_wanted`), by
#: `bot.report.validation_formats.Style` value.
_ANSI = {
    "error": "\033[31m",
    "warning": "\033[33m",
    "ok": "\033[32m",
    "dim": "\033[2m",
    "bold": "\033[1m",
}


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    """What token verification will need; parsed and checked now so bad values fail early."""

    registry: IssuerRegistry  # --issuers, else `issuers:` of config/bot.yaml here, else packaged
    model_repo: str | None
    at: datetime.datetime  # timezone-aware


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate", help=command_texts.VALIDATE_HELP, description=command_texts.VALIDATE_DESCRIPTION
    )
    parser.add_argument(
        "paths", nargs="*", default=["."], metavar="PATH", help=command_texts.PATHS_HELP
    )
    parser.add_argument("--benchmarks", metavar="DIR", help=command_texts.BENCHMARKS_HELP)
    add_offline_option(parser)
    parser.add_argument("--issuers", metavar="FILE", help=command_texts.ISSUERS_HELP)
    parser.add_argument("--model-repo", metavar="ID", help=command_texts.MODEL_REPO_HELP)
    parser.add_argument("--at", metavar="ISO-8601", help=command_texts.AT_HELP)
    parser.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help=command_texts.FORMAT_HELP,
    )
    parser.add_argument("--strict", action="store_true", help=command_texts.STRICT_HELP)
    add_color_option(parser)
    parser.add_argument("--markdown", metavar="FILE", help=command_texts.MARKDOWN_HELP)
    parser.add_argument("--against", metavar="DIR", help=command_texts.AGAINST_HELP)
    parser.add_argument("--datastore", metavar="DIR", help=command_texts.DATASTORE_HELP)
    from bot.cli import fix

    fix.add_options(parser)
    parser.set_defaults(run=run)


def present_in_this_hook_run(paths: list[str]) -> list[str]:
    """Run by pre-commit (which sets `PRE_COMMIT=1`): the paths still there. pre-commit hands
    every hook of a run the names that existed when the run began, so a name that is gone was
    renamed or removed by a hook before this one (`evalbot-fix` renaming a file), and that hook
    has already failed the run for the change; the next run checks the new name."""
    kept = []
    for path in paths:
        if os.path.lexists(path):
            kept.append(path)
        else:
            print(command_texts.GONE_IN_HOOK_RUN.format(path=path), file=sys.stderr)
    return kept


def run(args: argparse.Namespace) -> int:
    from bot.eee.submission import blocking_warnings
    from bot.report.validation_formats import counts, plain, render_github, render_text, to_json

    paths = args.paths
    if os.environ.get("PRE_COMMIT") == "1":
        paths = present_in_this_hook_run(paths)
        if not paths:
            return 0
    try:
        config = bot_config()
        options = verify_options(args, config)
        inputs = collect(paths)
        reader = record_reader(args.datastore)
        if args.fix or args.diff:
            from bot.cli.fix import fix

            outcome = fix(inputs, args.benchmarks, config.policy, write=args.fix)
            if args.diff:
                return 1 if outcome.changed else 0
            inputs = collect([outcome.renamed.get(path, path) for path in paths])
        reports = validate_inputs(
            inputs, args.benchmarks, config.policy, against=args.against, offline=args.offline
        )
        check_sources_of(reports, reader, options.model_repo, config.source_datastores)
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    verify(reports, options)
    errors, warnings = counts(reports)
    # warnings an EEE datastore's gate blocks a merge on (EEE-FOLDER) fail the run as errors do
    blocking = blocking_warnings(r for r in reports if r.kind == "eee")
    failed = bool(errors or (args.strict and warnings) or blocking)
    if args.format == "json":
        payload = to_json(reports, strict=args.strict)
        payload["ok"] = not failed
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    elif args.format == "github":
        text = render_github(reports)
        if text:
            print(text)
    else:
        paint = ansi if colour_wanted(args.color) else plain
        print(render_text(reports, strict=args.strict or bool(blocking), paint=paint))
        if blocking:
            print(
                command_texts.BLOCKING_WARNINGS.format(
                    count=blocking,
                    warnings_word="warning" if blocking == 1 else "warnings",
                    verb="blocks" if blocking == 1 else "block",
                )
            )
    if args.markdown is not None and not append_markdown(Path(args.markdown), reports):
        return 2
    return 1 if failed else 0


def record_reader(datastore: str | None) -> RecordReader:
    """`--datastore DIR`: the records of a local checkout; else the Hub's, within the budget a
    bot run has (docs/hub.md, "Source records")."""
    if datastore is not None:
        from bot.adapters.records_dir import DirectoryRecordReader

        root = Path(datastore)
        if not (root / "data").is_dir() and not (root / "flat").is_dir():
            raise UsageError(command_texts.NOT_A_DATASTORE_CHECKOUT.format(path=datastore))
        return DirectoryRecordReader(root)
    from huggingface_hub import HfApi

    from bot.hub.client import HfHubClient
    from bot.hub.records import (
        SOURCE_CALLS_PER_RUN,
        HubRecordReader,
        MemoryRecordCache,
        ReadBudget,
    )
    from bot.hub.timeouts import use_hub_timeout_from_env
    from bot.settings import SettingsError

    try:
        use_hub_timeout_from_env(os.environ)  # a pre-commit hook must not hang on a silent Hub
    except SettingsError as error:
        raise UsageError(str(error)) from error
    return HubRecordReader(
        HfHubClient(HfApi()), ReadBudget(SOURCE_CALLS_PER_RUN), MemoryRecordCache()
    )


def check_sources_of(
    reports: list[FileReport],
    reader: RecordReader,
    model_repo: str | None,
    datastores: tuple[str, ...],
) -> None:
    """Check each result's `source.url` that links a record of a trusted datastore (the
    `source_datastores:` of config/bot.yaml here, else the shipped default); the model is
    compared only with `--model-repo`."""
    from huggingface_hub import constants

    from bot.eee.sourcecheck import check_sources

    results = [report for report in reports if report.kind == "results"]
    check_sources(
        results,
        reader,
        model_repo=model_repo,
        hub_url=constants.ENDPOINT.rstrip("/"),
        datastores=datastores,
    )


def append_markdown(path: Path, reports: list[FileReport]) -> bool:
    """Append the Markdown report to `path` (a job summary collects several steps' reports);
    False, with the reason printed, when it cannot be written."""
    from bot.eee.comment import render_files
    from bot.report.comment import render_report

    eee = [report for report in reports if report.kind == "eee"]
    others = [report for report in reports if report.kind != "eee"]
    # EEE files hold records, not entries: they get the datastore comment's report
    parts = [render_report(others)] if others or not eee else []
    if eee:
        parts.append(render_files(eee))
    try:
        with path.open("a", encoding="utf-8") as summary:
            summary.write("\n\n".join(parts) + "\n")
    except OSError as error:
        problem = error.strerror or str(error)
        print(command_texts.MARKDOWN_UNWRITABLE.format(path=path, problem=problem), file=sys.stderr)
        return False
    return True


def ansi(text: str, style: Style) -> str:
    """`text` in the terminal colour of its `style` (ANSI escape codes)."""
    return f"{_ANSI[style.value]}{text}\033[0m"


def verify(reports: list[FileReport], options: VerifyOptions) -> None:
    """Set every entry's token verdict: `--issuers`, `--model-repo`, `--at` take effect here."""
    from bot.tokens.offline import verify_offline

    verify_offline(reports, model_repo=options.model_repo, registry=options.registry, at=options.at)


def parse_at(value: str) -> datetime.datetime:
    """ISO-8601 to an aware datetime: no offset means UTC, a date alone midnight UTC."""
    try:
        if _DATE_ONLY.match(value):
            day = datetime.date.fromisoformat(value)
            return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)
        moment = datetime.datetime.fromisoformat(value)
    except ValueError as error:
        raise UsageError(command_texts.BAD_AT.format(value=value)) from error
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment


def verify_options(args: argparse.Namespace, config: BotConfig) -> VerifyOptions:
    from bot.validation.model import is_repo_id

    at = parse_at(args.at) if args.at is not None else datetime.datetime.now(datetime.UTC)
    if args.model_repo is not None and not is_repo_id(args.model_repo):
        raise UsageError(command_texts.BAD_MODEL_REPO.format(value=args.model_repo))
    if args.issuers is not None:
        issuers: Path | None = Path(args.issuers)
        if not Path(args.issuers).is_file():
            raise UsageError(command_texts.NO_ISSUERS.format(path=args.issuers))
    else:
        issuers = None
    registry = _registry(issuers, config)
    return VerifyOptions(registry=registry, model_repo=args.model_repo, at=at)


def _registry(issuers: Path | None, config: BotConfig) -> IssuerRegistry:
    """Load the trusted issuers before any work, so a broken file fails fast (exit 2)."""
    from bot.adapters.issuers_file import registry_for_cli
    from bot.tokens.issuers import IssuerConfigError

    try:
        return registry_for_cli(issuers, config.issuers)
    except (OSError, IssuerConfigError) as error:
        shown = issuers if issuers is not None else "the issuers file"
        raise UsageError(command_texts.UNREADABLE.format(path=shown, problem=error)) from error


def validate_inputs(
    inputs: Inputs,
    benchmarks_dir: str | None,
    policy: Policy,
    *,
    against: str | None = None,
    offline: bool = False,
) -> list[FileReport]:
    """Run the pure core over everything collected; reports in the order the paths came.
    `against`: a checkout of an EEE datastore's main that datastore folders, and single EEE
    files (as changed files of a checkout), are checked against (duplicates, moves, samples
    files already there)."""
    from bot.validation.validate import validate_benchmark_file, validate_results_files

    source = benchmark_source(benchmarks_dir, offline=offline) if inputs.results else None
    reports: list[FileReport] = []
    changed = [key for kind, key in inputs.order if kind == "eee"] if against else []
    for kind, key in inputs.order:
        if kind == "benchmark":
            reports.append(validate_benchmark_file(key, inputs.benchmarks[key]))
            continue
        if kind == "eee" and changed:
            if key == changed[0]:
                reports.extend(validate_changed_files(changed, against))
            continue
        if kind == "eee":
            from bot.validation.eee import validate_eee_file

            reports.append(validate_eee_file(key, inputs.eee[key]))
            continue
        if kind == "datastore":
            with working(f"checking the datastore {key}"):
                reports.extend(validate_datastore(key, against))
            continue
        group = inputs.results[key]
        assert source is not None
        contents = {relative: content for relative, (_shown, content) in group.files.items()}
        try:
            file_reports = validate_results_files(contents, source, policy=policy)
        except transient_errors(benchmarks_dir) as error:  # network, HTTP 5xx, rate limits
            raise UsageError(hub_failure("validate", error)) from error
        for report in file_reports:
            report.path = group.files[report.path][0]
        reports.extend(file_reports)
    return reports


def validate_datastore(folder: str, against: str | None) -> list[FileReport]:
    """An EEE datastore folder: every file under its `data/`, checked as a PR adding them
    would be (`bot.eee.submission`); paths shown under `folder`."""
    from bot.adapters.datastore_dir import OverlayFiles, changes_in, index_of
    from bot.eee.dedupe import HashIndex
    from bot.eee.submission import DatastorePolicy, check_submission

    main = Path(against) if against is not None else None
    if main is not None and not (main / "data").is_dir():
        raise UsageError(command_texts.NOT_A_DATASTORE.format(path=against))
    root = Path(folder)
    changes = changes_in(root, main)
    index = index_of(main, {c.path for c in changes}) if main is not None else HashIndex()
    every_row = DatastorePolicy(schema_rows=None, max_files=None)  # offline: every file, every row
    result = check_submission(changes, OverlayFiles(root, main), index, every_row)
    for report in result.files:
        report.path = os.path.join(folder, report.path)
    return result.files


def validate_changed_files(shown: list[str], against: str | None) -> list[FileReport]:
    """EEE files of a datastore checkout, checked as a PR changing them would be, against the
    main at `against`. A file's datastore path is its path from the folder above its nearest
    `data` folder (EEE's own validator finds it the same way); files are grouped by that
    checkout, each group one PR."""
    from bot.adapters.datastore_dir import OverlayFiles, index_of
    from bot.eee.submission import Change, DatastorePolicy, check_submission

    assert against is not None
    main = Path(against)
    if not (main / "data").is_dir():
        raise UsageError(command_texts.NOT_A_DATASTORE.format(path=against))
    groups: dict[Path, dict[str, str]] = {}
    for name in shown:
        root, path = _checkout_path(Path(name))
        groups.setdefault(root, {})[path] = name
    reports: list[FileReport] = []
    for root, paths in groups.items():
        changes = [
            Change(p, "modified" if (main / p).is_file() else "added") for p in sorted(paths)
        ]
        index = index_of(main, set(paths))
        every_row = DatastorePolicy(schema_rows=None, max_files=None)
        result = check_submission(changes, OverlayFiles(root, main), index, every_row)
        for report in result.files:
            report.path = paths.get(report.path) or str(root / report.path)
        reports.extend(result.files)
    return reports


def _checkout_path(file: Path) -> tuple[Path, str]:
    resolved = file.resolve()
    data = next((parent for parent in resolved.parents if parent.name == "data"), None)
    if data is None:
        return resolved.parent, resolved.name
    return data.parent, resolved.relative_to(data.parent).as_posix()


def transient_errors(benchmarks_dir: str | None) -> tuple[type[BaseException], ...]:
    """Errors that mean "the Hub failed" (exit 2); none for an offline folder."""
    if benchmarks_dir is not None:
        return ()
    from bot.hub.errors import HubError

    return (HubError,)
