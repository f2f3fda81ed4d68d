"""Benchmark stores built from the real eval.yaml files, plus one target-spec benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from tests.conftest import REAL_WORLD

REAL_EVAL_YAML = REAL_WORLD / "hf-benchmark-eval-yaml"

#: The target spec's example (docs/specs.md#draft-spec, its MathArena worked example) with two
#: tasks.
MATHARENA_EVAL_YAML = b"""\
name: "MathArena"
description: "Uncontaminated math competition benchmark suite."
evaluation_framework: math-arena
metrics:
  - id: "accuracy"
    display_name: "Average Accuracy"
    higher_is_better: true
    unit: "percentage"
    primary: true
    min_score: 0
    max_score: 100
  - id: "cost_usd"
    display_name: "Average Cost per Full Competition Run (USD)"
    higher_is_better: false
    unit: "usd"
  - id: "attempts"
    display_name: "Number of Attempts"
    higher_is_better: false
    value_type: "int"
tasks:
  - id: "aime_2026"
    config: "default"
    split: "test"
  - id: "hmmt_2026"
    display_name: "HMMT February 2026"
"""


def repo_id_of(fixture: Path) -> str:
    """`Idavidrein__gpqa.eval.yaml` -> `Idavidrein/gpqa`."""
    return fixture.name.split(".eval")[0].replace("__", "/")


def build_store(root: Path) -> Path:
    for fixture in sorted(REAL_EVAL_YAML.glob("*.yaml")):
        target = root / repo_id_of(fixture) / "eval.yaml"
        target.parent.mkdir(parents=True)
        target.write_bytes(fixture.read_bytes())
    matharena = root / "MathArena" / "aime_2026" / "eval.yaml"
    matharena.parent.mkdir(parents=True)
    matharena.write_bytes(MATHARENA_EVAL_YAML)
    return root


@pytest.fixture(scope="session")
def store_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("benchmarks"))


@pytest.fixture
def store(store_root: Path) -> DirectoryBenchmarkSource:
    return DirectoryBenchmarkSource(store_root)
