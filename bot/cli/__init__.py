"""The `evalbot` command. Each subcommand module's `register(subparsers)` adds its parser and
`run`; registration stays cheap (heavy imports inside `run`, so `evalbot validate` starts fast
in a pre-commit hook), and `needs_server=True` stops a command with one line without the extra."""

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
    "bot.cli.playground",
    "bot.cli.web",
    "bot.cli.worker",
    "bot.cli.beat",
    "bot.cli.parked",
    "bot.cli.replay",
    "bot.cli.status",
    "bot.cli.issuer",
    "bot.cli.submit",
    "bot.cli.completion",
)

#: `evalbot --help`, by who uses each command: the group, its commands, one example.
HELP_GROUPS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "model owners, to check and convert results before a push",
        ("validate", "convert", "playground"),
        "evalbot validate .",
    ),
    (
        "deployers, to gate a model on a collection's bar",
        ("gate", "collections"),
        "evalbot gate --collection leaderboard-v2 google/gemma-4-12B-it",
    ),
    (
        "evaluation frameworks and datastores, to publish verified results",
        ("submit", "token", "keys", "eee"),
        "evalbot submit results.json --model-repo acme/model --dry-run",
    ),
    (
        "operators, to run the bot, its pages and its token issuer",
        (
            "serve",
            "web",
            "worker",
            "beat",
            "status",
            "parked",
            "replay",
            "issuer",
            "frameworks",
        ),
        "evalbot status --format json",
    ),
    ("everyone, for the shell", ("completion",), "evalbot completion bash >> ~/.bash_completion"),
)
#: Where the documentation is when the installed package's metadata names no URL for it.
DOCS_FALLBACK = "docs/README.md in evalbot's source"


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
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    parser.epilog = _grouped_commands(subparsers)
    # The flat list argparse would print is replaced by the groups above it; set after the
    # commands are registered, so their own usage lines still read `evalbot validate ...`.
    subparsers.help = argparse.SUPPRESS
    parser.usage = "evalbot [-h] [--version] COMMAND ..."
    return parser


def _grouped_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> str:
    helps = {action.dest: action.help or "" for action in subparsers._choices_actions}
    listed = {name for _title, names, _example in HELP_GROUPS for name in names}
    if listed != set(helps):  # a command in no group, or a group naming no command
        raise RuntimeError(f"evalbot --help groups: {sorted(listed ^ set(helps))}")
    width = max(map(len, helps)) + 2
    blocks = []
    for title, names, example in HELP_GROUPS:
        lines = [f"{title}:"]
        lines.extend(f"  {name:<{width}}{helps[name]}" for name in names)
        lines.append(f"  e.g. {example}")
        blocks.append("\n".join(lines))
    blocks.append(f"documentation: {_docs_url()}; each command: evalbot COMMAND --help")
    return "\n\n".join(blocks)


def _docs_url() -> str:
    """The installed package's `Documentation` URL (pyproject `[project.urls]`), if any."""
    from importlib import metadata

    try:
        urls = metadata.metadata("evalbot").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return DOCS_FALLBACK
    for item in urls:
        label, _, url = item.partition(",")
        if label.strip().lower() == "documentation":
            return str(url).strip()
    return DOCS_FALLBACK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status (0 ok, 1 findings, 2 usage/I-O)."""
    parser = build_parser()
    import argcomplete

    # Answers a shell's completion request (`_ARGCOMPLETE` set) and exits; otherwise returns.
    argcomplete.autocomplete(parser)
    args = parser.parse_args(argv)
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "needs_server", False):
        from bot.server_extra import server_refusal

        refusal = server_refusal(f"evalbot {args.command}")
        if refusal is not None:
            print(refusal, file=sys.stderr)
            return 2
    from bot.adapters.frameworks_file import use_freshest

    use_freshest()  # the user's `evalbot frameworks refresh`, when fresher than the shipped list
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
