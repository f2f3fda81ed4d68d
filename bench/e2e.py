"""The bot end to end under a burst: N PRs opened at once, 2 workers, against the Hub emulator.

Starts a `LocalStack` (redis-server, the emulator in this process, `evalbot serve`, `evalbot
worker` processes), then:

1. warm-up: one PR, processed before anything is timed (worker imports, connections);
2. burst: N PRs (default 500), each adding one results file with one signed entry, opened
   concurrently from a thread pool; prints how long opening took, time to the last comment,
   per-PR latency p50/p99/max, Hub calls per PR, and lost / duplicate / stale comments;
3. one at a time: M PRs (default 20), each opened once the previous one has its comment, so
   each PR's Hub calls are counted exactly (its benchmark is cached by then) and its latency
   is the bot's own, without a queue in front of it.

Latency is the emulator's time of the PR's opening commit to the emulator's time of the bot's
comment creation: both stamps come from one clock, the Hub's. Hub calls are the emulator's
request counter minus the opener's own routes (`repos.preupload`, `repos.commit`).

A burst measures the stack past its capacity: when PRs arrive faster than the stack drains
them, the end-to-end latency is the queue, and the run (lease to comment) is the bot's own
part. `--rates` adds steady streams of the same size at fixed arrival rates, to find the rate
up to which the end-to-end targets hold.

    .venv/bin/python bench/e2e.py [--prs 500] [--workers 2 --concurrency 1] [--sequential 20]
                                  [--rates 25,50,75]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

# Before huggingface_hub is imported: no telemetry probe to the real Hub.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.cpus import pin, receiver_pids, redis_pids, worker_pids
from bench.timing import percentile, process_tree_cpu_s
from evalbot_dev.devstack.outcomes import PrOutcome, tally
from evalbot_dev.devstack.workload import BOT, OPENER_ROUTES, Workload, bot_calls, running_workload
from evalbot_dev.emulator.faults import Quota, RouteFault


def latencies(outcomes: list[PrOutcome]) -> list[float]:
    return [o.latency_s for o in outcomes if o.latency_s is not None]


def print_latency(label: str, samples: list[float]) -> None:
    print(
        f"  {label:<44} p50 {percentile(samples, 0.5) * 1000:8.0f} ms"
        f"   p99 {percentile(samples, 0.99) * 1000:8.0f} ms"
        f"   max {max(samples) * 1000:8.0f} ms"
    )


def worker_runs(workload: Workload, nums: list[int]) -> list[dict[str, Any]]:
    """The workers' "pr event processed" log lines (INFO) for the PRs `nums`: `ms` (the run,
    lease to comment) and `queued_ms` (the receiver's acceptance to the run's start)."""
    wanted = set(nums)
    runs = []
    for path in sorted(workload.stack.work_dir.glob("worker*.log")):
        for line in path.read_text(errors="replace").splitlines():
            if '"msg": "pr event processed"' not in line:
                continue
            fields = json.loads(line[line.index("{") :])
            if fields.get("pr") in wanted:
                runs.append(fields)
    return runs


def print_tally(outcomes: list[PrOutcome]) -> bool:
    result = tally(outcomes)
    print(
        f"  PRs {result.prs}: lost {len(result.lost)}, duplicate comments "
        f"{len(result.duplicated)}, stale {len(result.stale)}"
        + (f"  (lost {list(result.lost)[:10]}...)" if result.lost else "")
    )
    return result.clean


def stack_processes(workload: Workload) -> dict[str, int]:
    """The stack's processes by role (the bench process holds the emulator and the openers)."""
    stack = workload.stack
    processes = {"bench (emulator, openers)": os.getpid()}
    if stack.receiver is not None:
        processes["receiver"] = stack.receiver.pid
    for index, worker in enumerate(stack.workers):
        processes[f"worker{index} (with its pool)"] = worker.pid
    redis_pid = workload.redis.info("server").get("process_id")
    if isinstance(redis_pid, int):
        processes["redis-server"] = redis_pid
    return processes


