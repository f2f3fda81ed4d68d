"""The receiver's enqueue alone: CPU per delivery of `RedisEnqueuer` against a real redis-server.

The full receiver benchmark (bench/receiver.py) measures latency, which a shared, loaded
machine swings by orders of magnitude; CPU time spent per delivery is far steadier, and it is
what decides how many deliveries one receiver core can take. This drives `RedisEnqueuer` with
N concurrent deliveries at a time (so group commit batches them as under load) and prints
the process CPU per delivery (the sending thread's included) and the batches' mean size.
Every event is distinct, so every one is queued. Run: `.venv/bin/python bench/enqueue.py`
(PYTHONPATH=<tree> to measure another checkout of the receiver).

`--rates 100,500` instead offers deliveries open loop at each rate (each started at its time,
not after the one before, as the Hub's deliveries arrive) and prints how many sends the
enqueuer made per second and how many messages each carried: whether messages still go out
in batches under load.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest.mock import patch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bot.queue.enqueuer
from bench.timing import report
from bot.queue.enqueuer import RedisEnqueuer
from bot.queue.events import DedupeKey, PrEvent
from bot.queue.publishing import Outgoing, send_or_leave
from evalbot_dev.devstack.redis import RedisServer

DELIVERIES = 4000
ROUNDS = 5


def event(number: int) -> PrEvent:
    return PrEvent(
        kind="updated",
        repo_id="acme/llama-9b",
        pr_num=1 + number % 500,
        delivery_id=f"bench-{number}",
        received_at="2026-11-24T00:00:00.000Z",
        head_sha="0123456789abcdef0123456789abcdef01234567",
    )


async def drive(url: str, concurrency: int, offset: int) -> float:
    """CPU seconds of this process for DELIVERIES enqueues, `concurrency` in flight at once."""
    enqueuer = RedisEnqueuer(url, queue="evalbot")
    await enqueuer.ready()  # connect outside the measurement
    started = time.process_time()
    for first in range(offset, offset + DELIVERIES, concurrency):
        await asyncio.gather(
            *(
                enqueuer.enqueue(event(n), DedupeKey(f"bench:{n}", 600))
                for n in range(first, first + concurrency)
            )
        )
    await enqueuer.close()  # the sending thread's work is counted: close waits for it
    return time.process_time() - started


#: Messages per send, one entry per send the enqueuer made (`count_sends`).
SENDS: list[int] = []


def count_sends() -> None:
    """Count each send of the enqueuer (and its messages) around the real one."""

    def counted(app: Any, messages: Sequence[Outgoing]) -> bool:
        SENDS.append(len(messages))
        return send_or_leave(app, messages)

    patch.object(bot.queue.enqueuer, "send_or_leave", counted).start()


async def drive_open_loop(url: str, rate: float, seconds: float, offset: int) -> tuple[float, int]:
    """CPU seconds of this process for `rate x seconds` enqueues, each started at its time."""
    enqueuer = RedisEnqueuer(url, queue="evalbot")
    await enqueuer.ready()
    loop = asyncio.get_running_loop()
    count = int(rate * seconds)
    started, cpu = loop.time(), time.process_time()
    waiting = []
    for index in range(count):
        delay = started + index / rate - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)  # pacing the load generator
        number = offset + index
        waiting.append(
            asyncio.ensure_future(
                enqueuer.enqueue(event(number), DedupeKey(f"bench:{number}", 600))
            )
        )
    await asyncio.gather(*waiting)
    await enqueuer.close()
    return time.process_time() - cpu, count


def open_loop(url: str, rates: list[float], seconds: float) -> None:
    count_sends()
    offset = 0
    for rate in rates:
        SENDS.clear()
        cpu_s, count = asyncio.run(drive_open_loop(url, rate, seconds, offset))
        offset += count
        print(
            f"{rate:>7,.0f} deliveries/s for {seconds:g} s: {len(SENDS) / seconds:6.1f} sends/s, "
            f"{sum(SENDS) / max(1, len(SENDS)):6.1f} messages per send, "
            f"CPU {cpu_s / count * 1e6:6.0f} us per delivery (the generator's included)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rates",
        type=lambda text: [float(part) for part in text.split(",") if part],
        metavar="R1,R2,...",
        help="open loop at these deliveries/s: sends per second and messages per send",
    )
    parser.add_argument("--seconds", type=float, default=4.0, help="per rate, with --rates")
    args = parser.parse_args()
    # Every message sent by the receiver itself (none left to the workers' sweep of the ledger),
    # however far the sending thread falls behind the bench's bursts.
    bot.queue.enqueuer.MAX_UNSENT = DELIVERIES
    with tempfile.TemporaryDirectory() as directory:
        server = RedisServer(Path(directory)).start()
        try:
            if args.rates:
                open_loop(server.url, args.rates, args.seconds)
                return
            offset = 0
            for concurrency in (1, 16, 64):
                samples = []
                for _ in range(ROUNDS):
                    samples.append(asyncio.run(drive(server.url, concurrency, offset)))
                    offset += DELIVERIES
                    server.client().flushall()
                per_delivery_us = statistics.median(samples) / DELIVERIES * 1e6
                report(
                    f"enqueue CPU per delivery, {concurrency} in flight (median of {ROUNDS})",
                    per_delivery_us,
                    "us",
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
