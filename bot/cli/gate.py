"""`evalbot gate`: a CI/CD gate whose exit status says whether a model clears a collection
(docs/collections.md, "`evalbot gate`")."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import command_texts, gate_texts
from bot.cli.collections_runtime import complete_collection
from bot.cli.sources import add_offline_option

if TYPE_CHECKING:
    from bot.collections.aggregate import GateResult
    from bot.collections.scores import ResultsLayer
    from bot.validation.model import BenchmarkSource

COMMAND = "gate"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        COMMAND, help=gate_texts.GATE_HELP, description=gate_texts.GATE_DESCRIPTION
    )
    parser.add_argument("target", metavar="TARGET", help=gate_texts.TARGET_HELP)
    collection = parser.add_argument(
        "--collection", required=True, metavar="ID|FILE", help=gate_texts.COLLECTION_HELP
    )
    collection.completer = complete_collection  # type: ignore[attr-defined]
    parser.add_argument("--collections", metavar="DIR", help=gate_texts.COLLECTIONS_DIR_HELP)
    parser.add_argument("--benchmarks", metavar="DIR", help=command_texts.BENCHMARKS_HELP)
    add_offline_option(parser)
    parser.add_argument(
        "--include-open-prs", action="store_true", help=gate_texts.INCLUDE_OPEN_PRS_HELP
    )
    parser.add_argument("--revision", default="main", help=gate_texts.REVISION_HELP)
    parser.add_argument(
        "--format", choices=("text", "json", "github"), default="text", help=gate_texts.FORMAT_HELP
    )
    parser.add_argument(
        "--tag", action="append", default=[], metavar="KEY=VALUE", help=gate_texts.TAG_HELP
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bot.adapters.collections_store import StoreError, named
    from bot.cli.collections_runtime import (
        Refused,
        benchmarks,
        check_stored,
        fail,
        findings_github,
        findings_text,
    )
    from bot.collections.render import render_text, to_json
    from bot.collections.scores import evaluate_view
    from bot.hub.errors import HubError

    try:
        tags = parse_tags(args.tag)
        stored = named(args.collection, args.collections)
        print(gate_texts.USING_COLLECTION.format(id=stored.id, path=stored.path), file=sys.stderr)
        hub_target = _hub_target(args)
        source = benchmarks(args.benchmarks, offline=args.offline)
        try:
            collection, diagnostics = check_stored(stored, source, COMMAND)
        except Refused as refused:
            if hub_target and isinstance(refused.__cause__, HubError):
                raise _hub_failed(args, refused.__cause__) from refused.__cause__
            raise
        if collection is None:
            errors = sum(1 for diagnostic in diagnostics if diagnostic.is_error)
            if args.format == "github":
                print(findings_github(stored.path, diagnostics))
            raise Refused(
                gate_texts.INVALID_COLLECTION.format(id=stored.id, path=stored.path, errors=errors)
                + "\n"
                + findings_text(stored.path, diagnostics)
            )
        layers = read_layers(args, source)
    except (Refused, StoreError) as error:
        return fail(COMMAND, error)
    result = evaluate_view(collection, layers)
    if args.format == "json":
        body = to_json(result, args.target, tags)
        body["collection_diagnostics"] = [diagnostic.to_json() for diagnostic in diagnostics]
        print(json.dumps(body, indent=2))
    elif args.format == "github":
        if diagnostics:
            print(findings_github(stored.path, diagnostics))
        print(render_github(result, args.target))
    else:
        if diagnostics:
            print(findings_text(stored.path, diagnostics), file=sys.stderr)
        print(render_text(result, args.target))
    return 0 if result.passed else 1


def parse_tags(raw: list[str]) -> dict[str, str]:
    """`--tag KEY=VALUE` options as a mapping (EvalHub's experiment tags); a repeated key is
    refused rather than one value silently winning."""
    from bot.cli.collections_runtime import Refused

    tags: dict[str, str] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise Refused(gate_texts.BAD_TAG.format(tag=item))
        if key in tags:
            raise Refused(gate_texts.TAG_TWICE.format(key=key))
        tags[key] = value
    return tags


def read_layers(args: argparse.Namespace, source: BenchmarkSource) -> list[ResultsLayer]:
    """The target's validated results: a folder's files, or the Hub's main (and open PRs)."""
    from bot.cli.collections_runtime import Refused
    from bot.cli.sources import UsageError, bot_config
    from bot.collections.scores import REPO_LIMITS, ResultsLayer
    from bot.validation.model import is_repo_id
    from bot.validation.validate import validate_results_files

    try:
        policy = bot_config().policy
    except UsageError as error:
        raise Refused(str(error)) from error
    folder = Path(args.target)
    if folder.is_dir():
        if args.include_open_prs:
            raise Refused(gate_texts.LOCAL_AND_PRS)
        files = _folder_results(folder, args.target)
        return [
            ResultsLayer(validate_results_files(files, source, policy=policy, limits=REPO_LIMITS))
        ]
    if not is_repo_id(args.target):
        raise Refused(gate_texts.NOT_A_TARGET.format(target=args.target))
    from huggingface_hub import HfApi

    from bot.hub.client import HfHubClient
    from bot.hub.errors import HubError
    from bot.hub.repo_results import read_repo_results
    from bot.hub.timeouts import use_hub_timeout_from_env
    from bot.settings import SettingsError

    try:
        use_hub_timeout_from_env(os.environ)
    except SettingsError as error:
        raise Refused(str(error)) from error
    try:
        repo = read_repo_results(
            HfHubClient(HfApi()),
            args.target,
            revision=args.revision,
            include_open_prs=args.include_open_prs,
        )
        layers = [
            ResultsLayer(
                validate_results_files(repo.main, source, policy=policy, limits=REPO_LIMITS)
            )
        ]
        layers.extend(
            ResultsLayer(
                validate_results_files(change.files, source, policy=policy),
                pr=change.num,
                removed=frozenset(change.removed),
            )
            for change in repo.prs
        )
    except HubError as error:
        raise _hub_failed(args, error) from error
    return layers


def _hub_target(args: argparse.Namespace) -> bool:
    """Whether TARGET is a Hub repo; offline, one is refused at once: only the Hub has its
    results, whatever the benchmarks are read from."""
    from huggingface_hub import constants

    from bot.cli.collections_runtime import Refused
    from bot.validation.model import is_repo_id

    if Path(args.target).is_dir() or not is_repo_id(args.target):
        return False
    if args.offline or constants.is_offline_mode():
        why = "--offline" if args.offline else "offline (HF_HUB_OFFLINE is set)"
        raise Refused(gate_texts.OFFLINE_HUB_TARGET.format(why=why, target=args.target))
    return True


def _hub_failed(args: argparse.Namespace, error: Exception) -> Exception:
    """What a Hub target's run says when the Hub failed: what works without it."""
    from bot.cli.collections_runtime import Refused

    benchmarks = "" if args.benchmarks else gate_texts.HUB_FAILED_BENCHMARKS
    return Refused(
        gate_texts.HUB_FAILED.format(problem=error, target=args.target, benchmarks=benchmarks)
    )


def _folder_results(folder: Path, shown: str) -> dict[str, bytes]:
    from bot.cli.collections_runtime import Refused

    results = folder / ".eval_results"
    paths = sorted(results.glob("*.yaml")) if results.is_dir() else []
    if not paths:
        raise Refused(gate_texts.NO_RESULTS.format(target=shown))
    try:
        return {f".eval_results/{path.name}": path.read_bytes() for path in paths}
    except OSError as error:
        raise Refused(f"{shown}: {error.strerror}") from error


def render_github(result: GateResult, target: str) -> str:
    """Workflow commands: the collection's verdict, then each benchmark that is not a plain
    pass. A benchmark that blocks the pass (missing, ambiguous, invalid, or failed under
    `require_all`) is an error, with the reason; one that does not is a warning."""
    from bot.collections.aggregate import Status
    from bot.collections.render import benchmark_line, reason_text, verdict_line
    from bot.report.validation_formats import workflow_data, workflow_property

    collection = result.collection
    level = "notice" if result.passed else "error"
    title = workflow_property(f"collection {collection.id}")
    lines = [f"::{level} title={title}::{workflow_data(f'{target}: {verdict_line(result)}')}"]
    why = {reason.benchmark: reason for reason in result.reasons if reason.benchmark is not None}
    for index, item in enumerate(result.benchmarks):
        if item.status in (Status.PASSED, Status.NOT_GATED):
            continue
        properties = [f"title={workflow_property(item.member.id)}"]
        if item.origin is not None and item.origin.pr is None and Path(target).is_dir():
            path = workflow_property(str(Path(target) / item.origin.path))
            properties.insert(0, f"file={path},line={item.origin.line}")
        reason = why.get(index)
        blocking = reason is not None and reason.blocking
        text = reason_text(result, reason) if reason is not None else benchmark_line(item)
        lines.append(
            f"::{'error' if blocking else 'warning'} {','.join(properties)}::{workflow_data(text)}"
        )
    return "\n".join(lines)
