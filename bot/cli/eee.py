"""`evalbot eee impact`: how many records of a datastore folder a schema would turn invalid, and
why (`bot.eee.impact`; docs/eee.md, "Offline: `evalbot validate` and `evalbot eee impact`")."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import command_texts
from bot.cli.sources import UsageError
from bot.cli.terminal import progress

if TYPE_CHECKING:
    from bot.eee.impact import Target


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "eee", help=command_texts.EEE_HELP, description=command_texts.EEE_HELP
    )
    commands = parser.add_subparsers(dest="eee_command", metavar="COMMAND", required=True)
    impact = commands.add_parser(
        "impact", help=command_texts.EEE_IMPACT_HELP, description=command_texts.EEE_IMPACT_HELP
    )
    impact.add_argument("folder", metavar="DIR", help=command_texts.EEE_DIR_HELP)
    impact.add_argument(
        "--schema", metavar="VERSION|FILE|DIR", required=True, help=command_texts.EEE_SCHEMA_HELP
    )
    impact.add_argument("--format", choices=("text", "json"), default="text")
    impact.set_defaults(run=run_impact)


def run_impact(args: argparse.Namespace) -> int:
    from bot.adapters.datastore_dir import datastore_files
    from bot.eee.impact import SchemaFileError, assess

    try:
        root = Path(args.folder)
        if not root.is_dir():
            raise UsageError(command_texts.EEE_NOT_A_FOLDER.format(path=args.folder))
        target = _target(args.schema)
        paths = [p for p in datastore_files(root) if p.endswith(".json")]
        records = ((p, (root / p).read_bytes()) for p in paths)
        shown = progress(records, total=len(paths), description="records checked")
        report = assess(shown, target)
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    except SchemaFileError as error:
        print(command_texts.EEE_BAD_DRAFT.format(problem=error), file=sys.stderr)
        return 2
    except OSError as error:
        print(command_texts.EEE_UNREADABLE.format(problem=error), file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2))
        return 0
    print(
        command_texts.EEE_IMPACT_SUMMARY.format(
            schema=report.schema,
            records=report.records,
            after=report.invalid_after,
            newly=report.newly_invalid,
            now=report.invalid_now,
            unreadable=report.unreadable,
        )
    )
    for rule in report.rules:
        print(command_texts.EEE_IMPACT_RULE.format(records=rule.records, rule=rule.rule))
        for example in rule.examples:
            print(command_texts.EEE_IMPACT_EXAMPLE.format(path=example))
    return 0


#: Where an aggregate schema sits in a folder: EEE's own layout (a checkout of the repository
#: or of its `schemas/` folder), then the file alone.
_SCHEMA_FILES = (
    "eval.schema.json",
    "schemas/eval.schema.json",
    "every_eval_ever/schemas/eval.schema.json",
)


def _target(schema: str) -> Target:
    """`--schema`: a shipped version, a draft schema file, or a folder holding one."""
    from bot.eee.impact import draft_schema, shipped
    from bot.validation.eee import VERSIONS

    if schema in VERSIONS:
        return shipped(schema)
    path = Path(schema)
    if path.is_dir():
        found = next((path / name for name in _SCHEMA_FILES if (path / name).is_file()), None)
        if found is None:
            raise UsageError(
                command_texts.EEE_NO_SCHEMA_IN_FOLDER.format(
                    path=schema, names=", ".join(_SCHEMA_FILES)
                )
            )
        path = found
    elif not path.is_file():
        raise UsageError(
            command_texts.EEE_BAD_VERSION.format(version=schema, versions=", ".join(VERSIONS))
        )
    return draft_schema(path.read_bytes(), str(path))
