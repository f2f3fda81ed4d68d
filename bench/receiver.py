"""Receiver throughput and ack latency: evalbot vs a bare Starlette POST vs a naive Celery enqueue.

Starts a redis-server and, one after the other, three servers under uvicorn (uvloop, httptools,
one process each, as `evalbot serve` runs): the bare handler, the naive `send_task` receiver
(bench/receiver_targets.py) and `evalbot serve`. Each is driven with valid, distinct deliveries
(every one has its own `Webhook-Id`, so every one is queued), two ways:

- closed loop, for the ceiling: `wrk` (Debian package `wrk`) with 16 connections, when installed;
- open loop, for "holds N/s with p99 < 10 ms": an asyncio client on raw keep-alive connections
  sends at a fixed rate; latency is measured from each request's *scheduled* time, so a server
  that falls behind shows it (no coordinated omission). httpx is not used: at these rates its
  own CPU cost on this 2-core machine would be the bottleneck.

`--server-cpu N` runs the server on core N alone (taskset) and this client on the other cores.
Prints deliveries/s, p50/p99 ack latency, the ratios, and checks that every 202 "queued" left
exactly one message in Redis. Run: `.venv/bin/python bench/receiver.py [--rate 2000]`.

`--before TREE` compares another checkout's `evalbot serve` (say, `git worktree add /tmp/old
2c90a2b` and `make .venv/.installed` there) with this one's instead: alternating runs at each
of `--rates`, medians, and the highest rate each held with p99 ack under `--p99-ms`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import redis
import uvloop

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from bench.timing import percentile  # noqa: E402
from evalbot_dev.devstack.redis import redis_server_binary  # noqa: E402

SECRET = "bench-webhook-secret"
BODY = (REPO_ROOT / "tests/samples/webhooks/pr_push.repo_content_update.json").read_bytes()


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for(probe: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if probe():  # type: ignore[operator]
                return
        except Exception:
            pass
        time.sleep(0.05)
    raise RuntimeError("server did not come up")


@contextmanager
def redis_server() -> Iterator[str]:
    port = free_port()
    with tempfile.TemporaryDirectory() as directory:
        process = subprocess.Popen(
            [
                *(redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", ""),
                *("--appendonly", "yes", "--appendfsync", "everysec", "--dir", directory),
            ],
            stdout=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
        client = redis.Redis.from_url(url)
        wait_for(client.ping)
        try:
            yield url
        finally:
            client.close()
            process.terminate()
            process.wait(timeout=10)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def server(
    command: list[str], env: dict[str, str], port: int, cwd: Path = REPO_ROOT
) -> Iterator[int]:
    """Runs `command` (taskset execs it, so the pid is the server's) until the block ends."""
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        # Any answer means up (the bare server has no /healthz and answers 404).
        wait_for(lambda: httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1) is not None)
        yield process.pid
    finally:
        process.terminate()
        process.wait(timeout=10)


