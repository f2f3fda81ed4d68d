"""`evalbot status`: are workers consuming? Heartbeats, queue, parked, Hub pause, in one Redis
read (docs/operating.md, "Is a worker consuming?")."""

from __future__ import annotations

import argparse
import json
import sys

from bot.cli import command_texts
from bot.cli.formats import add_format_option, wants_json


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "status", help=command_texts.STATUS_HELP, description=command_texts.STATUS_DESCRIPTION
    )
    add_format_option(parser, help_json=command_texts.STATUS_JSON_HELP)
    parser.set_defaults(run=run, needs_server=True)


def run(args: argparse.Namespace) -> int:
    import redis

    from bot.cli.ops import connect
    from bot.queue.publishing import QUEUE
    from bot.store.heartbeats import read_fleet_status

    connected = connect("status")
    if connected is None:
        return 2
    _, client = connected
    try:
        status = read_fleet_status(client, QUEUE)
    except redis.RedisError as error:
        print(command_texts.REDIS_FAILED.format(command="status", error=error), file=sys.stderr)
        return 2
    finally:
        client.close()
    alive = len(status.alive)
    if wants_json(args, "status"):
        print(json.dumps(status.to_json(), indent=2))
        return 0 if alive else 1
    print(command_texts.STATUS_WORKERS.format(alive=alive, dead=len(status.workers) - alive))
    for worker in status.workers:
        print(
            command_texts.STATUS_WORKER.format(
                state="alive" if worker.alive else "dead",
                id=worker.id,
                age=worker.age_s,
                dead_after=worker.dead_after_s,
                held=worker.held,
            )
        )
    if not status.workers:
        print(command_texts.STATUS_NO_WORKERS)
    print(command_texts.STATUS_QUEUE.format(queued=status.queue_length, unacked=status.unacked))
    print(command_texts.STATUS_PARKED.format(parked=status.parked))
    pause = command_texts.STATUS_NOT_PAUSED
    if status.hub_paused_s:
        pause = f"{status.hub_paused_s:.1f} s left"
    print(command_texts.STATUS_PAUSE.format(pause=pause))
    if not alive:
        print(command_texts.STATUS_NONE_ALIVE, file=sys.stderr)
        return 1
    return 0
