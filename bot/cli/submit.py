"""`evalbot submit`: signed results, from results files or a framework's output, sent by a CI job
to one PR on the model repo (docs/frameworks.md, "3. What `evalbot submit` does")."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli.sources import add_conversion_options, hub_offline

if TYPE_CHECKING:
    from bot.submit.converted import ConvertedOutput

SUBMIT_OFFLINE_HELP = (
    "ask the Hub nothing, exactly as HF_HUB_OFFLINE=1 does (with --dry-run: benchmarks from the"
    " Hugging Face cache or --benchmarks DIR, main's files unread unless --base gives them)"
)
#: `--from` value for a results YAML; any other value names a converter.
RESULTS = "results"
RESULTS_SUFFIXES = (".yaml", ".yml")


class _Stop(Exception):
    """Stop with this exit status; the message is already printed."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "submit",
        help="get verify tokens from an issuer and open the results PR",
        description=(
            "Read result entries from RESULTS (a results YAML, or a framework's output converted "
            "as `evalbot convert` does), obtain one verify token per entry from the issuer "
            "using this CI job's identity (GitHub Actions OIDC, EVALBOT_ID_TOKEN, OAuth client "
            "credentials, or the read-only Hub token --hub-identity names), write "
            ".eval_results/<benchmark>.yaml merged with the repo's main, and open a PR (a "
            "re-run with the same results, or the same --pr-key, updates it). HF_TOKEN opens "
            "the PR and is never sent to the issuer."
        ),
    )
    parser.add_argument(
        "results",
        type=Path,
        nargs="+",
        metavar="RESULTS",
        help="results YAMLs (.yaml/.yml), or a framework's outputs (lm-eval results JSON, "
        "inspect-ai log, lighteval, EvalScope, Every Eval Ever); all go to one PR",
    )
    parser.add_argument("--model-repo", required=True, metavar="ID")
    parser.add_argument(
        "--issuer",
        metavar="URL",
        help="the issuer's URL (default: $EVALBOT_ISSUER_URL); not needed with --dry-run",
    )
    parser.add_argument("--audience", metavar="AUD", help="default: the issuer's metadata")
    parser.add_argument(
        "--framework", metavar="NAME", help="framework to vouch for when entries state none"
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="replace entries on main with the same benchmark, task and notes",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the files it would propose, with a placeholder for each token; ask the "
        "issuer nothing (a single-use ID token stays unspent; no --issuer needed) and open no "
        "PR. With --offline (HF_HUB_OFFLINE=1) the Hub is not asked either: each file is then "
        "shown as its new entries only, saying that main's copy was not read, unless --base "
        "gives one",
    )
    parser.add_argument(
        "--base",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="with --dry-run: a local copy of main's results file of the same name (e.g. "
        "hle_mini.yaml) to merge into instead of reading main's from the Hub; repeat for "
        "several files",
    )
    parser.add_argument(
        "--hub-identity",
        metavar="VAR",
        help="identify the job to the issuer with the Hub token in the environment variable "
        "VAR (a read-only token registered as `hub_user`). "
        "Without it no Hub token is sent to the issuer",
    )
    parser.add_argument(
        "--pr-key",
        metavar="KEY",
        help="one PR per KEY (e.g. the CI job's name): a run with the same KEY updates that "
        "PR; default: one PR per model repo and set of results (benchmark, task, notes)",
    )
    converted = parser.add_argument_group("framework outputs (as `evalbot convert`)")
    converted.add_argument(
        "--from",
        dest="source_format",
        metavar="NAME",
        help="`results` for a results YAML, or a converter (lm-eval, inspect-ai, lighteval, "
        "evalscope, eee); default: by the file's suffix, then its content",
    )
    add_conversion_options(converted, offline_help=SUBMIT_OFFLINE_HELP)
    converted.add_argument(
        "--allow-partial", action="store_true", help="submit results of failed or partial runs"
    )
    converted.add_argument(
        "--model-revision",
        metavar="SHA",
        help="the evaluated model's commit, when the output records none",
    )
    parser.set_defaults(run=run)


def is_results_yaml(path: Path, source_format: str | None) -> bool:
    """`--from results`, or no `--from` and a `.yaml`/`.yml` name: the unchanged YAML path."""
    if source_format is not None:
        return source_format == RESULTS
    return path.suffix.lower() in RESULTS_SUFFIXES


def trusted_publishing(environ: MutableMapping[str, str], model_repo: str) -> None:
    """With no `HF_TOKEN`, a job that can mint an OIDC ID token (GitHub Actions with
    `permissions: id-token: write`, or `HF_OIDC_ID_TOKEN` from another provider) opens the PR
    through Trusted Publishers: `HF_OIDC_RESOURCE` is set to the model repo, and
    huggingface_hub exchanges the ID token for a token scoped to it (`bot.submit.api`)."""
    if environ.get("HF_TOKEN") or environ.get("HF_OIDC_RESOURCE"):
        return
    github = environ.get("GITHUB_ACTIONS") == "true" and environ.get("ACTIONS_ID_TOKEN_REQUEST_URL")
    if github or environ.get("HF_OIDC_ID_TOKEN"):
        environ["HF_OIDC_RESOURCE"] = model_repo


