"""One rule for Every Eval Ever schema versions: `evalbot convert` reads exactly the versions
`evalbot validate` checks (and `--to eee` writes), so a record is never read by one and
refused by the other. Was: a 0.1.0 record converted, and failed validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.cli import convert as convert_cli
from bot.convert import entries_from
from bot.convert.mapping import MappingTable
from bot.convert.registry import ConvertError
from bot.validation.eee import VERSIONS, validate_eee_file

ROOT = Path(__file__).parents[3]
RECORD = ROOT / "tests/samples/real-world/every_eval_ever/98ea850e-7019-4728-a558-8b1819ec47c2.json"
EXAMPLES = DirectoryBenchmarkSource(ROOT / "examples" / "benchmarks")


def test_the_versions_read_written_and_validated_are_one_list() -> None:
    assert convert_cli._EEE_VERSIONS == VERSIONS


@pytest.mark.parametrize("version", ["0.1.0", "0.4.0", None, 3])
def test_a_version_validate_refuses_is_refused_by_convert_too(version: object) -> None:
    record = json.loads(RECORD.read_bytes())
    record["schema_version"] = version
    content = json.dumps(record).encode()
    assert not validate_eee_file("record.json", content).ok
    with pytest.raises(
        ConvertError, match=r"record\.json: schema_version .* not one evalbot reads"
    ):
        entries_from(content, filename="record.json", benchmarks=EXAMPLES, mappings=MappingTable())


def test_the_real_record_is_read_by_both() -> None:
    content = RECORD.read_bytes()
    assert validate_eee_file(RECORD.name, content).ok
    conversion = entries_from(
        content, filename=RECORD.name, benchmarks=EXAMPLES, mappings=MappingTable()
    )
    assert conversion.runs[0].scores
