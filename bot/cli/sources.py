"""What several commands read the same way: PATH arguments, the benchmark source, the policy and the
mapping table; errors are `UsageError` (exit status 2)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import command_texts

if TYPE_CHECKING:
    from bot.botconfig.sections import BotConfig
    from bot.convert.mapping import MappingTable
    from bot.validation.model import BenchmarkSource

EVAL_RESULTS = ".eval_results"
BENCHMARK_FILE = "eval.yaml"
EEE_SUFFIXES = (".json", ".jsonl")  # Every Eval Ever records (bot.validation.eee)


class UsageError(Exception):
    """A bad option or an unreadable path: exit status 2, message on stderr."""


@dataclass
class _ResultsGroup:
    """The results files of one repo: repo-relative path -> (path as shown, bytes)."""

    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)


@dataclass
class Inputs:
    """What the PATH arguments name, in the order given: eval.yaml files and repo groups."""

    #: (kind, key): kind "benchmark", "results", "eee" (one EEE file) or "datastore" (a folder)
    order: list[tuple[str, str]] = field(default_factory=list)
    benchmarks: dict[str, bytes] = field(default_factory=dict)
    results: dict[str, _ResultsGroup] = field(default_factory=dict)
    eee: dict[str, bytes] = field(default_factory=dict)  # Every Eval Ever .json / .jsonl


def collect(paths: list[str]) -> Inputs:
    """Tell each PATH's kind by its shape and read the bytes (docs/decisions.md#public-interfaces:
    kind is told by path)."""
    inputs = Inputs()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            _collect_folder(inputs, raw, path)
        elif path.is_file():
            if path.name == BENCHMARK_FILE:
                _add_benchmark(inputs, raw, path)
            elif path.suffix.lower() in EEE_SUFFIXES:
                if raw not in inputs.eee:
                    inputs.eee[raw] = _read(raw, path)
                    inputs.order.append(("eee", raw))
            else:
                _add_results(inputs, raw, path)
        else:
            raise UsageError(command_texts.NO_SUCH_PATH.format(path=raw))
    return inputs


def _collect_folder(inputs: Inputs, raw: str, folder: Path) -> None:
    if (folder / "data").is_dir():  # an Every Eval Ever datastore (bot.eee)
        if ("datastore", raw) not in inputs.order:
            inputs.order.append(("datastore", raw))
        return
    results_folder = folder / EVAL_RESULTS
    found = False
    if results_folder.is_dir():
        for candidate in sorted(results_folder.iterdir()):
            if candidate.is_file() and candidate.suffix.lower() in (".yaml", ".yml"):
                shown = os.path.join(raw, EVAL_RESULTS, candidate.name)
                _add_results(inputs, _relative(shown), candidate)
                found = True
    eval_yaml = folder / BENCHMARK_FILE
    if eval_yaml.is_file():
        _add_benchmark(inputs, _relative(os.path.join(raw, BENCHMARK_FILE)), eval_yaml)
        found = True
    if not found:
        loose = [p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in EEE_SUFFIXES]
        extra = ""
        if loose:
            word = "file" if len(loose) == 1 else "files"
            extra = command_texts.NO_RESULTS_EEE.format(count=len(loose), files_word=word)
        raise UsageError(command_texts.NO_RESULTS.format(path=raw) + extra)


def _relative(shown: str) -> str:
    """`./.eval_results/x.yaml` as `.eval_results/x.yaml` (`evalbot validate` with no PATH)."""
    return shown.removeprefix("./") if shown.startswith("./") else shown


def _read(shown: str, path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise UsageError(
            command_texts.UNREADABLE.format(path=shown, problem=error.strerror)
        ) from error


def _add_benchmark(inputs: Inputs, shown: str, path: Path) -> None:
    if shown not in inputs.benchmarks:
        inputs.benchmarks[shown] = _read(shown, path)
        inputs.order.append(("benchmark", shown))


def _add_results(inputs: Inputs, shown: str, path: Path) -> None:
    """Group results files by repo, so duplicates across a repo's files are found."""
    if path.parent.name == EVAL_RESULTS:
        root = str(path.parent.parent.resolve())
        relative = f"{EVAL_RESULTS}/{path.name}"
    else:
        root = str(path.parent.resolve())
        relative = path.name
    group = inputs.results.get(root)
    if group is None:
        group = inputs.results[root] = _ResultsGroup()
        inputs.order.append(("results", root))
    if relative not in group.files:
        group.files[relative] = (shown, _read(shown, path))


def bot_config() -> BotConfig:
    """`config/bot.yaml` in the working directory, else the one shipped with evalbot, as the
    bot reads it (its benchmark policy, issuers, datastores): read once by a command at its
    start and passed down; `UsageError` naming every problem."""
    from bot.botconfig.document import ConfigError
    from bot.botconfig.files import working_bot_config

    try:
        return working_bot_config()
    except ConfigError as error:
        raise UsageError(str(error)) from error