#: The routes the bot reads and writes through (never the openers' `repos.preupload` and
#: `repos.commit`): fnmatch patterns of the emulator's route names.
BOT_ROUTE_PATTERNS = (
    "discussions.*",
    "files.*",
    "repos.info*",
    "repos.commits",
    "repos.refs",
    "repos.tree",
    "repos.paths_info",
)


def delay_bot_requests(workload: Workload, seconds: float) -> None:
    """Every request of the bot answered `seconds` late, as a Hub across a network would."""
    for pattern in BOT_ROUTE_PATTERNS:
        workload.stack.hub.faults.add_rule(RouteFault(pattern, latency_s=seconds, times=None))


def split_cores(workload: Workload) -> None:
    """The bot (receiver, workers, Redis) on core 0; the Hub's side (this process: the
    emulator and the PR openers) on core 1, as the Hub on machines of its own would be."""
    for pid in receiver_pids(workload) | worker_pids(workload) | redis_pids(workload):
        pin(pid, {0})
    pin(os.getpid(), {1})


@dataclass(frozen=True)
class StreamFigures:
    """One burst or paced stream, in figures (seconds unless the name says otherwise)."""

    prs: int
    arrival_per_s: float  # PRs opened per second, Hub clock
    drain_per_s: float  # reports posted per second, Hub clock
    end_to_end: list[float]
    waits: list[float]
    runs: list[float]
    clean: bool


def rate(count: int, times: list[datetime]) -> float:
    """Events per second over the span of `times` (count - 1 intervals)."""
    span = (max(times) - min(times)).total_seconds()
    return (count - 1) / span if span > 0 else float("inf")


def stream(
    workload: Workload,
    prs: int,
    threads: int,
    timeout: float,
    *,
    pace: float | None,
    first: int,
) -> StreamFigures:
    """Open `prs` PRs (all at once, or at `pace` per second), wait for every report, and print
    what it took; PR indexes start at `first` so that streams of one run never collide."""
    what = "burst" if pace is None else f"stream at {pace:g} PRs/s"
    print(f"\n{what}: preparing {prs} signed results files ...", flush=True)
    contents = [(index, workload.results_file(index)) for index in range(first, first + prs)]
    workload.wait_settled()
    workload.stack.hub.faults.reset_counters()
    stats_before = workload.stats()
    processes = stack_processes(workload)
    roots = frozenset(processes.values())

    def cpu_now() -> dict[str, float]:
        # Each role's own tree: the bench process is the parent of the others.
        return {
            name: process_tree_cpu_s(pid, exclude=roots - {pid}) for name, pid in processes.items()
        }

    cpu_before = cpu_now()
    started = time.perf_counter()
    if pace is None:
        nums = workload.open_many(contents, threads)
    else:
        nums = workload.open_paced(contents, pace, threads)
    opening = time.perf_counter() - started
    print(
        f"  opened {prs} PRs in {opening:.2f} s from {threads} threads ({prs / opening:.0f} PRs/s)",
        flush=True,
    )
    workload.wait_reported(nums, timeout=timeout)
    reported = time.perf_counter() - started
    cpu_after = cpu_now()
    workload.wait_settled()
    outcomes = workload.outcomes(nums)  # again: a late duplicate would show now
    first_open = min(o.opened_at for o in outcomes)
    comments = [o.first_report_at for o in outcomes if o.first_report_at is not None]
    hub_span = (max(comments) - first_open).total_seconds()
    figures = StreamFigures(
        prs=prs,
        arrival_per_s=rate(prs, [o.opened_at for o in outcomes]),
        drain_per_s=rate(len(comments), comments),
        end_to_end=latencies(outcomes),
        waits=[],
        runs=[],
        clean=tally(outcomes).clean,
    )
    print(f"  time to the last comment (Hub clock, first open -> last comment) {hub_span:8.2f} s")
    print(f"  time to the last comment (bench clock, start of opening)        {reported:8.2f} s")
    print(
        f"  PRs arrived at {figures.arrival_per_s:.0f}/s; reports were posted at "
        f"{figures.drain_per_s:.0f}/s"
        + (
            "  (arrivals outran the stack: the rest is queueing)"
            if figures.drain_per_s < figures.arrival_per_s * 0.95
            else ""
        )
    )
    print_latency("per-PR latency (opening commit -> comment)", figures.end_to_end)
    logged = worker_runs(workload, nums)
    if logged:
        figures.waits.extend(r["queued_ms"] / 1e3 for r in logged)
        figures.runs.extend(r["ms"] / 1e3 for r in logged)
        print_latency("  of which waiting (receiver -> worker)", figures.waits)
        print_latency("  of which the run (worker -> comment)", figures.runs)
    else:
        print("  (no worker INFO lines: run with --log-level INFO for the wait / run split)")
    counters = workload.stack.hub.counters()
    calls = bot_calls(counters)
    print(f"  Hub calls by the bot: {calls} = {calls / prs:.2f} per PR")
    routes = {k: v for k, v in sorted(counters.items()) if k not in OPENER_ROUTES}
    print(f"    by route: {routes}")
    runs = Counter(
        {
            k: v - stats_before.get(k, 0)
            for k, v in workload.stats().items()
            if v != stats_before.get(k, 0)
        }
    )
    print(f"    worker outcomes: {dict(runs)}")
    limited = workload.stack.hub.rate_limited()
    if any(limited.values()):
        print(f"    429s the Hub answered, by bucket: {limited}")
    print(f"  CPU per PR by process, over {reported:.2f} s ({os.cpu_count()} cores):")
    total = 0.0
    for name in processes:
        seconds = cpu_after[name] - cpu_before[name]
        total += seconds
        print(
            f"    {name:<28} {seconds * 1000 / prs:6.2f} ms  ({seconds / reported:5.0%} of a core)"
        )
    print(f"    {'all':<28} {total * 1000 / prs:6.2f} ms  ({total / reported:5.0%} of a core)")
    print_tally(outcomes)
    return figures


