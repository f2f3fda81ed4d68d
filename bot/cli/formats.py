"""`--format text|json`, the one spelling every reporting command takes; `--json`, which
`status` and `parked` took first, stays as a deprecated alias that says so on standard error."""

from __future__ import annotations

import argparse
import sys


def add_format_option(parser: argparse.ArgumentParser, *, help_json: str) -> None:
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help=f"text (default), or json: {help_json}",
    )
    parser.add_argument("--json", action="store_true", help="deprecated: --format json")


def wants_json(args: argparse.Namespace, command: str) -> bool:
    """Whether to print JSON; `--json` is honoured with a one-line deprecation notice."""
    if args.json:
        print(
            f"evalbot {command}: --json is deprecated and will be removed: use --format json",
            file=sys.stderr,
        )
        return True
    return bool(args.format == "json")
