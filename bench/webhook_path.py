"""Which product files one webhook passes through on its way to the PR comment, by tracing a run.

Starts the whole bot on this machine (redis-server, the Hub emulator, `evalbot serve`, one
Celery worker with one process), opens one PR and waits for its comment (a warm-up: imports,
connections, the benchmark cache), then switches tracing on, opens a second PR, waits for its
comment and switches tracing off. Every process of the bot runs a profile hook (installed
through a `sitecustomize` module on `PYTHONPATH`) that, while the switch file exists, records
the file of every Python function called. The product files among them (`bot/`, `workers/`,
not the development tools) are the webhook's path: the receiver taking the delivery, the
worker's task, and everything they call until the comment is written.

    .venv/bin/python bench/webhook_path.py [--list]

It prints the number of product files per process kind and in all; `--list` names them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import textwrap
from pathlib import Path

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from evalbot_dev.devstack.workload import running_workload  # noqa: E402

#: The hook every process of the stack loads at start (Python imports `sitecustomize` itself).
HOOK = textwrap.dedent(
    """
    import os, sys, threading, time

    _dir = os.environ.get("WEBHOOK_PATH_TRACE_DIR")
    if _dir:
        _switch = os.path.join(_dir, "on")
        _seen = set()
        _state = {"on": False, "checked": 0.0, "pid": None, "out": None}

        def _profile(frame, event, arg):
            if event != "call":
                return
            now = time.monotonic()
            if now - _state["checked"] > 0.02:
                _state["checked"] = now
                _state["on"] = os.path.exists(_switch)
            if not _state["on"]:
                return
            name = frame.f_code.co_filename
            pid = os.getpid()
            if _state["pid"] != pid:  # a forked pool process starts its own record
                _state["pid"] = pid
                _seen.clear()
                _state["out"] = open(os.path.join(_dir, f"{pid}.txt"), "a", buffering=1)
            if name not in _seen:
                _seen.add(name)
                _state["out"].write(f"{os.path.basename(sys.argv[0])} {sys.argv[1:2]} {name}\\n")

        sys.setprofile(_profile)
        threading.setprofile(_profile)
    """
)


def product_file(path: str) -> str | None:
    """`bot/...` or `workers/...` relative to the repo, or None for anything else."""
    try:
        relative = Path(path).resolve().relative_to(REPO_ROOT)
    except ValueError:
        return None
    if relative.parts[0] in ("bot", "workers") and relative.suffix == ".py":
        return relative.as_posix()
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--list", action="store_true", help="name every file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="webhook-path-") as scratch:
        root = Path(scratch)
        hook_dir = root / "hook"
        hook_dir.mkdir()
        (hook_dir / "sitecustomize.py").write_text(HOOK)
        trace_dir = root / "trace"
        trace_dir.mkdir()
        os.environ["PYTHONPATH"] = os.pathsep.join([str(hook_dir), str(REPO_ROOT)])
        os.environ["WEBHOOK_PATH_TRACE_DIR"] = str(trace_dir)
        with running_workload(root / "stack", workers=1, concurrency=1) as workload:
            first = workload.open_pr(0, workload.results_file(0))
            workload.wait_reported([first], timeout=120)
            (trace_dir / "on").touch()
            second = workload.open_pr(1, workload.results_file(1))
            workload.wait_reported([second], timeout=120)
            workload.wait_settled()
            (trace_dir / "on").unlink()
        by_process: dict[str, set[str]] = {}
        for record in trace_dir.glob("*.txt"):
            for line in record.read_text().splitlines():
                program, _, path = line.rpartition(" ")
                found = product_file(path)
                if found is not None:
                    by_process.setdefault(program, set()).add(found)
    everything = set().union(*by_process.values()) if by_process else set()
    for program, files in sorted(by_process.items()):
        print(f"{program}: {len(files)} product files")
    print(f"one webhook to its comment: {len(everything)} distinct product files")
    if args.list:
        for path in sorted(everything):
            print(f"  {path}")
    return 0 if everything else 1


if __name__ == "__main__":
    sys.exit(main())