def run(args: argparse.Namespace) -> int:
    """`--offline` is `HF_HUB_OFFLINE=1` for the whole run, whatever reads the Hub."""
    with hub_offline(args.offline):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from bot.hub.errors import HubError
    from bot.hub.timeouts import use_hub_timeout_from_env
    from bot.settings import SettingsError
    from bot.submit import SubmitError, submit
    from bot.submit.errors import BaseUnmatched, HubUnreachable
    from bot.submit.issuerclient import check_issuer_url

    issuer = args.issuer or os.environ.get("EVALBOT_ISSUER_URL") or None
    if issuer is None and not args.dry_run:
        print(
            "evalbot submit: pass --issuer URL or set EVALBOT_ISSUER_URL "
            "(a --dry-run needs no issuer)",
            file=sys.stderr,
        )
        return 2
    if args.offline and not args.dry_run:
        print(
            "evalbot submit: --offline asks the Hub nothing, as HF_HUB_OFFLINE=1 does, so no PR"
            " can be opened; add --dry-run to see the files it would propose",
            file=sys.stderr,
        )
        return 2
    if args.base and not args.dry_run:
        print(
            "evalbot submit: --base is for --dry-run only: a submission merges into main's "
            "files as the Hub has them",
            file=sys.stderr,
        )
        return 2
    try:
        if issuer is not None:
            check_issuer_url(issuer)
        bases = _read_bases(args.base)
    except SubmitError as error:
        print(f"evalbot submit: {error}", file=sys.stderr)
        return 2
    try:
        use_hub_timeout_from_env(os.environ)  # a CI job must not hang on a silent Hub
    except SettingsError as error:
        print(f"evalbot submit: {error}", file=sys.stderr)
        return 2
    trusted_publishing(os.environ, args.model_repo)
    try:
        entries = _read_all(args)
    except _Stop as stop:
        return stop.status
    try:
        outcome = submit(
            entries,
            model_repo=args.model_repo,
            issuer_url=issuer,
            audience=args.audience,
            framework=args.framework,
            replace=args.replace,
            dry_run=args.dry_run,
            allow_partial=args.allow_partial,
            model_revision=args.model_revision,
            pr_key=args.pr_key,
            hub_identity=args.hub_identity,
            base=bases,
        )
    except HubUnreachable as error:
        print(f"evalbot submit: {error}{DRY_RUN_FIX if args.dry_run else ''}", file=sys.stderr)
        return 2
    except BaseUnmatched as error:
        print(f"evalbot submit: --base: {error}", file=sys.stderr)
        return 2
    except SubmitError as error:
        print(f"evalbot submit: {error}", file=sys.stderr)
        return 1
    except HubError as error:  # not expected: `submit` turns Hub failures into SubmitError
        print(f"evalbot submit: the Hub failed: {error}", file=sys.stderr)
        return 2
    if args.dry_run:
        _print_proposal(outcome.files, outcome.unread, "--offline" if args.offline else None)
        return 0
    verb = "updated" if outcome.updated else "opened"
    print(f"{verb} {outcome.pr_url}")
    return 0


#: Appended to a dry run's "the Hub is unavailable" line: how to try it without the Hub.
DRY_RUN_FIX = (
    "; or try the dry run without the Hub: HF_HUB_OFFLINE=1 (with --benchmarks DIR for a "
    "framework's output), and --base FILE for main's copy"
)
#: The header of a dry run's file whose copy on main was not read (offline, no --base).
UNREAD_HEADER = "# {path}: only the entries this submission adds; main's file was not read"
UNREAD_NOTICE = (
    "evalbot submit: {why}: main's {path} was not read, so it is shown as the "
    "new entries only, not as the PR would hold it; --base FILE merges them into a copy of it"
)


def _print_proposal(files: dict[str, str], unread: tuple[str, ...], flag: str | None) -> None:
    """A dry run's files on stdout, each under a `# PATH` header; one not merged with main's
    copy (offline) says so in its header, and a notice on stderr says why and what to do."""
    for path, text in sorted(files.items()):
        header = UNREAD_HEADER.format(path=path) if path in unread else f"# {path}"
        print(f"{header}\n{text}", end="" if text.endswith("\n") else "\n")
    for path in unread:
        why = f"{flag} is given" if flag else "HF_HUB_OFFLINE is set"
        print(UNREAD_NOTICE.format(path=path, why=why), file=sys.stderr)


