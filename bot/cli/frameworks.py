"""`evalbot frameworks list|refresh`: the user's copy of the Hub's evaluation-framework list
(docs/validate.md, "Evaluation frameworks")."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

#: The most `refresh` reads from its source: eval.ts is about 10 KiB.
MAX_SOURCE_BYTES = 1024 * 1024


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from bot.validation.frameworks import DEFAULT_SOURCE

    parser = subparsers.add_parser(
        "frameworks", help="show or refresh the Hub's list of evaluation frameworks"
    )
    actions = parser.add_subparsers(dest="frameworks_command", metavar="ACTION", required=True)
    show = actions.add_parser("list", help="print the known framework ids, source and date")
    show.set_defaults(run=run_list)
    refresh = actions.add_parser(
        "refresh",
        help="rewrite the list from huggingface.js's eval.ts",
        description=(
            "Read EVALUATION_FRAMEWORKS from huggingface.js packages/tasks/src/eval.ts (a URL "
            "or a local file) and write the bot's copy of the list."
        ),
    )
    refresh.add_argument(
        "--source", default=DEFAULT_SOURCE, help="URL or file of eval.ts (default: %(default)s)"
    )
    refresh.add_argument(
        "--output",
        type=Path,
        default=None,
        metavar="FILE",
        help="where to write the list (default: evalbot's folder in your cache, which every"
        " later command reads)",
    )
    refresh.add_argument(
        "--timeout", type=float, default=30.0, help="seconds to wait for the URL (default 30)"
    )
    refresh.set_defaults(run=run_refresh)


def run_list(args: argparse.Namespace) -> int:
    from bot.adapters.frameworks_file import use_freshest
    from bot.validation.frameworks import current

    copy = use_freshest()
    known = current()
    for name in known.names:
        print(name)
    where = f"your refreshed copy {copy}" if copy else "the list shipped with evalbot"
    print(
        f"{len(known.names)} frameworks, from {known.source}, refreshed {known.refreshed}"
        f" ({where})",
        file=sys.stderr,
    )
    return 0


def run_refresh(args: argparse.Namespace) -> int:
    from bot.adapters.frameworks_file import use_freshest, user_list_path
    from bot.validation.frameworks import FrameworkList, FrameworkListError, current, parse_eval_ts

    source: str = args.source
    try:
        text = _read(source, timeout=args.timeout)
        names = parse_eval_ts(text)
    except (OSError, ValueError, FrameworkListError) as error:
        print(f"evalbot frameworks refresh: {source}: {error}", file=sys.stderr)
        return 2
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    fresh = FrameworkList(names=names, source=source, refreshed=today)
    use_freshest()
    known = current()
    output: Path = args.output or user_list_path()
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(fresh.to_json(), indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        print(f"evalbot frameworks refresh: cannot write {output}: {error}", file=sys.stderr)
        return 2
    added = sorted(set(names) - set(known.names))
    removed = sorted(set(known.names) - set(names))
    print(f"{output}: {len(names)} frameworks", end="")
    print(f"; added {', '.join(added)}" if added else "", end="")
    print(f"; removed {', '.join(removed)}" if removed else "")
    return 0


def _read(source: str, *, timeout: float) -> str:
    """The text of eval.ts from a URL (bounded in time and size) or a file."""
    if not source.startswith(("http://", "https://")):
        with Path(source).open("rb") as handle:
            return _decode(handle.read(MAX_SOURCE_BYTES + 1))
    import httpx2

    try:
        with httpx2.stream("GET", source, timeout=timeout, follow_redirects=True) as response:
            if response.status_code != 200:
                raise ValueError(f"answered HTTP {response.status_code}")
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_SOURCE_BYTES:
                    break
    except httpx2.HTTPError as error:
        raise ValueError(f"{type(error).__name__}: {error or 'no answer in time'}") from error
    return _decode(body)


def _decode(body: bytes) -> str:
    if len(body) > MAX_SOURCE_BYTES:
        raise ValueError(f"larger than {MAX_SOURCE_BYTES} bytes: not eval.ts")
    return body.decode("utf-8")
