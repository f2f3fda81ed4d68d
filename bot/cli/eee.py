"""`evalbot eee impact --schema VERSION DIR [--format text|json]`: how many records of a
datastore folder a schema version would turn invalid, and why, grouped by rule
(`bot.eee.impact`). Exit status: 0 the report was made, 2 usage or I/O error."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bot.cli import messages
from bot.cli.sources import UsageError
from bot.cli.terminal import progress


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("eee", help=messages.EEE_HELP, description=messages.EEE_HELP)
    commands = parser.add_subparsers(dest="eee_command", metavar="COMMAND", required=True)
    impact = commands.add_parser(
        "impact", help=messages.EEE_IMPACT_HELP, description=messages.EEE_IMPACT_HELP
    )
    impact.add_argument("folder", metavar="DIR", help=messages.EEE_DIR_HELP)
    impact.add_argument("--schema", metavar="VERSION", required=True, help=messages.EEE_SCHEMA_HELP)
    impact.add_argument("--format", choices=("text", "json"), default="text")
    impact.set_defaults(run=run_impact)


def run_impact(args: argparse.Namespace) -> int:
    from bot.adapters.datastore_dir import datastore_files
    from bot.eee.impact import assess
    from bot.spec.eee import VERSIONS

    try:
        root = Path(args.folder)
        if not root.is_dir():
            raise UsageError(messages.EEE_NOT_A_FOLDER.format(path=args.folder))
        if args.schema not in VERSIONS:
            raise UsageError(
                messages.EEE_BAD_VERSION.format(version=args.schema, versions=", ".join(VERSIONS))
            )
        paths = [p for p in datastore_files(root) if p.endswith(".json")]
        records = ((p, (root / p).read_bytes()) for p in paths)
        shown = progress(records, total=len(paths), description="records checked")
        report = assess(shown, args.schema)
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    except OSError as error:
        print(messages.EEE_UNREADABLE.format(problem=error), file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2))
        return 0
    print(
        messages.EEE_IMPACT_SUMMARY.format(
            version=report.version,
            records=report.records,
            after=report.invalid_after,
            newly=report.newly_invalid,
            now=report.invalid_now,
            unreadable=report.unreadable,
        )
    )
    for rule in report.rules:
        print(messages.EEE_IMPACT_RULE.format(records=rule.records, rule=rule.rule))
        for example in rule.examples:
            print(messages.EEE_IMPACT_EXAMPLE.format(path=example))
    return 0
