"""Load on the receiver while the workers run: every delivery is a real PR, processed end to end.

Starts the local stack (redis-server with AOF `everysec`, the Hub emulator in this process,
`evalbot serve`, worker processes), creates `rate x seconds` PRs on the emulator (each adding
one results file; the emulator's own webhook is disabled meanwhile so it sends nothing), then
sends one real v3 `discussion/create` delivery per PR to the receiver, open loop at a fixed
rate with bench/receiver.py's generator (latency from each request's scheduled time, so a
receiver that falls behind shows it). The workers process the events while the load runs,
sharing the 2 cores. Then it waits for every PR's comment and reports:

- deliveries/s held at the receiver, ack latency p50/p99/max, non-202 answers;
- events lost (a PR without the bot's comment), duplicate comments, stale comments;
- end to end: time to drain after the load, delivery -> comment latency p50/p99.

    .venv/bin/python bench/load.py [--rate 2000] [--seconds 5]        # the receiver figure
    .venv/bin/python bench/load.py --soak 600 [--rate 60]             # a sustainable soak

A soak runs at a rate the workers keep up with, for a long time, and also reports the
receiver's and workers' memory at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from multiprocessing import get_context
from pathlib import Path

# Before huggingface_hub is imported: no telemetry probe to the real Hub.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import uvloop

from bench.cpus import pin, receiver_pids, redis_pids, worker_pids
from bench.receiver import Result, open_loop, request_bytes
from bench.timing import percentile, processes
from evalbot_dev.devstack.outcomes import Tally, tally
from evalbot_dev.devstack.workload import MODEL, OWNER_TOKEN, Workload, running_workload
from evalbot_dev.emulator import payloads
from evalbot_dev.emulator.state import FileChange, Trigger

ENTRY = "- dataset:\n    id: emulator-samples/gpqa-mini\n    task_id: diamond\n  value: {value}\n"


@dataclass
class LoadResult:
    """What a load run measured; `clean` when nothing was lost, doubled or left stale."""

    offered_rate: float
    receiver: Result
    tally: Tally
    drain_s: float  # from the end of the load to the last comment
    latencies_s: list[float]  # delivery scheduled -> comment created, per PR
    rss_mb: dict[str, tuple[float, float]]  # process -> (start, end)

    @property
    def clean(self) -> bool:
        return self.tally.clean and self.receiver.ok == self.receiver.sent


def create_prs(workload: Workload, count: int) -> list[int]:
    """`count` PRs on the emulator, straight through its state (as its commit route does)."""
    state = workload.stack.hub.state
    token = state.tokens[OWNER_TOKEN]
    nums: list[int] = []
    with state.locked():
        repo = state.find_repo("model", MODEL)
        for index in range(count):
            change = FileChange(
                f".eval_results/load-{index}.yaml",
                ENTRY.format(value=f"{(index % 9000) / 100:.2f}").encode(),
            )
            outcome = state.commit(
                token,
                repo,
                "main",
                [change],
                summary=f"load {index}",
                description="",
                create_pr=True,
            )
            assert outcome.pr_num is not None
            nums.append(outcome.pr_num)
    return nums


def deliveries(workload: Workload, nums: list[int]) -> list[bytes]:
    """The v3 `discussion/create` body of each PR, as the emulator's webhook would send it."""
    state = workload.stack.hub.state
    with state.locked():
        repo = state.find_repo("model", MODEL)
        (webhook,) = state.webhooks.values()
        bodies = []
        for num in nums:
            discussion = state.discussion(repo, num)
            trigger = Trigger("discussion", "create", repo, discussion, discussion.events[0])
            payload = payloads.build(state, trigger, webhook, workload.stack.hub.url)
            bodies.append(json.dumps(payload, separators=(",", ":")).encode())
    return bodies


def set_emulator_webhooks(workload: Workload, enabled: bool) -> None:
    state = workload.stack.hub.state
    with state.locked():
        for webhook in state.webhooks.values():
            webhook.disabled = not enabled


def rss_mb(pid: int) -> float:
    """Resident memory of `pid` and its children (a worker's pool), in MiB."""
    live = processes()
    return (
        sum(stat.rss_bytes for child, stat in live.items() if pid in (child, stat.parent)) / 2**20
    )


def generate(
    port: int,
    rate: float,
    seconds: float,
    connections: int,
    requests: list[bytes],
    *,
    cpus: set[int] | None = None,
) -> Result:
    """bench/receiver.py's open-loop generator, sending `requests[index]` as delivery `index`."""
    if cpus is not None:
        os.sched_setaffinity(0, cpus)
    return uvloop.run(
        open_loop(port, rate, seconds, "load", connections, request=requests.__getitem__)
    )


def split_cores(workload: Workload) -> tuple[set[int], set[int]]:
    """Give the receiver, Redis and the load generator core 0, and the workers, the emulator
    and everything else in this process core 1, as two containers with a CPU each would be
    (docs/reliability.md, "Load"). Returns (receiver side, worker side)."""
    front, back = {0}, {1}
    for pid in receiver_pids(workload) | redis_pids(workload):
        pin(pid, front)
    for pid in worker_pids(workload):
        pin(pid, back)
    pin(os.getpid(), back)  # this process: the emulator's server and webhook threads
    return front, back


def renice_workers(workload: Workload, niceness: int) -> None:
    """Lower the workers' CPU priority (each worker and its pool children), so the receiver's
    acks win the cores when both are busy (docs/reliability.md, "Load")."""
    for pid in worker_pids(workload):
        os.setpriority(os.PRIO_PROCESS, pid, niceness)


