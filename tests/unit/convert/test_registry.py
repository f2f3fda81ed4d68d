"""The adapter registry: built-ins by decorator, third parties by the entry-point group."""

from __future__ import annotations

import io
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import registry
from bot.convert.api import MAX_INPUT_BYTES, entries_from, read_input, read_runs
from bot.convert.mapping import parse_mappings
from tests.conftest import REPO_ROOT

PLUGIN = """
from typing import Any, ClassVar

from bot.convert.model import Run, Score


class CsvAdapter:
    name: ClassVar[str] = "tiny-csv"
    description: ClassVar[str] = "task,metric,value lines"

    def sniff(self, filename: str, content: bytes, data: Any) -> bool:
        return filename.endswith(".csv")

    def read(self, filename: str, content: bytes, data: Any) -> list[Run]:
        run = Run(framework="tiny-csv", framework_version="1.0")
        for line in content.decode().splitlines():
            task, metric, value = line.split(",")
            run.scores.append(Score(task, metric, float(value), scale="fraction"))
        return [run]
"""


@pytest.fixture
def plugin(tmp_path: Path) -> Iterator[None]:
    """A third-party package installed on sys.path, with its entry point."""
    (tmp_path / "tiny_csv_adapter.py").write_text(PLUGIN)
    info = tmp_path / "tiny_csv_adapter-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-csv-adapter\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{registry.ENTRY_POINT_GROUP}]\ntiny-csv = tiny_csv_adapter:CsvAdapter\n"
    )
    registry.adapters()  # the built-ins are in (they register once, when first imported)
    saved = dict(registry._REGISTRY), list(registry._LOADED)
    sys.path.insert(0, str(tmp_path))
    registry._LOADED.clear()
    try:
        yield
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("tiny_csv_adapter", None)
        registry._REGISTRY.clear()
        registry._REGISTRY.update(saved[0])
        registry._LOADED[:] = saved[1]


@pytest.mark.usefixtures("plugin")
def test_a_third_party_adapter_arrives_through_the_entry_point() -> None:
    assert "tiny-csv" in registry.adapters()
    table = parse_mappings(
        "m.yaml",
        b"mappings:\n  - {framework: tiny-csv, task: gsm, metric: acc, benchmark: openai/gsm8k,"
        b" task_id: gsm8k, scale: percent}\n",
    )
    conversion = entries_from(
        b"gsm,acc,0.29\n",
        filename="run.csv",
        benchmarks=DirectoryBenchmarkSource(REPO_ROOT / "examples" / "benchmarks"),
        mappings=table,
    )
    assert conversion.ok()
    assert conversion.entries[0]["value"] == 29.0
    assert conversion.entries[0]["framework"] == {"name": "tiny-csv", "version": "1.0"}


def test_two_adapters_of_one_name_are_refused() -> None:
    class Twin:
        name = "lm-eval"

    registry.adapters()
    with pytest.raises(ValueError, match="two converters named 'lm-eval'"):
        registry.adapter(Twin)


def test_unknown_and_unrecognised_outputs() -> None:
    with pytest.raises(registry.ConvertError, match="no converter named 'nope'"):
        registry.get("nope")
    with pytest.raises(registry.ConvertError, match="pass --from NAME"):
        registry.detect("x.json", b"{}", {})


def test_json_nested_beyond_what_python_reads_is_a_convert_error_naming_the_file() -> None:
    """A hostile output (100k nested arrays) was a RecursionError traceback."""
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(registry.ConvertError, match=r"results\.json: JSON nested too deeply"):
        read_runs(b'{"results": ' + deep + b"}", "results.json")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("header.json", deep)
    with pytest.raises(registry.ConvertError, match=r"run\.eval: header\.json is not JSON"):
        read_runs(archive.getvalue(), "run.eval")


def test_an_input_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "results.json"
    with huge.open("wb") as handle:  # sparse: nothing is written
        handle.truncate(MAX_INPUT_BYTES + 1)
    with pytest.raises(registry.ConvertError, match=r"results\.json: \d+ bytes, over the"):
        read_input(huge)
