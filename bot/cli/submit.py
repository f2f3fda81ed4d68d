"""`evalbot submit`: signed results from a CI job to one PR on the model repo (docs/frameworks.md).

Exit status: 0 the PR was opened or updated (or the dry run printed its files), 1 the issuer
or the Hub refused (the reason, and the issuer's request id, are printed), 2 usage or I/O.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "submit",
        help="get verify tokens from an issuer and open the results PR",
        description=(
            "Read result entries from RESULTS (YAML), obtain one verify token per entry from "
            "the issuer using this CI job's identity (GitHub Actions OIDC, EVALBOT_ID_TOKEN, "
            "or HF_TOKEN), write .eval_results/<benchmark>.yaml merged with the repo's main, "
            "and open a PR (a re-run updates it). HF_TOKEN opens the PR."
        ),
    )
    parser.add_argument("results", type=Path, metavar="RESULTS", help="a results YAML file")
    parser.add_argument("--model-repo", required=True, metavar="ID")
    parser.add_argument(
        "--issuer", metavar="URL", help="the issuer's URL (default: $EVALBOT_ISSUER_URL)"
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
        "--dry-run", action="store_true", help="print the files it would propose; open no PR"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bot.submit import SubmitError, submit
    from bot.submit.api import read_entries

    issuer = args.issuer or os.environ.get("EVALBOT_ISSUER_URL")
    if not issuer:
        print("evalbot submit: pass --issuer URL or set EVALBOT_ISSUER_URL", file=sys.stderr)
        return 2
    try:
        entries = read_entries(args.results)
    except SubmitError as error:
        print(f"evalbot submit: {error}", file=sys.stderr)
        return 2
    try:
        outcome = submit(
            entries,
            model_repo=args.model_repo,
            issuer_url=issuer,
            audience=args.audience,
            framework=args.framework,
            replace=args.replace,
            dry_run=args.dry_run,
        )
    except SubmitError as error:
        print(f"evalbot submit: {error}", file=sys.stderr)
        return 1
    if args.dry_run:
        for path, text in sorted(outcome.files.items()):
            print(f"# {path}\n{text}", end="" if text.endswith("\n") else "\n")
        return 0
    verb = "updated" if outcome.updated else "opened"
    print(f"{verb} {outcome.pr_url}")
    return 0
