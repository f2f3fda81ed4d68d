"""`evalbot replay (--all | --index N)`: queue parked events again, each moved from the dead-letter
list to the ledger in one atomic step (docs/operating.md, "Parked events")."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from bot.cli import command_texts

if TYPE_CHECKING:
    import redis


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay", help=command_texts.REPLAY_HELP, description=command_texts.REPLAY_DESCRIPTION
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help=command_texts.REPLAY_ALL_HELP)
    which.add_argument("--index", type=int, metavar="N", help=command_texts.REPLAY_INDEX_HELP)
    parser.set_defaults(run=run, needs_server=True)


def run(args: argparse.Namespace) -> int:
    import redis

    from bot.cli.ops import connect

    if args.index is not None and args.index < 0:
        print("evalbot replay: --index must be 0 or more", file=sys.stderr)
        return 2
    connected = connect("replay")
    if connected is None:
        return 2
    _, client = connected
    try:
        return _replay(client, args.index)
    except redis.RedisError as error:
        print(command_texts.REDIS_FAILED.format(command="replay", error=error), file=sys.stderr)
        return 2
    finally:
        client.close()


def _replay(client: redis.Redis, index: int | None) -> int:
    from bot.cli.ops import describe
    from bot.store.deadletters import ReplayOutcome, parked_events, replay

    chosen = parked_events(client)
    if index is not None:
        if index >= len(chosen):
            print(
                command_texts.REPLAY_NO_SUCH_INDEX.format(index=index, total=len(chosen)),
                file=sys.stderr,
            )
            return 1
        chosen = [chosen[index]]
    replayed = kept = 0
    # Oldest first, so the queue sees the events in the order they first happened.
    for parked in reversed(chosen):
        outcome = replay(client, parked)
        if outcome is ReplayOutcome.REPLAYED:
            replayed += 1
            print(command_texts.REPLAY_DONE.format(index=parked.index, what=describe(parked)))
        elif outcome is ReplayOutcome.GONE:
            kept += 1
            print(command_texts.REPLAY_GONE.format(index=parked.index), file=sys.stderr)
        else:
            kept += 1
            reason = parked.record.get("reason", "?")
            print(command_texts.REPLAY_NOT_AN_EVENT.format(index=parked.index, reason=reason))
    print(command_texts.REPLAY_SUMMARY.format(replayed=replayed, kept=kept))
    return 0 if kept == 0 else 1
