"""`.eval_results` -> EEE -> `.eval_results` keeps every field EEE can carry (docs/convert.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.convert.api import read_runs
from bot.convert.build import build_entries
from bot.convert.eee import EeeWriteError, to_eee
from bot.convert.mapping import MappingTable
from bot.validation.eee import VERSIONS, validate_eee_file
from bot.validation.model import MetricDef

text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=20
).filter(lambda value: value.strip() == value and value.lower() != "unknown")
repo = st.from_regex(r"[a-z][a-z0-9-]{0,8}/[A-Za-z][A-Za-z0-9_.-]{0,8}", fullmatch=True).filter(
    lambda value: ".." not in value and not value.endswith(".")
)
number = st.floats(allow_nan=False, allow_infinity=False, width=64)
date = st.sampled_from(["2026-05-23", "2026-01-21T02:59:43Z", "2025-03-25T06:48:52+00:00"])


@st.composite
def entries(draw: Any) -> dict[str, Any]:
    dataset = {"id": draw(repo), "task_id": draw(text)}
    if draw(st.booleans()):
        dataset["revision"] = draw(st.from_regex(r"[0-9a-f]{40}", fullmatch=True))
    entry: dict[str, Any] = {"dataset": dataset}
    if draw(st.booleans()):
        ids = draw(st.lists(text, min_size=1, max_size=3, unique=True))
        entry["metrics"] = sorted(
            ({"metric_id": metric_id, "value": draw(number)} for metric_id in ids),
            key=lambda metric: metric["metric_id"],
        )
    else:
        entry["value"] = draw(number)
    if draw(st.booleans()):
        framework = {"name": draw(text)}
        for key in ("version", "command"):
            if draw(st.booleans()):
                framework[key] = draw(text)
        entry["framework"] = framework
    if draw(st.booleans()):
        entry["model_revision"] = draw(st.from_regex(r"[0-9a-f]{40}", fullmatch=True))
    if draw(st.booleans()):
        entry["date"] = draw(date)
    if draw(st.booleans()):
        source = {"url": "https://huggingface.co/" + draw(repo)}
        if draw(st.booleans()):
            source["name"] = draw(text)
        entry["source"] = source
    if draw(st.booleans()):
        entry["notes"] = draw(text)
    run = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "num_samples": st.integers(min_value=0, max_value=10**9),
                "adapter_version": text,
                "framework_version": text,
                "dataset_revision": st.from_regex(r"[0-9a-f]{40}", fullmatch=True),
                "code_revision": st.from_regex(r"[0-9a-f]{40}", fullmatch=True),
                "seed": st.integers(min_value=0, max_value=2**32),
                "batch_size": st.integers(min_value=1, max_value=4096),
            },
        )
    )
    if run:
        entry["run"] = run
    return entry


def bounded(_benchmark: str, _revision: str | None, metric_id: str | None) -> MetricDef:
    return MetricDef(metric_id or "value", "Score", True, min_score=0, max_score=100)


@settings(max_examples=150, deadline=None)
@given(entry=entries(), version=st.sampled_from(VERSIONS), bounds=st.booleans())
def test_round_trip_keeps_every_field(entry: dict[str, Any], version: str, bounds: bool) -> None:
    if version != "0.3.0" and not bounds:
        with pytest.raises(EeeWriteError, match="needs the metric's min_score and max_score"):
            to_eee([entry], model_id="org/model", retrieved_timestamp="1", version=version)
        return
    [record] = to_eee(
        [entry],
        model_id="org/model",
        retrieved_timestamp="1",
        version=version,
        metric_of=bounded if bounds else _none,
    )
    content = json.dumps(record).encode()
    assert validate_eee_file("record.json", content).diagnostics == []
    adapter, runs = read_runs(content, "record.json")
    built = build_entries(adapter.name, runs, MappingTable())
    assert (built.unmapped, built.problems, built.left_out) == ([], [], [])
    assert built.entries == [entry]


def _none(_benchmark: str, _revision: str | None, _metric_id: str | None) -> None:
    return None
