"""Property tests: validation never raises, and only speaks in documented codes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.validation.benchmark import parse_benchmark
from bot.validation.catalogue import CATALOGUE
from bot.validation.entry import DATASET_KEYS, ENTRY_KEYS, METRIC_KEYS, SOURCE_KEYS
from bot.validation.validate import validate_results_files
from tests.unit.validation.helpers import all_diagnostics

FAST = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.sampled_from([10**400, -(10**309), 2**53 + 1, 0])
    | st.floats()
    | st.sampled_from(
        ["Idavidrein/gpqa", "diamond", "int", "rank", "https://x.org", "2026-01-15", ""]
    )
    | st.text(max_size=10)
)
anything = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=10,
)


def shaped(
    keys: frozenset[str], values: st.SearchStrategy[Any]
) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(sorted(keys)), values, max_size=len(keys))


metric = shaped(METRIC_KEYS, scalars | st.sampled_from(["accuracy", "attempts", "percentage"]))
entry = st.fixed_dictionaries(
    {},
    optional={
        "dataset": shaped(DATASET_KEYS, scalars) | anything,
        "value": scalars,
        "metrics": st.lists(metric, max_size=3) | anything,
        "source": shaped(SOURCE_KEYS, scalars) | anything,
        "framework": st.dictionaries(st.sampled_from(["name", "version", "x"]), scalars),
        "verify_token": scalars,
        "verifyToken": scalars,
        "date": scalars,
        "notes": scalars,
        "run": anything,
        "model_revision": scalars,
    },
) | shaped(ENTRY_KEYS, anything)


@FAST
@given(entries=st.lists(entry | anything, min_size=1, max_size=4))
def test_validation_never_raises_and_uses_only_documented_codes(
    entries: list[Any], store: DirectoryBenchmarkSource
) -> None:
    content = (
        json.dumps(entries, allow_nan=False, default=str).encode() if _jsonable(entries) else b"[]"
    )
    (report,) = validate_results_files({".eval_results/gpqa.yaml": content}, store)
    diagnostics = all_diagnostics(report)
    assert {d.code for d in diagnostics} <= set(CATALOGUE)
    assert report.ok == (not any(d.is_error for d in diagnostics))


def _jsonable(data: Any) -> bool:
    try:
        json.dumps(data, allow_nan=False)
    except ValueError:
        return False
    return True


metric_def = st.dictionaries(
    st.sampled_from(
        ["id", "display_name", "higher_is_better", "primary", "min_score", "max_score",
         "aggregation", "unit"]
    ),
    scalars,
)  # fmt: skip
eval_yaml = st.fixed_dictionaries(
    {},
    optional={
        "name": scalars,
        "description": scalars,
        "evaluation_framework": scalars,
        "tasks": st.lists(st.dictionaries(st.sampled_from(["id", "dataset", "x"]), anything))
        | anything,
        "metrics": st.lists(metric_def, max_size=3) | anything,
    },
)


@FAST
@given(document=eval_yaml | anything)
def test_eval_yaml_parsing_never_raises(document: Any) -> None:
    if not _jsonable(document):
        return
    benchmark, diagnostics = parse_benchmark("org/bench", json.dumps(document).encode(), None)
    assert {d.code for d in diagnostics} <= set(CATALOGUE)
    assert (benchmark is None) == any(d.is_error for d in diagnostics)
