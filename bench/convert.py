"""Entries converted per second from a generated 1,000-task lm-eval results file, against
`json.load` of the same file in the same run (medians of repeated runs; ratio printed); then
the median CPU time of converting each real output of the test corpus
(`tests/samples/convert`, with the shipped mapping rows and example benchmarks) and of reading
its JSON (`read_json` against `json.loads`), and of a generated 50 MB lm-eval file (1,000
tasks whose configs carry long prompts, as a run with long few-shot prompts writes); then the
JSON read of generated files of both shapes (many small objects; long strings) from 256 KB to
4 MB, `read_json` against the strict reader alone and `json.loads`, which is where the size up
to which the fast read is tried (`bot.strictjson.FAST_MAX_BYTES`) comes from.

Run: `.venv/bin/python bench/convert.py [--tasks 1000] [--repeat 15] [--corpus-repeat 9]`.
Against the code before a change, in one run: `bench/convert_compare.py`.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import median_seconds
from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import entries_from
from bot.convert.jsonread import OUTPUT_JSON, read_json
from bot.convert.mapping import MappingTable, parse_mappings
from bot.strictjson import FAST_MAX_BYTES

#: CPU time of this process: steadier than wall time on a machine shared with other work
cpu = time.process_time


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


ROOT = Path(__file__).parents[1]
CORPUS = ROOT / "tests" / "samples" / "convert"


def large(tasks: int, target_bytes: int) -> bytes:
    """An lm-eval results file of about `target_bytes`: its bulk is the tasks' configs."""
    prompt = "Question: " + "x" * max(0, target_bytes // tasks - 600)
    results = {f"task_{n}": {"alias": f"task_{n}", "acc,none": 0.5} for n in range(tasks)}
    configs = {
        name: {"task": name, "dataset_path": "bench-org/bench", "doc_to_text": prompt}
        for name in results
    }
    return json.dumps(
        {"results": results, "configs": configs, "versions": {}, "lm_eval_version": "0.4.9.2"}
    ).encode()


def corpus(repeat: int) -> None:
    """Median conversion time of each real output, with the shipped rows, in CPU time (wall
    time on a shared machine moves with the others' load)."""
    examples = DirectoryBenchmarkSource(ROOT / "examples" / "benchmarks")
    rows = ROOT / "bot" / "data" / "convert" / "mappings.yaml"
    table = parse_mappings(str(rows), rows.read_bytes())
    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".json", ".eval"))
    times, reads, loads = [], [], []
    for path in files:
        content = path.read_bytes()

        def once(content: bytes = content, name: str = path.name) -> None:
            entries_from(content, filename=name, benchmarks=examples, mappings=table)

        seconds = median_seconds(once, repeat=repeat, clock=cpu)
        times.append(seconds)
        print(f"  {path.relative_to(CORPUS)!s:<78} {seconds * 1e6:8.0f} µs")
        if path.suffix == ".json":
            read = partial(read_json, content, "r.json")
            reads.append(median_seconds(read, repeat=repeat, clock=cpu))
            loads.append(median_seconds(partial(json.loads, content), repeat=repeat, clock=cpu))
    print(
        f"real outputs: {len(files)} files, median of the per-file medians:"
        f" {statistics.median(times) * 1e6:.1f} µs (CPU)"
    )
    print(
        f"their JSON ({len(reads)} files), median per file: read_json"
        f" {statistics.median(reads) * 1e6:.1f} µs,"
        f" json.loads {statistics.median(loads) * 1e6:.1f} µs"
    )
    content = large(1000, 50 * 1024 * 1024)
    empty = MappingTable()

    def convert_large() -> None:
        entries_from(content, filename="results.json", benchmarks=examples, mappings=empty)

    seconds = median_seconds(convert_large, repeat=max(3, repeat // 3), clock=cpu)
    loaded = median_seconds(lambda: json.loads(content), repeat=max(3, repeat // 3), clock=cpu)
    print(
        f"{len(content) / 1e6:.1f} MB lm-eval file: convert {seconds * 1000:.0f} ms,"
        f" json.loads {loaded * 1000:.0f} ms (medians, CPU)"
    )


def small_objects(tasks: int) -> bytes:
    """An lm-eval results file of `tasks` tasks, indented: its bulk is small objects."""
    results = {
        f"task_{n}": {"alias": f"task_{n}", "acc,none": n / (tasks + 7), "acc_stderr,none": 0.01}
        for n in range(tasks)
    }
    samples = {name: {"original": 100, "effective": 100} for name in results}
    return json.dumps(
        {"results": results, "versions": dict.fromkeys(results, 1.0), "n-samples": samples},
        indent=2,
    ).encode()


def shapes(repeat: int) -> None:
    """The JSON read of both shapes of output around `FAST_MAX_BYTES`, in CPU time."""
    print(f"JSON read by shape (fast read up to {FAST_MAX_BYTES} bytes; CPU, medians):")
    strict = dataclasses.replace(OUTPUT_JSON, fast=False)
    cases = [
        ("small objects", small_objects(1200)),
        ("small objects", small_objects(4000)),
        ("small objects", small_objects(20000)),
        ("long strings", large(20, 256 * 1024)),
        ("long strings", large(100, 1024 * 1024)),
        ("long strings", large(200, 4 * 1024 * 1024)),
    ]
    for shape, content in cases:
        timed = {
            "read_json": partial(read_json, content, "r.json"),
            "strict": partial(strict.read, content),
            "json.loads": partial(json.loads, content),
        }
        ms = {
            name: median_seconds(run, repeat=repeat, clock=cpu) * 1000
            for name, run in timed.items()
        }
        print(
            f"  {shape:<14} {len(content) / 1e6:5.2f} MB: read_json {ms['read_json']:7.2f} ms,"
            f" strict {ms['strict']:7.2f} ms, json.loads {ms['json.loads']:7.2f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--corpus-repeat", type=int, default=9)
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
    corpus(args.corpus_repeat)
    shapes(args.corpus_repeat)


if __name__ == "__main__":
    main()
