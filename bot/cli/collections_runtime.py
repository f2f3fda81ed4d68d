"""What `gate` and `collections` share: benchmarks, checking a stored collection, error exits."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.cli import gate_texts

if TYPE_CHECKING:
    from pathlib import Path

    from bot.adapters.collections_store import StoredCollection
    from bot.collections.model import Collection
    from bot.validation.diagnostics import Diagnostic
    from bot.validation.model import BenchmarkSource


class Refused(Exception):
    """A usage or I/O problem: the message goes to stderr and the exit status is 2."""


def complete_collection(prefix: str, parsed_args: argparse.Namespace, **_: object) -> list[str]:
    """TAB after `--collection` (or `collections show`): the collection ids known (shipped,
    and those of `--collections DIR` when given), then collection files and the folders that
    lead to them."""
    from argcomplete.completers import FilesCompleter

    from bot.adapters.collections_store import StoreError, all_collections

    try:
        stored = all_collections(getattr(parsed_args, "collections", None))
    except StoreError:  # a --collections that is not (yet) a folder: the shipped ones
        stored = all_collections(None)
    ids = [collection.id for collection in stored if collection.id.startswith(prefix)]
    files = FilesCompleter(allowednames=("yaml", "yml"))(prefix)
    return [*ids, *files]


def fail(command: str, problem: object) -> int:
    print(gate_texts.PREFIX.format(command=command) + str(problem), file=sys.stderr)
    return 2


def benchmarks(folder: str | None, *, offline: bool = False) -> BenchmarkSource:
    """`--benchmarks DIR` offline, else the Hub at HF_ENDPOINT through the Hugging Face cache
    (`--offline`: the cache alone), as `evalbot validate`."""
    from bot.cli.sources import UsageError, benchmark_source

    try:
        return benchmark_source(folder, offline=offline)
    except UsageError as error:
        raise Refused(str(error).removeprefix("evalbot validate: ")) from error


def check_stored(
    stored: StoredCollection, source: BenchmarkSource, command: str = "collections"
) -> tuple[Collection | None, list[Diagnostic]]:
    from bot.adapters.collections_store import StoreError
    from bot.collections.check import check_collection
    from bot.hub.errors import HubError

    try:
        return check_collection(stored.id, stored.read(), source, scope=stored.scope)
    except StoreError as error:
        raise Refused(str(error)) from error
    except HubError as error:
        from bot.cli.sources import hub_failure

        raise Refused(hub_failure(command, error).removeprefix(f"evalbot {command}: ")) from error


def findings_text(path: Path, diagnostics: Sequence[Diagnostic]) -> str:
    """`FILE:LINE:COLUMN: CODE severity field: message`, its fix below, one per finding (as
    `evalbot validate` prints them): what a gate that refuses or warns about its collection
    prints, so the fix needs no second command."""
    from bot.report.validation_formats import diagnostic_lines

    return "\n".join(diagnostic_lines(diagnostics, path=str(path)))


def findings_github(path: Path, diagnostics: Sequence[Diagnostic]) -> str:
    """The same findings as workflow annotations on the collection file."""
    from bot.report.validation_formats import render_github
    from bot.validation.model import FileReport

    return render_github([FileReport(str(path), "benchmark", list(diagnostics))])
