"""Every Eval Ever datastore checks: throughput, and memory for a 1 GB samples file.

Prints, in one run:
- aggregate records/s through `bot.eee.submission.check_submission` (500 distinct real-shaped
  records, in memory), and the ratio to a bare `json.loads` of the same bytes;
- instance rows/s through `bot.eee.instances.InstanceScan` (20,000 rows of a real lm-eval
  conversion), and the ratio to a bare `json.loads` per row;
- a samples file of `EEE_BENCH_MB` MiB (default 1024) written to a temporary folder (never the
  repo), scanned by a child process through the local datastore reader in 1 MiB chunks: wall
  time, rows/s and peak resident memory (ru_maxrss), against a child that only reads and
  sha256-hashes the same file.

Run: `.venv/bin/python bench/eee.py` (medians of 3 runs after 1 warm-up for the first two).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import median_seconds, report  # noqa: E402
from bot.eee.dedupe import HashIndex  # noqa: E402
from bot.eee.instances import InstanceScan  # noqa: E402
from bot.eee.submission import Change, check_submission  # noqa: E402
from bot.validation.model import FileReport  # noqa: E402

PASS = ROOT / "tests" / "samples" / "real-world" / "every_eval_ever" / "datastore" / "pass"
DEMO = "data/demo-source/demo-org/demo-model/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"
(ROWS_FILE,) = PASS.rglob("2fe532ba-*_samples.jsonl")

CHILD_SCAN = """
import resource, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from bot.adapters.datastore_dir import OverlayFiles
from bot.eee.instances import InstanceScan
from bot.validation.model import FileReport
started = time.perf_counter()
if sys.argv[2] == "scan":
    scan = InstanceScan(FileReport("x", "eee"))
    for chunk in OverlayFiles(Path(sys.argv[1]).parent).chunks(Path(sys.argv[1]).name):
        scan.feed(chunk)
    rows = scan.finish().rows
else:
    import hashlib
    digest = hashlib.sha256()
    for chunk in OverlayFiles(Path(sys.argv[1]).parent).chunks(Path(sys.argv[1]).name):
        digest.update(chunk)
    rows = 0
print(time.perf_counter() - started, rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


class Memory:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def exists(self, path: str) -> bool:
        return path in self.files

    def read(self, path: str) -> bytes:
        return self.files[path]

    def chunks(self, path: str) -> Iterator[bytes]:
        yield self.files[path]

    def read_main(self, path: str) -> bytes | None:
        return None


def records(count: int) -> dict[str, bytes]:
    base = json.loads((PASS / DEMO).read_bytes())
    del base["detailed_evaluation_results"]
    files: dict[str, bytes] = {}
    for n in range(count):
        base["evaluation_results"][0]["score_details"]["score"] = n / count
        name = f"{n:08x}-0000-4000-8000-000000000000.json"
        files[f"data/demo-source/demo-org/demo-model/{name}"] = json.dumps(base).encode()
    return files


def main() -> None:
    files = records(500)
    changes = [Change(path, "added") for path in files]
    store = Memory(files)
    checked = median_seconds(
        lambda: check_submission(changes, store, HashIndex()), repeat=3, warmup=1
    )
    bare = median_seconds(lambda: [json.loads(c) for c in files.values()], repeat=3, warmup=1)
    report("aggregate records checked per second", len(files) / checked, "records/s")
    report("  ratio to json.loads of the same bytes", checked / bare, "x")

    rows = ROWS_FILE.read_bytes().splitlines(keepends=True) * 2000
    content = b"".join(rows)

    def scan() -> None:
        instance = InstanceScan(FileReport("x", "eee"))
        for start in range(0, len(content), 1 << 20):
            instance.feed(content[start : start + (1 << 20)])
        instance.finish()

    scanned = median_seconds(scan, repeat=3, warmup=1)
    bare = median_seconds(lambda: [json.loads(r) for r in rows], repeat=3, warmup=1)
    report("instance rows checked per second", len(rows) / scanned, "rows/s")
    report("  ratio to json.loads per row", scanned / bare, "x")

    megabytes = int(os.environ.get("EEE_BENCH_MB", "1024"))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big_samples.jsonl"
        one = ROWS_FILE.read_bytes()
        with path.open("wb") as handle:
            while handle.tell() < megabytes * 1024 * 1024:
                handle.write(one)
        size = path.stat().st_size
        child = CHILD_SCAN.format(root=str(ROOT))
        figures = {}
        for mode in ("scan", "hash"):
            out = subprocess.run(
                [sys.executable, "-c", child, str(path), mode],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.split()
            figures[mode] = (float(out[0]), int(out[1]), int(out[2]))
        seconds, count, peak_kib = figures["scan"]
        report(f"samples file of {size / 2**20:,.0f} MiB: rows", count, "rows")
        report("  scan wall time", seconds, "s")
        report("  scan rows per second", count / seconds, "rows/s")
        report("  scan peak resident memory", peak_kib / 1024, "MiB")
        report("  read + sha256 only: wall time", figures["hash"][0], "s")
        report("  read + sha256 only: peak resident memory", figures["hash"][2] / 1024, "MiB")


if __name__ == "__main__":
    main()
