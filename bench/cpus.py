"""Which cores a benchmark's processes may use (Linux: /proc and sched_setaffinity).

On this 2-core machine the Hub emulator, the load generator and the bot share the cores, so a
figure can measure the scheduler as much as the code. Pinning groups of processes to cores
stands in for the deployment the figure is about: two containers with one CPU each, or the
Hub on machines of its own.
"""

from __future__ import annotations

import os

from bench.timing import processes
from evalbot_dev.devstack.workload import Workload


def process_tree(roots: set[int]) -> set[int]:
    """`roots` and their children (a worker's pool, uvicorn's server)."""
    return set(roots) | {pid for pid, stat in processes().items() if stat.parent in roots}


def pin(pid: int, cpus: set[int]) -> None:
    """Every thread of `pid` (Redis's background threads too) onto `cpus`; threads started
    later inherit it from their creator."""
    for thread in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(thread), cpus)


def receiver_pids(workload: Workload) -> set[int]:
    receiver = workload.stack.receiver
    return process_tree({receiver.pid} if receiver is not None else set())


def worker_pids(workload: Workload) -> set[int]:
    """Each worker and its pool children."""
    return process_tree({worker.pid for worker in workload.stack.workers})


def redis_pids(workload: Workload) -> set[int]:
    pid = workload.redis.info("server").get("process_id")
    return {pid} if isinstance(pid, int) else set()
