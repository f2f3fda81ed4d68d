"""The converters' speed in this checkout against another checkout of the code (the code before
a change), in one run on the same machine: the median CPU time of converting each real output
of this checkout's corpus (`tests/samples/convert`), and of a generated 50 MB lm-eval file.

Each checkout converts with its own shipped mapping rows and example benchmarks, in a process
of its own (the two cannot share one: both are the package `bot`); the processes alternate,
round after round, so that the machine's load falls on both alike. A file's figure is the median
over the rounds of its per-round median; the corpus figure is the median of the files' figures,
over the files both checkouts convert (a file one of them refuses does less work there: no
entries to validate), over the files both give as many entries (both converted, or both
refused), and over all files. CPU time, not wall time: a shared machine's load moves
wall time by 2x between runs.

Run (the code before the converters' strict checks, say):

    git worktree add /tmp/conv-before 3f0b292
    .venv/bin/python bench/convert_compare.py /tmp/conv-before [--rounds 7] [--repeat 30]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "samples" / "convert"

#: where a checkout ships its mapping rows (the newest place first)
MAPPING_FILES = ("bot/data/convert/mappings.yaml", "config/convert/mappings.yaml")


def large(tasks: int, target_bytes: int) -> bytes:
    """An lm-eval results file of about `target_bytes`: its bulk is the tasks' configs, as a
    run with long few-shot prompts writes."""
    prompt = "Question: " + "x" * max(0, target_bytes // tasks - 600)
    results = {f"task_{n}": {"alias": f"task_{n}", "acc,none": 0.5} for n in range(tasks)}
    configs = {
        name: {"task": name, "dataset_path": "bench-org/bench", "doc_to_text": prompt}
        for name in results
    }
    return json.dumps(
        {"results": results, "configs": configs, "versions": {}, "lm_eval_version": "0.4.9.2"}
    ).encode()


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in {".json", ".eval"})


def median_cpu(action: Callable[[], object], repeat: int) -> float:
    """Median CPU seconds of `action` over `repeat` runs, after one untimed run."""
    action()
    samples = []
    for _ in range(repeat):
        started = time.process_time()
        action()
        samples.append(time.process_time() - started)
    return statistics.median(samples)


def measure(tree: Path, repeat: int, large_repeat: int, *, same_rows: bool) -> dict[str, Any]:
    """The figures of the checkout at `tree`, measured in this process (which imports its
    `bot`): per corpus file its median CPU seconds, its entries and whether it converts
    (entries, and nothing that blocks writing them), and the 50 MB file's median."""
    sys.path.insert(0, str(tree))
    import bot  # the checkout's, from the path set just above
    from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
    from bot.convert import entries_from
    from bot.convert.mapping import MappingError, MappingTable, parse_mappings
    from bot.convert.registry import ConvertError

    if not Path(bot.__file__).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"imported {bot.__file__}, not the checkout at {tree}")
    home = ROOT if same_rows else tree
    rows = next(home / name for name in MAPPING_FILES if (home / name).is_file())
    dropped: set[str] = set()
    try:
        table = parse_mappings(str(rows), rows.read_bytes())
    except MappingError as error:
        # rows of a newer table, read by an older reader: without the keys it does not know
        dropped = set(re.findall(r"unknown key `([^`]+)`", str(error)))
        loaded = yaml.safe_load(rows.read_bytes())
        for row in loaded["mappings"]:
            for key in dropped:
                row.pop(key, None)
        table = parse_mappings(str(rows), yaml.safe_dump(loaded).encode())
    examples = DirectoryBenchmarkSource(home / "examples" / "benchmarks")
    files: dict[str, dict[str, Any]] = {}
    for path in corpus_files():
        content, name = path.read_bytes(), path.name

        def once(content: bytes = content, name: str = name) -> Any:
            try:
                return entries_from(content, filename=name, benchmarks=examples, mappings=table)
            except ConvertError:
                return None

        conversion = once()
        files[str(path.relative_to(CORPUS))] = {
            "seconds": median_cpu(once, repeat),
            "entries": len(conversion.entries) if conversion is not None else 0,
            "converts": conversion is not None and conversion.ok() and bool(conversion.entries),
        }
    content = large(1000, 50 * 1024 * 1024)
    empty = MappingTable()

    def convert_large() -> None:
        entries_from(content, filename="results.json", benchmarks=examples, mappings=empty)

    return {
        "dropped": sorted(dropped),
        "files": files,
        "large_seconds": median_cpu(convert_large, large_repeat),
        "large_bytes": len(content),
    }