def _read_bases(paths: list[Path]) -> dict[str, str]:
    """`--base` files by the repo path each stands for (`.eval_results/<its name>`)."""
    from bot.cli.sources import EVAL_RESULTS
    from bot.submit import SubmitError

    bases: dict[str, str] = {}
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise SubmitError(f"--base {path}: cannot read it ({error})") from error
        bases[f"{EVAL_RESULTS}/{path.name}"] = text
    return bases


def _read_all(args: argparse.Namespace) -> list[dict[str, Any] | ConvertedOutput]:
    """Every RESULTS file's entries, or its conversion; each refused file is named, and any
    refusal stops the submission after all files were read (a job's log then lists them all).
    A usage or I/O error stops at once (status 2)."""
    parts: list[dict[str, Any] | ConvertedOutput] = []
    converter: _Converter | None = None
    refused = []
    for path in args.results:
        if is_results_yaml(path, args.source_format):
            parts.extend(_read_yaml(path))
            continue
        converter = converter or _Converter(args)
        converted = converter.convert(path)
        if converted is None:
            refused.append(str(path))
        else:
            parts.append(converted)
    if refused:
        if len(args.results) > 1:
            print(f"evalbot submit: refused: {', '.join(refused)}", file=sys.stderr)
        raise _Stop(1)
    return parts


def _read_yaml(path: Path) -> list[dict[str, Any]]:
    from bot.submit import SubmitError
    from bot.submit.api import read_entries

    try:
        return read_entries(path)
    except SubmitError as error:
        print(f"evalbot submit: {error}", file=sys.stderr)
        raise _Stop(2) from error


class _Converter:
    """Converts outputs as `evalbot convert` would, with one mapping table and one benchmark
    source for all of them."""

    def __init__(self, args: argparse.Namespace) -> None:
        from bot.cli.sources import UsageError, benchmark_source, bot_config, mapping_table

        self.args = args
        try:
            self.table = mapping_table(args.mappings, "evalbot submit")
            self.source = benchmark_source(args.benchmarks, offline=args.offline)
            self.policy = bot_config().policy
        except UsageError as error:
            print(str(error).replace("evalbot validate", "evalbot submit"), file=sys.stderr)
            raise _Stop(2) from error

    def convert(self, path: Path) -> ConvertedOutput | None:
        """The output's conversion; None, its findings printed, where `evalbot convert`
        would write nothing."""
        from bot.cli.sources import UsageError, source_info
        from bot.convert.api import entries_from, read_input
        from bot.convert.findings import findings
        from bot.convert.registry import ConvertError
        from bot.hub.errors import HubError
        from bot.submit.converted import ConvertedOutput

        args = self.args
        try:
            conversion = entries_from(
                read_input(path),
                filename=str(path),
                benchmarks=self.source,
                mappings=self.table,
                framework=args.source_format,
                source_info=source_info(args),
                policy=self.policy,
            )
        except OSError as error:
            print(f"evalbot submit: {path}: {error.strerror}", file=sys.stderr)
            raise _Stop(2) from error
        except (UsageError, ConvertError) as error:
            print(str(error).replace("evalbot validate", "evalbot submit"), file=sys.stderr)
            raise _Stop(2) from error
        except HubError as error:
            raise _Stop(_benchmarks_failed(path, error, offline=args.offline)) from error
        for line in findings(
            conversion, allow_partial=args.allow_partial, all_suggestions=args.all_suggestions
        ):
            print(line, file=sys.stderr)
        if not conversion.ok(allow_partial=args.allow_partial):
            print(f"evalbot submit: {path}: nothing submitted", file=sys.stderr)
            return None
        if not conversion.entries:
            print(f"evalbot submit: {path}: no score is mapped: nothing to submit", file=sys.stderr)
            return None
        return ConvertedOutput(str(path), conversion)


def _benchmarks_failed(path: Path, error: Exception, *, offline: bool) -> int:
    """Say on one line that the benchmarks of `path` could not be read from the Hub; the exit
    status: 2 when the Hub did not answer (offline, unreachable, a 5xx), 1 when it refused."""
    from huggingface_hub import constants

    from bot.hub.cached_benchmarks import BenchmarkNotCached
    from bot.hub.errors import HubTransientError
    from bot.submit.errors import hub_failure

    if isinstance(error, BenchmarkNotCached):  # offline: what the cache lacks, how to go on
        why = "--offline" if offline else "HF_HUB_OFFLINE is set"
        print(
            f"evalbot submit: {path}: cannot read its benchmarks: offline ({why}), and {error};"
            " run once with the Hub reachable to cache them, or pass --benchmarks DIR to read"
            " them from a folder",
            file=sys.stderr,
        )
        return 2
    doing = f"{path}: cannot read its benchmarks from the Hub"
    failure = hub_failure(error, constants.ENDPOINT, doing, then="nothing was submitted")
    fix = (
        "; or pass --offline to read those an earlier run cached, or --benchmarks DIR to read"
        " them from a folder"
    )
    print(f"evalbot submit: {failure or error}{fix}", file=sys.stderr)
    return 2 if isinstance(error, HubTransientError) else 1
