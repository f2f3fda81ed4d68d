"""The `evalbot` command.

Each subcommand lives in its own module under `bot.cli` and exposes
`register(subparsers) -> None`, which adds its parser and sets `run=<callable(args) -> int>`.
Registration must stay cheap: heavy imports (starlette, celery, huggingface_hub) belong inside
the `run` callables, so `evalbot validate` in a pre-commit hook starts fast. A command that needs
the server extra also sets `needs_server=True`: without the extra it stops with one line saying
what to install, before `run` imports anything.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

#: Modules that provide subcommands, in the order `evalbot --help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "bot.cli.validate",
    "bot.cli.eee",
    "bot.cli.gate",
    "bot.cli.collections",
    "bot.cli.convert",
    "bot.cli.frameworks",
    "bot.cli.keys",
    "bot.cli.token",
    "bot.cli.serve",
    "bot.cli.web",
    "bot.cli.worker",
    "bot.cli.beat",
    "bot.cli.parked",
    "bot.cli.replay",
    "bot.cli.status",
    "bot.cli.issuer",
    "bot.cli.submit",
)


class _Version(argparse.Action):
    """`--version`: the installed package's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        import bot

        print(f"evalbot {bot.__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalbot",
        description="Validate and verify evaluation results for the Hugging Face Hub.",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status (0 ok, 1 findings, 2 usage/I-O)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "needs_server", False):
        from bot.extras import server_refusal

        refusal = server_refusal(f"evalbot {args.command}")
        if refusal is not None:
            print(refusal, file=sys.stderr)
            return 2
    try:
        status: int = run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`evalbot validate | head`). Python would print a traceback, then
        # fail again flushing stdout at exit; what the reader did not take is an I/O error (2).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 2
    return status


if __name__ == "__main__":  # pragma: no cover - `python -m bot.cli`
    raise SystemExit(main())