def request_bytes(port: int, delivery: str, body: bytes = BODY, secret: str = SECRET) -> bytes:
    return (
        f"POST /webhooks/hub HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nX-Webhook-Secret: {secret}\r\n"
        f"Webhook-Id: {delivery}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


@dataclass
class Result:
    sent: int
    ok: int
    seconds: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    client_cpu: float  # share of one core the load generator itself used
    started_at: float = 0.0  # wall clock (time.time()) of delivery 0's scheduled send

    @property
    def per_second(self) -> float:
        return self.ok / self.seconds


async def open_loop(
    port: int,
    rate: float,
    duration: float,
    tag: str,
    connections: int,
    *,
    request: Callable[[int], bytes] | None = None,
) -> Result:
    """Send `rate` requests/s for `duration` s; latency from each request's scheduled time.

    `request(index)` builds the raw HTTP request of delivery `index` (default: the sample
    push with Webhook-Id `{tag}-{index}`); bench/load.py sends one real PR per delivery.
    """
    total = int(rate * duration)
    build = request or (lambda index: request_bytes(port, f"{tag}-{index}"))
    pending: asyncio.Queue[int] = asyncio.Queue()
    latencies: list[float] = []
    statuses: list[int] = []
    clock = time.perf_counter  # uvloop's loop.time() only has millisecond resolution
    opened = [await asyncio.open_connection("127.0.0.1", port) for _ in range(connections)]
    start = clock() + 0.05
    started_at = time.time() + 0.05

    async def connection() -> None:
        reader, writer = opened.pop()
        try:
            while True:
                index = await pending.get()
                if index < 0:
                    return
                writer.write(build(index))
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                latencies.append(clock() - (start + index / rate))
                statuses.append(int(head[9:12]))
        finally:
            writer.close()

    cpu_started = time.process_time()
    workers = [asyncio.create_task(connection()) for _ in range(connections)]
    for index in range(total):
        delay = start + index / rate - clock()
        if delay > 0.0005:
            await asyncio.sleep(delay)
        pending.put_nowait(index)
    for _ in workers:
        pending.put_nowait(-1)
    await asyncio.gather(*workers)
    elapsed = clock() - start
    client_cpu = (time.process_time() - cpu_started) / elapsed
    return Result(
        client_cpu=client_cpu,
        started_at=started_at,
        sent=total,
        ok=statuses.count(202),
        seconds=elapsed,
        p50_ms=percentile(latencies, 0.50) * 1000,
        p99_ms=percentile(latencies, 0.99) * 1000,
        max_ms=max(latencies) * 1000,
    )


WRK_SCRIPT = """
local body = io.open("{body}"):read("*a")
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "/webhooks/hub", {{["Content-Type"]="application/json",
    ["X-Webhook-Secret"]="{secret}", ["Webhook-Id"]="wrk-{tag}-" .. counter}}, body)
end
"""


def closed_loop(port: int, tag: str, seconds: int, connections: int) -> tuple[float, str, str]:
    """(requests/s, p50, p99) from wrk; wrk prints latencies with their units."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        body = REPO_ROOT / "tests/samples/webhooks/pr_push.repo_content_update.json"
        script.write(WRK_SCRIPT.format(body=body, secret=SECRET, tag=tag))
    try:
        output = subprocess.run(
            [
                "wrk",
                "-t1",
                f"-c{connections}",
                f"-d{seconds}s",
                "--latency",
                "-s",
                script.name,
                f"http://127.0.0.1:{port}",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        os.unlink(script.name)
    values = {}
    for line in output.splitlines():
        parts = line.split()
        if line.startswith("Requests/sec:"):
            values["rps"] = parts[1]
        elif parts[:1] in (["50%"], ["99%"]):
            values[parts[0]] = parts[1]
        elif "Non-2xx" in line:
            values["non2xx"] = parts[-1]
    if "non2xx" in values:
        raise RuntimeError(f"wrk saw non-2xx answers: {values['non2xx']}")
    return float(values["rps"]), values["50%"], values["99%"]


def server_environment(redis_url: str, tree: Path) -> dict[str, str]:
    """What every server under test runs with: the bench's secret, and INFO logs (one line per
    delivery, as in production)."""
    return os.environ | {
        "HF_TOKEN": "hf_bench",
        "REDIS_URL": redis_url,
        "EVALBOT_WEBHOOK_SECRET": SECRET,
        "EVALBOT_BOT_NAME": "evalbot-ci",
        "EVALBOT_LOG_LEVEL": "INFO",
        "PYTHONPATH": str(tree),
    }


def serve_command(tree: Path) -> list[str]:
    """`evalbot serve` of a checkout, with that checkout's own virtualenv (`make` builds it)."""
    python = tree / ".venv/bin/python"
    if not python.exists():
        raise SystemExit(f"{python} not found: run `make .venv/.installed` in {tree} first")
    return [str(python), "-m", "bot", "serve"]


def sent_all(broker: redis.Redis, expected: int, timeout_s: float = 10.0) -> int:
    """The queue's length once it holds `expected` messages, or at the deadline: the receiver
    answers once an event is accepted and sends its message from a thread, just after."""
    deadline = time.monotonic() + timeout_s
    while (queued := int(broker.llen("evalbot"))) < expected and time.monotonic() < deadline:
        time.sleep(0.01)
    return queued