def stack_pids(workload: Workload) -> dict[str, int]:
    pids = {}
    if workload.stack.receiver is not None:
        pids["receiver"] = workload.stack.receiver.pid
    for index, worker in enumerate(workload.stack.workers):
        pids[f"worker{index}"] = worker.pid
    return pids


def run_load(
    workload: Workload,
    *,
    rate: float,
    seconds: float,
    connections: int = 64,
    drain_timeout: float = 900,
    generator_cpus: set[int] | None = None,
    progress: Callable[[str], None] = print,
) -> LoadResult:
    """Offer `rate` deliveries/s for `seconds`, one PR each, and judge the outcome."""
    count = int(rate * seconds)
    set_emulator_webhooks(workload, enabled=False)
    try:
        nums = create_prs(workload, count)
    finally:
        set_emulator_webhooks(workload, enabled=True)
    bodies = deliveries(workload, nums)
    port = workload.stack.receiver_port
    secret = workload.stack.secret
    workload.wait_settled()
    pids = stack_pids(workload)
    rss_start = {name: rss_mb(pid) for name, pid in pids.items()}
    progress(f"  {count} PRs created; offering {rate:,.0f} deliveries/s for {seconds:g} s ...")

    requests = [
        request_bytes(port, f"load-{num}", body, secret)
        for num, body in zip(nums, bodies, strict=True)
    ]
    # The generator runs in a process of its own: in this one it would share the GIL with the
    # emulator's server threads and measure their stalls as the receiver's latency.
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        result = pool.submit(
            generate, port, rate, seconds, connections, requests, cpus=generator_cpus
        ).result()
    load_end = datetime.now(UTC)
    outcomes = workload.wait_reported(nums, timeout=drain_timeout)
    workload.wait_settled()
    outcomes = workload.outcomes(nums)  # again, now that nothing more can happen
    rss_end = {name: rss_mb(pid) for name, pid in pids.items()}
    first = datetime.fromtimestamp(result.started_at, UTC)
    scheduled = {num: first + timedelta(seconds=i / rate) for i, num in enumerate(nums)}
    latencies = [
        (o.first_report_at - scheduled[o.num]).total_seconds()
        for o in outcomes
        if o.first_report_at is not None
    ]
    last = max(o.first_report_at for o in outcomes if o.first_report_at is not None)
    return LoadResult(
        offered_rate=rate,
        receiver=result,
        tally=tally(outcomes),
        drain_s=max(0.0, (last - load_end).total_seconds()),
        latencies_s=latencies,
        rss_mb={name: (rss_start[name], rss_end[name]) for name in pids},
    )


def print_result(result: LoadResult) -> None:
    r = result.receiver
    print(
        f"  receiver: held {r.per_second:,.0f}/s of {result.offered_rate:,.0f}/s offered; ack "
        f"p50 {r.p50_ms:.2f} ms, p99 {r.p99_ms:.2f} ms, max {r.max_ms:.1f} ms; "
        f"202s {r.ok}/{r.sent}; load generator used {r.client_cpu:.0%} of a core"
    )
    t = result.tally
    print(
        f"  end to end: {t.prs} PRs, lost {len(t.lost)}, duplicate comments "
        f"{len(t.duplicated)}, stale {len(t.stale)}; drained {result.drain_s:.1f} s after the "
        f"load; delivery -> comment p50 {percentile(result.latencies_s, 0.5) * 1000:.0f} ms, "
        f"p99 {percentile(result.latencies_s, 0.99) * 1000:.0f} ms"
    )
    memory = ", ".join(f"{k} {a:.0f} -> {b:.0f} MiB" for k, (a, b) in result.rss_mb.items())
    print(f"  memory (RSS with children): {memory}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, help="deliveries/s (default 2000; soak: 60)")
    parser.add_argument("--seconds", type=float, default=5, help="load duration")
    parser.add_argument("--soak", type=float, metavar="SECONDS", help="a long run at --rate")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument(
        "--nice-workers", type=int, default=0, help="run the workers at this niceness (0-19)"
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        help="the stack's EVALBOT_LOG_LEVEL (default INFO: production's, a line per delivery)",
    )
    parser.add_argument(
        "--split-cores",
        action="store_true",
        help="receiver, Redis and the load generator on core 0; workers and emulator on core 1",
    )
    args = parser.parse_args()
    seconds = args.soak or args.seconds
    rate = args.rate or (60.0 if args.soak else 2000.0)
    print(
        f"machine: {os.cpu_count()} cores; receiver: `evalbot serve` (1 process); "
        f"{args.workers} worker process(es) x concurrency {args.concurrency}; "
        "Redis AOF everysec; emulator in this process"
    )
    with (
        tempfile.TemporaryDirectory(prefix="evalbot-load-") as work_dir,
        running_workload(
            Path(work_dir),
            workers=args.workers,
            concurrency=args.concurrency,
            env={"EVALBOT_LOG_LEVEL": args.log_level},
        ) as workload,
    ):
        generator_cpus = None
        if args.split_cores:
            generator_cpus, _ = split_cores(workload)
            print("cores split: receiver, Redis, load generator on 0; workers, emulator on 1")
        if args.nice_workers:
            renice_workers(workload, args.nice_workers)
            print(f"workers reniced to {args.nice_workers}")
        warm_started = time.perf_counter()
        warm = run_load(workload, rate=50, seconds=1, progress=lambda _: None)
        print(f"warm-up: 50 PRs, clean={warm.clean} ({time.perf_counter() - warm_started:.1f} s)")
        result = run_load(
            workload,
            rate=rate,
            seconds=seconds,
            connections=args.connections,
            generator_cpus=generator_cpus,
        )
    print_result(result)
    print("clean: every delivery acked 202, one comment per PR" if result.clean else "NOT CLEAN")
    return 0 if result.clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
