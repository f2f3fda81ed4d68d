"""What the commands do differently on a terminal: colour (`--color`; docs/validate.md, "Output
formats") and a progress bar on stderr, drawn only when stderr is a terminal."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import IO, TypeVar

T = TypeVar("T")

COLOR_CHOICES = ("auto", "always", "never")


def add_color_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the text report: auto (default: on a terminal, unless NO_COLOR is set, "
        "or when FORCE_COLOR is), always or never",
    )


def colour_wanted(
    choice: str, stream: IO[str] | None = None, environ: Mapping[str, str] | None = None
) -> bool:
    """Whether to colour what goes to `stream` (default: standard output)."""
    if choice in ("always", "never"):
        return choice == "always"
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    out = sys.stdout if stream is None else stream
    return out.isatty()


def progress(items: Iterable[T], *, total: int | None, description: str) -> Iterator[T]:
    """`items`, with a progress bar on a terminal's standard error (nothing elsewhere)."""
    if not sys.stderr.isatty():
        yield from items
        return
    from rich.console import Console
    from rich.progress import track

    console = Console(stderr=True)
    yield from track(items, total=total, description=description, transient=True, console=console)


@contextmanager
def reading(path: str, size: int) -> Iterator[None]:
    """A spinner while one large input is read and parsed (no steps to count), on a
    terminal's standard error and only for inputs over `LARGE_INPUT_BYTES`."""
    if size < LARGE_INPUT_BYTES or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(f"reading {path} ({size / 1e6:.0f} MB)"):
        yield


@contextmanager
def working(what: str) -> Iterator[None]:
    """A spinner saying `what` while work with no steps to count runs, on a terminal's
    standard error only."""
    if not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(what):
        yield


#: Inputs from this size up get a spinner (a 50 MB lm-eval output takes seconds to read).
LARGE_INPUT_BYTES = 5 * 1024 * 1024
