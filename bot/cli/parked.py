"""`evalbot parked [--limit N] [--json]`: the events the workers gave up on, newest first."""

from __future__ import annotations

import argparse
import json
import sys

from bot.cli import command_texts
from bot.cli.formats import add_format_option, wants_json


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "parked", help=command_texts.PARKED_HELP, description=command_texts.PARKED_DESCRIPTION
    )
    parser.add_argument("--limit", type=int, default=20, help=command_texts.PARKED_LIMIT_HELP)
    add_format_option(parser, help_json=command_texts.PARKED_JSON_HELP)
    parser.set_defaults(run=run, needs_server=True)


def run(args: argparse.Namespace) -> int:
    import redis

    from bot.cli.ops import connect, describe
    from bot.store.deadletters import parked_count, parked_events

    if args.limit < 1:
        print("evalbot parked: --limit must be at least 1", file=sys.stderr)
        return 2
    connected = connect("parked")
    if connected is None:
        return 2
    _, client = connected
    try:
        total = parked_count(client)
        events = parked_events(client, args.limit)
    except redis.RedisError as error:
        print(command_texts.REDIS_FAILED.format(command="parked", error=error), file=sys.stderr)
        return 2
    finally:
        client.close()
    if wants_json(args, "parked"):
        listing = [{"index": parked.index, **parked.record} for parked in events]
        print(json.dumps(listing, indent=2, ensure_ascii=False))
        return 0
    if not events:
        print(command_texts.PARKED_NONE)
        return 0
    print(command_texts.PARKED_SUMMARY.format(total=total, shown=len(events)))
    for parked in events:
        record = parked.record
        print(
            command_texts.PARKED_LINE.format(
                index=parked.index,
                parked_at=record.get("parked_at", "?"),
                reason=record.get("reason", "?"),
                what=describe(parked),
            )
        )
        detail = str(record.get("detail") or "").strip().splitlines()
        if detail:
            print(command_texts.PARKED_DETAIL.format(detail=detail[-1][:200]))
    return 0
