"""Entries converted per second from a generated 1,000-task lm-eval results file, against
`json.load` of the same file in the same run (medians of repeated runs; ratio printed).

Run: `.venv/bin/python bench/convert.py [--tasks 1000] [--repeat 15]`.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
import time
from pathlib import Path

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import entries_from
from bot.convert.mapping import parse_mappings


def generated(tasks: int) -> bytes:
    results = {
        f"task_{n}": {"alias": f"task_{n}", "acc,none": n / (tasks + 7), "acc_stderr,none": 0.01}
        for n in range(tasks)
    }
    return json.dumps(
        {
            "results": results,
            "versions": dict.fromkeys(results, 1.0),
            "n-samples": {name: {"original": 100, "effective": 100} for name in results},
            "config": {"model_args": "pretrained=org/model", "model_sha": "a" * 40},
            "lm_eval_version": "0.4.9.2",
            "date": 1768964383.8593218,
        }
    ).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    content = generated(args.tasks)
    with tempfile.TemporaryDirectory() as folder:
        bench = Path(folder) / "bench-org" / "bench"
        bench.mkdir(parents=True)
        tasks = "".join(f"  - id: t{n}\n" for n in range(args.tasks))
        (bench / "eval.yaml").write_text(f"name: b\ndescription: d\ntasks:\n{tasks}")
        rows = "".join(
            f'  - {{framework: lm-eval, task: task_{n}, metric: "acc,none",'
            f" benchmark: bench-org/bench, task_id: t{n}, scale: percent}}\n"
            for n in range(args.tasks)
        )
        table = parse_mappings("bench.yaml", f"mappings:\n{rows}".encode())
        convert_times, load_times = [], []
        entries = 0
        for _ in range(args.repeat):
            source = DirectoryBenchmarkSource(Path(folder))
            started = time.perf_counter()
            conversion = entries_from(
                content, filename="results.json", benchmarks=source, mappings=table
            )
            convert_times.append(time.perf_counter() - started)
            assert conversion.ok(), conversion.problems
            entries = len(conversion.entries)
            started = time.perf_counter()
            json.load(io.BytesIO(content))
            load_times.append(time.perf_counter() - started)
    convert, load = statistics.median(convert_times), statistics.median(load_times)
    print(f"lm-eval file: {args.tasks} tasks, {len(content)} bytes, {args.repeat} runs (medians)")
    print(
        f"convert (read, map, validate): {convert * 1000:.1f} ms"
        f" = {entries / convert:,.0f} entries/s"
    )
    print(f"json.load of the same file:    {load * 1000:.2f} ms")
    print(f"ratio convert / json.load:     {convert / load:.0f}x")


if __name__ == "__main__":
    main()
