"""`evalbot completion bash|zsh|fish`: the shell completion script argcomplete writes
(docs/validate.md, "Shell completion")."""

from __future__ import annotations

import argparse

SHELLS = ("bash", "zsh", "fish")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "completion",
        help="print the shell completion script for bash, zsh or fish",
        description="Print the script that makes SHELL complete evalbot's commands and options."
        " bash: evalbot completion bash >> ~/.bash_completion; zsh: evalbot completion zsh >"
        ' "${fpath[1]}/_evalbot"; fish: evalbot completion fish >'
        " ~/.config/fish/completions/evalbot.fish",
    )
    parser.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from argcomplete.shell_integration import shellcode

    print(shellcode(["evalbot"], shell=args.shell), end="")
    return 0