def print_sweep(results: list[tuple[float, StreamFigures]]) -> None:
    """One line per paced stream: where the end-to-end targets hold and where the queue wins."""
    print("\nsteady streams (Hub clock; targets: end to end p50 < 250 ms, p99 < 1 s)")
    print(
        f"  {'offered':>8} {'arrived':>8} {'drained':>8}   {'end to end p50':>14} {'p99':>7}"
        f"   {'the run p50':>11} {'p99':>7}   targets"
    )
    for pace, figures in results:
        p50 = percentile(figures.end_to_end, 0.5)
        p99 = percentile(figures.end_to_end, 0.99)
        run_p50 = percentile(figures.runs, 0.5) if figures.runs else float("nan")
        run_p99 = percentile(figures.runs, 0.99) if figures.runs else float("nan")
        met = "met" if p50 < 0.25 and p99 < 1.0 and figures.clean else "missed"
        print(
            f"  {pace:>6g}/s {figures.arrival_per_s:>6.0f}/s {figures.drain_per_s:>6.0f}/s"
            f"   {p50 * 1000:>11.0f} ms {p99 * 1000:>4.0f} ms"
            f"   {run_p50 * 1000:>8.0f} ms {run_p99 * 1000:>4.0f} ms   {met}"
        )


def one_at_a_time(workload: Workload, count: int) -> bool:
    print(f"\none at a time: {count} PRs, each opened after the previous comment", flush=True)
    per_pr: list[int] = []
    outcomes: list[PrOutcome] = []
    for index in range(100_001, 100_001 + count):
        content = workload.results_file(index)
        workload.wait_settled()
        before = workload.stack.hub.counters()
        num = workload.open_pr(index, content)
        outcomes.extend(workload.wait_reported([num], timeout=60))
        workload.wait_settled()
        after = workload.stack.hub.counters()
        per_pr.append(bot_calls(after) - bot_calls(before))
    print_latency("per-PR latency (opening commit -> comment)", latencies(outcomes))
    print(
        f"  Hub calls per PR (one results file, benchmark cached): median "
        f"{statistics.median(per_pr):.0f}, max {max(per_pr)} (target <= 4)"
    )
    return print_tally(outcomes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prs", type=int, default=500, help="PRs in the burst")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--concurrency", type=int, default=1, help="pool size per worker")
    parser.add_argument("--threads", type=int, default=16, help="threads opening PRs")
    parser.add_argument("--sequential", type=int, default=20, help="PRs opened one at a time")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for reports")
    parser.add_argument(
        "--fsync",
        choices=("everysec", "always"),
        default="everysec",
        help="Redis appendfsync (production: everysec; the fault tests: always)",
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the work directory (logs) under this folder"
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        help="the stack's EVALBOT_LOG_LEVEL (default INFO, production's; the wait / run split "
        "needs the workers' INFO lines)",
    )
    parser.add_argument(
        "--split-cores",
        action="store_true",
        help="the bot (receiver, workers, Redis) on core 0; the emulator and openers on core 1",
    )
    parser.add_argument(
        "--rates",
        type=lambda text: [float(part) for part in text.split(",") if part],
        default=[],
        metavar="R1,R2,...",
        help="after the burst, a steady stream of --prs PRs at each of these rates (PRs/s): "
        "the arrival rate up to which the end-to-end targets hold on this machine",
    )
    parser.add_argument(
        "--hub-latency",
        type=float,
        default=0.0,
        metavar="MS",
        help="answer each of the bot's Hub requests this much later (the real Hub's latency, "
        "as seen from a worker; the openers' requests and the webhooks are not delayed)",
    )
    parser.add_argument(
        "--quota",
        metavar="CALLS/SECONDS",
        help="the bot token's /api quota per fixed window, as the Hub counts it (e.g. 60/5: "
        "60 calls per 5-second window); the openers have a token and a quota of their own",
    )
    args = parser.parse_args()
    print(
        f"machine: {os.cpu_count()} cores; stack: {args.workers} worker process(es) x "
        f"concurrency {args.concurrency}, prefork; Redis AOF appendfsync {args.fsync}; "
        "emulator in this process"
    )
    with tempfile.TemporaryDirectory(prefix="evalbot-e2e-") as temporary:
        # A fresh directory each run: Redis keeps its AOF there, and the dedupe keys of an
        # earlier run would make this run's deliveries look like duplicates.
        work_dir = Path(temporary)
        if args.keep:
            work_dir = Path(tempfile.mkdtemp(prefix="evalbot-e2e-", dir=args.keep))
            print(f"work directory (logs): {work_dir}")
        with running_workload(
            work_dir,
            workers=args.workers,
            concurrency=args.concurrency,
            appendfsync=args.fsync,
            # Production's level: the workers' per-run lines give the wait / run split.
            env={"EVALBOT_LOG_LEVEL": args.log_level},
        ) as workload:
            if args.split_cores:
                split_cores(workload)
                print("cores split: receiver, workers, Redis on 0; emulator and openers on 1")
            if args.quota:
                calls, _, seconds = args.quota.partition("/")
                workload.stack.hub.faults.set_quota(
                    Quota(api=int(calls), window_s=int(seconds), callers=frozenset({BOT}))
                )
                print(f"the bot's /api quota: {calls} calls per {seconds} s window")
            if args.hub_latency > 0:
                delay_bot_requests(workload, args.hub_latency / 1000)
                print(f"the bot's Hub requests answered {args.hub_latency:g} ms late")
            warm = [(-i, workload.results_file(-i)) for i in range(1, 2 * args.workers + 1)]
            workload.wait_reported(workload.open_many(warm, len(warm)), timeout=120)
            clean = stream(workload, args.prs, args.threads, args.timeout, pace=None, first=1).clean
            paced: list[tuple[float, StreamFigures]] = []
            for number, pace in enumerate(args.rates, start=1):
                first = number * 10_000_000  # PR indexes of each stream apart from the others
                figures = stream(
                    workload, args.prs, args.threads, args.timeout, pace=pace, first=first
                )
                paced.append((pace, figures))
                clean = figures.clean and clean
            if paced:
                print_sweep(paced)
            if args.sequential:
                clean = one_at_a_time(workload, args.sequential) and clean
    print("\nall PRs: one comment each, on the latest head" if clean else "\nNOT CLEAN")
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
