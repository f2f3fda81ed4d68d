"""Validation throughput, and its cost against the bare C YAML parse and huggingface_hub.

Prints, in one run:
- entries/s for one 10,000-entry live-format results file (within the 1 MiB cap);
- entries/s for a 100-file repo (10 block-style entries per file, like the Hub's own files);
- the ratio of full validation to `yaml.load(..., Loader=yaml.CSafeLoader)` of the same
  bytes (target: at most 3x), and to libyaml's bare event stream (a lower bound no loader
  built on PyYAML can beat);
- the ratio to huggingface_hub's own path for the same live data: CSafeLoader +
  `parse_eval_result_entries` (and that function alone, on already-parsed data).

Run: `.venv/bin/python bench/validate.py` (medians of 5 runs after 1 warm-up).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from huggingface_hub import parse_eval_result_entries

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import median_seconds, report  # noqa: E402
from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource  # noqa: E402
from bot.validation.limits import DEFAULT_LIMITS  # noqa: E402
from bot.validation.validate import validate_results_files  # noqa: E402

BENCHMARKS = DirectoryBenchmarkSource(ROOT / "examples" / "benchmarks")
TASKS = ("diamond", "main", "extended")

BLOCK_ENTRY = """\
- dataset:
    id: Idavidrein/gpqa
    task_id: {task}
  value: {value}
  date: '2026-05-23'
  notes: "setup {n}"
  source:
    url: https://huggingface.co/google/gemma-4-12B-it
    name: Model Card
"""


def big_file(entries: int) -> bytes:
    """One file of compact live entries, all distinct (no duplicate warnings)."""
    lines = [
        f"- dataset: {{id: Idavidrein/gpqa, task_id: {TASKS[n % 3]}}}\n"
        f"  value: {50 + (n % 500) / 10}\n  notes: run {n}\n"
        for n in range(entries)
    ]
    return "".join(lines).encode()


def repo(files: int, per_file: int) -> dict[str, bytes]:
    repo_files: dict[str, bytes] = {}
    for number in range(files):
        text = "".join(
            BLOCK_ENTRY.format(task=TASKS[n % 3], value=60 + n, n=f"{number}-{n}")
            for n in range(per_file)
        )
        repo_files[f".eval_results/gpqa_{number:03d}.yaml"] = text.encode()
    return repo_files


def check_clean(files: dict[str, bytes]) -> int:
    reports = validate_results_files(files, BENCHMARKS)
    assert all(r.ok for r in reports), "benchmark data must validate cleanly"
    return sum(len(r.entries) for r in reports)


def hf_hub_path(files: dict[str, bytes]) -> list[Any]:
    parsed = []
    for content in files.values():
        parsed.extend(parse_eval_result_entries(yaml.load(content, Loader=yaml.CSafeLoader)))
    return parsed


def events_only(content: bytes) -> int:
    """libyaml's C parser producing the event stream, with no composition or construction."""
    parser = yaml.CSafeLoader(content)
    count = 0
    try:
        while parser.check_event():
            parser.get_event()
            count += 1
    finally:
        parser.dispose()
    return count


def measure(label: str, files: dict[str, bytes]) -> None:
    entries = check_clean(files)
    size = sum(len(content) for content in files.values())
    ours = median_seconds(lambda: validate_results_files(files, BENCHMARKS))
    c_parse = median_seconds(
        lambda: [yaml.load(content, Loader=yaml.CSafeLoader) for content in files.values()]
    )
    c_events = median_seconds(lambda: [events_only(content) for content in files.values()])
    hub = median_seconds(lambda: hf_hub_path(files))
    loaded = [yaml.load(content, Loader=yaml.CSafeLoader) for content in files.values()]
    hub_alone = median_seconds(lambda: [parse_eval_result_entries(data) for data in loaded])
    print(f"\n{label}: {len(files)} file(s), {entries:,} entries, {size:,} bytes")
    report("  evalbot validation (load + all rules + cross-checks)", ours * 1000, "ms")
    report("  entries per second", entries / ours, "entries/s")
    report("  yaml.CSafeLoader load alone", c_parse * 1000, "ms")
    report("  ratio validation / CSafeLoader load (target <= 3)", ours / c_parse, "x")
    report("  libyaml event stream alone (no composition)", c_events * 1000, "ms")
    report("  ratio validation / event stream alone", ours / c_events, "x")
    report("  huggingface_hub: CSafeLoader + parse_eval_result_entries", hub * 1000, "ms")
    report("  ratio validation / huggingface_hub path", ours / hub, "x")
    report("  parse_eval_result_entries alone (data already parsed)", hub_alone * 1000, "ms")


def main() -> None:
    content = big_file(DEFAULT_LIMITS.max_entries)
    assert len(content) <= DEFAULT_LIMITS.max_file_bytes
    measure("one 10,000-entry file", {".eval_results/gpqa.yaml": content})
    measure("a 100-file repo", repo(DEFAULT_LIMITS.max_files, 10))


if __name__ == "__main__":
    main()
