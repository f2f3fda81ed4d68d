"""Collections over in-memory benchmarks, for the pure tests."""

from __future__ import annotations

from pathlib import Path

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.collections.check import check_collection
from bot.collections.model import Collection
from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import BenchmarkLookup

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "benchmarks"
SYSTEM = ROOT / "bot" / "data" / "collections"

PERPLEXITY_EVAL_YAML = b"""\
name: WikiText perplexity
description: Language modelling perplexity (lower is better, unbounded above).
metrics:
  - id: word_perplexity
    display_name: Word perplexity
    higher_is_better: false
    primary: true
  - id: bits_per_byte
    display_name: Bits per byte
    higher_is_better: false
tasks:
  - id: wikitext
"""


class MemorySource:
    """The example benchmarks plus synthetic ones given as eval.yaml bytes."""

    def __init__(self, extra: dict[str, bytes] | None = None) -> None:
        self.folder = DirectoryBenchmarkSource(EXAMPLES)
        self.extra = {"test/wikitext": PERPLEXITY_EVAL_YAML, **(extra or {})}

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        for repo_id, content in self.extra.items():
            if repo_id.lower() == dataset_id.lower():
                return benchmark_from_eval_yaml(repo_id, content, None)
        return self.folder.lookup(dataset_id, revision)


def check(
    text: str, extra: dict[str, bytes] | None = None
) -> tuple[Collection | None, list[Diagnostic]]:
    return check_collection("test-collection", text.encode(), MemorySource(extra))


def checked(text: str) -> Collection:
    collection, diagnostics = check(text)
    assert collection is not None, diagnostics
    return collection


def codes(diagnostics: list[Diagnostic]) -> list[str]:
    return [diagnostic.code for diagnostic in diagnostics]
