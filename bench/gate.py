"""What a collection gate costs on top of validating the repo it reads, and what the exact
arithmetic costs against floats.

Prints, in one run, for a 200-benchmark collection over a 200-file model repo (one result per
benchmark, told apart by `notes`, past the 100-files cap a PR has):
- the validation of the repo's files (what any reader of the repo pays anyway);
- the gate over the validated files (`evaluate_view`: the merged view, every benchmark's
  candidates, the exact aggregate, the reasons), and its ratio to the validation;
- the aggregate alone with exact rationals, against the same weighted mean in floats.

Run: `.venv/bin/python bench/gate.py` (medians of 5 runs after 1 warm-up).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import median_seconds, report  # noqa: E402
from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource  # noqa: E402
from bot.collections.aggregate import weighted_score  # noqa: E402
from bot.collections.check import check_collection  # noqa: E402
from bot.collections.scores import REPO_LIMITS, ResultsLayer, evaluate_view  # noqa: E402
from bot.validation.validate import validate_results_files  # noqa: E402

BENCHMARKS = DirectoryBenchmarkSource(ROOT / "examples" / "benchmarks")
COUNT = 200


def collection_text() -> bytes:
    members = "".join(
        f"  - {{id: Idavidrein/gpqa, task_id: diamond, notes: run{i}, threshold: 40, "
        f"weight: {1 + i % 7}, scale: percent}}\n"
        for i in range(COUNT)
    )
    head = "name: many\ncategory: x\npass_criteria: {threshold: 50}\nbenchmarks:\n"
    return (head + members).encode()


def repo() -> dict[str, bytes]:
    return {
        f".eval_results/gpqa_{i:03}.yaml": (
            "- dataset: {id: Idavidrein/gpqa, task_id: diamond}\n"
            f"  value: {30 + (i * 37) % 700 / 10}\n  notes: run{i}\n"
        ).encode()
        for i in range(COUNT)
    }


def main() -> None:
    collection, diagnostics = check_collection("many", collection_text(), BENCHMARKS)
    assert collection is not None, diagnostics
    files = repo()
    reports = validate_results_files(files, BENCHMARKS, limits=REPO_LIMITS)
    layers = [ResultsLayer(reports)]
    result = evaluate_view(collection, layers)
    assert all(item.score is not None for item in result.benchmarks)
    validation = median_seconds(
        lambda: validate_results_files(files, BENCHMARKS, limits=REPO_LIMITS)
    )
    gate = median_seconds(lambda: evaluate_view(collection, layers))
    parts = [
        (item.member.weight, item.exact_normalised)
        for item in result.benchmarks
        if item.exact_normalised is not None
    ]
    floats = [(weight, float(share)) for weight, share in parts]
    exact = median_seconds(lambda: [weighted_score(parts, 100.0) for _ in range(100)])
    binary = median_seconds(
        lambda: [
            100.0 * sum(w * n for w, n in floats) / sum(w for w, _n in floats) for _ in range(100)
        ]
    )
    print(f"{COUNT} benchmarks, {len(files)} results files")
    report("  validation of the repo's files", validation * 1000, "ms")
    report("  gate over the validated files (evaluate_view)", gate * 1000, "ms")
    report("  ratio gate / validation", gate / validation, "x")
    report("  exact aggregate, 100 times", exact * 1000, "ms")
    report("  float aggregate, 100 times", binary * 1000, "ms")
    report("  ratio exact / float aggregate", exact / binary, "x")


if __name__ == "__main__":
    main()