def benchmark_source(
    benchmarks_dir: str | None, *, offline: bool = False, anonymous: bool = False
) -> BenchmarkSource:
    """`--benchmarks DIR`, else the Hub through the Hugging Face cache (`--offline` or
    `HF_HUB_OFFLINE=1`: the cache alone; `bot.hub.cached_benchmarks`); `anonymous`: without
    the token this computer holds."""
    if benchmarks_dir is not None:
        from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource

        if not Path(benchmarks_dir).is_dir():
            raise UsageError(command_texts.NOT_A_FOLDER.format(path=benchmarks_dir))
        return DirectoryBenchmarkSource(benchmarks_dir)
    from huggingface_hub import HfApi

    from bot.hub.cached_benchmarks import CachedBenchmarkSource
    from bot.hub.client import HfHubClient
    from bot.hub.timeouts import use_hub_timeout_from_env
    from bot.settings import SettingsError
    from bot.validation.benchmark import benchmark_from_eval_yaml

    try:
        use_hub_timeout_from_env(os.environ)  # a pre-commit hook must not hang on a silent Hub
    except SettingsError as error:
        raise UsageError(str(error)) from error
    api = HfApi(token=False) if anonymous else HfApi()
    return CachedBenchmarkSource(
        HfHubClient(api),
        api,
        lambda repo_id, sha, content: benchmark_from_eval_yaml(repo_id, content, sha),
        offline=offline,
    )


def hub_failure(command: str, error: BaseException) -> str:
    """What a command says when benchmarks could not be read: offline, what the cache lacks
    and how to proceed; online, what failed and the two ways to work without the Hub."""
    from bot.hub.cached_benchmarks import BenchmarkNotCached

    if isinstance(error, BenchmarkNotCached):
        return command_texts.NOT_CACHED.format(command=command, problem=error)
    return command_texts.HUB_FAILED.format(command=command, problem=error)


@contextmanager
def hub_offline(offline: bool) -> Iterator[None]:
    """Inside, `--offline` is exactly `HF_HUB_OFFLINE=1`: huggingface_hub reads the variable
    once, at import, into the `constants.HF_HUB_OFFLINE` every request and download checks, so
    both are set (and put back after, for a caller that goes on)."""
    if not offline:
        yield
        return
    saved = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    from huggingface_hub import constants

    was = constants.HF_HUB_OFFLINE
    constants.HF_HUB_OFFLINE = True
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE = was
        if saved is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = saved


def add_offline_option(
    parser: argparse._ActionsContainer, help: str = command_texts.OFFLINE_HELP
) -> None:
    """`--offline`: benchmarks from the Hugging Face cache only, as `HF_HUB_OFFLINE=1`."""
    parser.add_argument("--offline", action="store_true", help=help)


def mapping_files(extra: list[str]) -> list[Path]:
    """The files the mapping table is read from (`bot.adapters.mappings_file`)."""
    from bot.adapters.mappings_file import mapping_files as files

    return files(extra)


def mapping_table(extra: list[str], command: str = "evalbot convert") -> MappingTable:
    """The rows of `mapping_files(extra)`, later files winning; a broken or missing file is a
    UsageError naming its line. Says on stderr which files it read, since a conversion that
    maps nothing is most often a table other than the one the user meant."""
    import sys

    from bot.adapters.mappings_file import MappingsFileError, load_mapping_table

    files = mapping_files(extra)
    print(f"{command}: mapping table: {', '.join(map(str, files))}", file=sys.stderr)
    try:
        return load_mapping_table(files)
    except MappingsFileError as error:
        message = str(error)
        prefixed = isinstance(error.__cause__, OSError)
        raise UsageError(f"{command}: {message}" if prefixed else message) from error


def add_conversion_options(
    parser: argparse._ActionsContainer, offline_help: str = command_texts.OFFLINE_HELP
) -> None:
    """The options `evalbot convert` and `evalbot submit` share for reading a framework's
    output: extra mapping rows, offline benchmarks, the entries' `source`, and how many of the
    rows for unmapped scores to print."""
    parser.add_argument(
        "--mappings",
        action="append",
        default=[],
        metavar="FILE",
        help="more mapping rows (added to config/convert/mappings.yaml, else the shipped table; "
        "later files win)",
    )
    parser.add_argument("--benchmarks", metavar="DIR", help="offline benchmarks (default: Hub)")
    add_offline_option(parser, offline_help)
    parser.add_argument("--source-url", metavar="URL", help="entries' source.url (logs, run)")
    parser.add_argument("--source-name", metavar="NAME", help="entries' source.name")
    parser.add_argument(
        "--all-suggestions",
        action="store_true",
        help="list every unmapped score's row, not the first ones",
    )


def source_info(args: argparse.Namespace) -> dict[str, str] | None:
    """The entries' `source` from `--source-url` (and `--source-name`); None without a URL."""
    if not args.source_url:
        return None
    info = {"url": args.source_url}
    if args.source_name:
        info["name"] = args.source_name
    return info