def compare_trees(args: argparse.Namespace, pin: list[str]) -> int:
    """`evalbot serve` of `--before` against this checkout's, alternating, at each `--rates`.

    Same Redis, same client, same core for the server; runs alternate (before, after, before,
    ...) so load from elsewhere on the machine falls on both. Prints every run, then per tree
    and rate the medians (the server's CPU per delivery too, from /proc), and the highest
    offered rate each tree held (every delivery answered 202) with a median p99 ack under
    `--p99-ms`.
    """
    trees = {"before": Path(args.before).resolve(), "after": REPO_ROOT}
    runs: dict[tuple[str, float], list[Result]] = {}
    cpu: defaultdict[tuple[str, float], list[float]] = defaultdict(list)  # s per delivery
    with redis_server() as url:
        broker = redis.Redis.from_url(url)
        for rate in args.rates:
            for repeat in range(args.repeat):
                for label, tree in trees.items():
                    broker.flushall()
                    port = free_port()
                    env = server_environment(url, tree)
                    command = [*pin, *serve_command(tree), "--host", "127.0.0.1"]
                    with server([*command, "--port", str(port)], env, port, cwd=tree) as pid:
                        warm = uvloop.run(open_loop(port, 500, 1, f"warm-{label}", 8))
                        sent_all(broker, warm.ok)  # the warm-up's messages, before the flush
                        broker.flushall()
                        cpu_before = cpu_seconds(pid)
                        result = uvloop.run(
                            open_loop(
                                port, rate, args.seconds, f"{label}-{repeat}", args.connections
                            )
                        )
                        queued = sent_all(broker, result.ok)
                        cpu[label, rate].append((cpu_seconds(pid) - cpu_before) / result.sent)
                    if queued != result.ok:
                        raise RuntimeError(f"{label}: {result.ok} answered 202, {queued} queued")
                    runs.setdefault((label, rate), []).append(result)
                    print(
                        f"{label:<7} {rate:>7,.0f}/s run {repeat + 1}:"
                        f" held {result.per_second:,.0f}/s p50 {result.p50_ms:.2f} ms"
                        f" p99 {result.p99_ms:.2f} ms"
                        f" server CPU {cpu[label, rate][-1] * 1e6:.0f} µs/delivery"
                        f" 202s {result.ok}/{result.sent}",
                        flush=True,
                    )
        broker.close()
    print(
        f"\nmedians of {args.repeat} runs, {args.seconds:g} s each, {args.connections} connections"
    )
    print(
        f"{'tree':<7} {'offered/s':>10} {'held/s':>9} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'CPU µs/delivery':>16}"
    )
    held: dict[str, float] = {}
    for (label, rate), results in runs.items():
        p99 = statistics.median(result.p99_ms for result in results)
        all_answered = all(result.ok == result.sent for result in results)
        print(
            f"{label:<7} {rate:>10,.0f} {statistics.median(r.per_second for r in results):>9,.0f}"
            f" {statistics.median(r.p50_ms for r in results):>8.2f} {p99:>8.2f}"
            f" {statistics.median(cpu[label, rate]) * 1e6:>16.0f}"
        )
        if all_answered and p99 < args.p99_ms:
            held[label] = max(held.get(label, 0.0), rate)
    for label in trees:
        print(
            f"{label}: highest offered rate held with median p99 < {args.p99_ms:g} ms: "
            f"{held.get(label, 0.0):,.0f}/s"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=2000, help="open-loop deliveries/s")
    parser.add_argument("--seconds", type=float, default=5, help="open-loop duration")
    parser.add_argument("--connections", type=int, default=64, help="open-loop connections")
    parser.add_argument("--wrk-seconds", type=int, default=5)
    parser.add_argument("--wrk-connections", type=int, default=16)
    parser.add_argument(
        "--only", choices=("bare", "naive", "evalbot"), help="run one server (no ratios)"
    )
    parser.add_argument(
        "--server-cpu",
        type=int,
        help="pin the server to this core (taskset) and this script to the others, so the "
        "receiver has a core of its own",
    )
    parser.add_argument(
        "--before",
        metavar="TREE",
        help="compare `evalbot serve` of this other checkout (with its own .venv) against "
        "this one's, alternating runs, at each of --rates",
    )
    parser.add_argument(
        "--rates", type=float, nargs="+", default=[1000, 1500, 2000, 2500], help="with --before"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per tree and rate (--before)")
    parser.add_argument(
        "--p99-ms", type=float, default=10.0, help="the p99 ack a rate must be held under"
    )
    args = parser.parse_args()
    pin: list[str] = []
    if args.server_cpu is not None:
        pin = ["taskset", "-c", str(args.server_cpu)]
        others = set(range(os.cpu_count() or 1)) - {args.server_cpu}
        os.sched_setaffinity(0, others or {args.server_cpu})
    if args.before:
        return compare_trees(args, pin)
    have_wrk = shutil.which("wrk") is not None
    python = sys.executable
    uvicorn = [python, "-m", "uvicorn", "--factory", "--no-access-log", "--log-level", "warning"]
    targets = {
        "bare Starlette POST": [*uvicorn, "bench.receiver_targets:bare_app"],
        "naive SET NX + Celery send_task": [*uvicorn, "bench.receiver_targets:naive_app"],
        "evalbot receiver (batched Lua)": [python, "-m", "bot", "serve"],
    }
    if args.only:
        targets = {name: command for name, command in targets.items() if args.only in name}
    rows: dict[str, tuple[Result, tuple[float, str, str] | None, int]] = {}
    with redis_server() as url:
        broker = redis.Redis.from_url(url)
        for name, command in targets.items():
            broker.flushall()
            port = free_port()
            env = server_environment(url, REPO_ROOT)
            full = [*pin, *command, "--host", "127.0.0.1", "--port", str(port)]
            tag = name.split()[0]
            with server(full, env, port):
                queues = tag != "bare"
                warm = uvloop.run(open_loop(port, 500, 1, f"warm-{tag}", 8))  # warm-up
                sent_all(broker, warm.ok if queues else 0)
                broker.flushall()
                result = uvloop.run(
                    open_loop(port, args.rate, args.seconds, f"open-{tag}", args.connections)
                )
                # Every 202 "queued" is one message.
                queued = sent_all(broker, result.ok if queues else 0)
                wrk = None
                if have_wrk:
                    wrk = closed_loop(port, tag, args.wrk_seconds, args.wrk_connections)
            rows[name] = (result, wrk, queued)
        broker.close()

    print(
        f"\nopen loop: {args.rate:,.0f} deliveries/s offered for {args.seconds:g} s "
        f"over {args.connections} connections (latency from scheduled send time)"
    )
    print(
        f"{'server':<34} {'held/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'202s':>7}"
        f" {'queued':>7} {'client CPU':>10}"
    )
    for name, (result, _, queued) in rows.items():
        print(
            f"{name:<34} {result.per_second:>9,.0f} {result.p50_ms:>8.2f} {result.p99_ms:>8.2f}"
            f" {result.max_ms:>8.1f} {result.ok:>7} {queued:>7} {result.client_cpu:>10.0%}"
        )
    if have_wrk and not args.only:
        print(
            f"\nclosed loop (wrk, {args.wrk_connections} connections, {args.wrk_seconds} s): "
            "the ceiling"
        )
        print(f"{'server':<34} {'req/s':>9} {'p50':>9} {'p99':>9}")
        for name, (_, wrk, _) in rows.items():
            assert wrk is not None
            print(f"{name:<34} {wrk[0]:>9,.0f} {wrk[1]:>9} {wrk[2]:>9}")
        bare, naive, ours = (rows[name][1] for name in targets)
        assert bare
        assert naive
        assert ours
        print(
            f"\nratios (closed loop): evalbot/naive = {ours[0] / naive[0]:.2f}x, "
            f"evalbot/bare = {ours[0] / bare[0]:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
