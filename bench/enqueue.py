"""The receiver's enqueue alone: CPU per delivery of `RedisEnqueuer` against a real redis-server.

The full receiver benchmark (bench/receiver.py) measures latency, which a shared, loaded
machine swings by orders of magnitude; CPU time spent per delivery is far steadier, and it is
what decides how many deliveries one receiver core can take. This drives `RedisEnqueuer` with
N concurrent deliveries at a time (so group commit batches them as under load) and prints
the process CPU per delivery (the sending thread's included) and the batches' mean size.
Every event is distinct, so every one is queued. Run: `.venv/bin/python bench/enqueue.py`
(PYTHONPATH=<tree> to measure another checkout of the receiver).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bot.queue.publishing
from bench.timing import report
from bot.queue.events import DedupeKey, PrEvent
from bot.queue.publishing import RedisEnqueuer
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
    enqueuer = RedisEnqueuer.from_url(url, queue="evalbot")
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


def main() -> None:
    # Every message sent by the receiver itself (none left to the workers' sweep of the ledger),
    # however far the sending thread falls behind the bench's bursts.
    bot.queue.publishing.MAX_UNSENT = DELIVERIES
    with tempfile.TemporaryDirectory() as directory:
        server = RedisServer(Path(directory)).start()
        try:
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