def run_measure(tree: Path, repeat: int, large_repeat: int, *, same_rows: bool) -> dict[str, Any]:
    """`measure` in a process of its own."""
    command = [sys.executable, __file__, "--measure", str(tree)]
    command += ["--repeat", str(repeat), "--large-repeat", str(large_repeat)]
    command += ["--same-rows"] if same_rows else []
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"measuring {tree} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def ratio(now: float, before: float) -> str:
    return f"{now / before:.2f}x" if before else "-"


def compare(before: Path, rounds: int, repeat: int, large_repeat: int, *, same_rows: bool) -> None:
    trees = {"before": before, "now": ROOT}
    measured: dict[str, list[dict[str, Any]]] = {"before": [], "now": []}
    for number in range(rounds):
        order = ["before", "now"] if number % 2 == 0 else ["now", "before"]
        for label in order:
            measured[label].append(
                run_measure(trees[label], repeat, large_repeat, same_rows=same_rows)
            )
        print(f"round {number + 1}/{rounds} done", file=sys.stderr)
    names = list(measured["now"][0]["files"])

    def figure(label: str, name: str) -> float:
        return statistics.median(float(run["files"][name]["seconds"]) for run in measured[label])

    def converts(label: str, name: str) -> bool:
        return all(run["files"][name]["converts"] for run in measured[label])

    def entries(label: str, name: str) -> int:
        count: int = measured[label][0]["files"][name]["entries"]
        return count

    both = [name for name in names if converts("before", name) and converts("now", name)]
    alike = [name for name in names if entries("before", name) == entries("now", name)]
    print(f"{rounds} rounds, alternating the checkouts; per round {repeat} runs per file")
    print(f"before: {before}\nnow:    {ROOT}")
    if same_rows:
        dropped = ", ".join(measured["before"][0]["dropped"]) or "none"
        print(
            f"both with the rows and example benchmarks of {ROOT} (keys left out before: {dropped})"
        )
    print()
    print(
        f"{'file (µs CPU, median of round medians; entries)':<74}"
        f" {'before':>8} {'now':>8} {'ratio':>6}"
    )
    for name in names:
        was, now = figure("before", name), figure("now", name)
        counts = [entries(label, name) for label in ("before", "now")]
        mark = "" if name in both else "  not converted by both"
        print(
            f"{name:<74} {was * 1e6:8.1f} {now * 1e6:8.1f} {ratio(now, was):>6}"
            f"  {counts[0]}/{counts[1]}{mark}"
        )
    print()
    sets = (
        ("files both convert", both),
        ("files both give as many entries", alike),
        ("all files", names),
    )
    for title, chosen in sets:
        was = statistics.median(figure("before", name) for name in chosen)
        now = statistics.median(figure("now", name) for name in chosen)
        per_round = [
            statistics.median(run_now["files"][n]["seconds"] for n in chosen)
            / statistics.median(run_was["files"][n]["seconds"] for n in chosen)
            for run_was, run_now in zip(measured["before"], measured["now"], strict=True)
        ]
        print(
            f"median per real file, {title} ({len(chosen)}): before {was * 1e6:.1f} µs,"
            f" now {now * 1e6:.1f} µs, ratio {ratio(now, was)}"
            f" (per round: {', '.join(f'{r:.2f}' for r in per_round)})"
        )
    was = statistics.median(run["large_seconds"] for run in measured["before"])
    now = statistics.median(run["large_seconds"] for run in measured["now"])
    per_round = [
        run_now["large_seconds"] / run_was["large_seconds"]
        for run_was, run_now in zip(measured["before"], measured["now"], strict=True)
    ]
    size = measured["now"][0]["large_bytes"] / 1e6
    print(
        f"{size:.1f} MB lm-eval file ({large_repeat} runs a round): before {was * 1e3:.1f} ms,"
        f" now {now * 1e3:.1f} ms, ratio {ratio(now, was)}"
        f" (per round: {', '.join(f'{r:.2f}' for r in per_round)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, nargs="?", help="the other checkout")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=30, help="runs per file per round")
    parser.add_argument("--large-repeat", type=int, default=3, help="50 MB runs per round")
    parser.add_argument(
        "--same-rows",
        action="store_true",
        help="both convert with this checkout's rows and example benchmarks",
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        figures = measure(args.measure, args.repeat, args.large_repeat, same_rows=args.same_rows)
        print(json.dumps(figures))
    elif args.before is None:
        parser.error("name the checkout to compare with")
    else:
        compare(args.before, args.rounds, args.repeat, args.large_repeat, same_rows=args.same_rows)


if __name__ == "__main__":
    main()
