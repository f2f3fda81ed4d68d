"""Properties of the aggregate: monotone in each score, blind to the scale of the weights."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from bot.collections.aggregate import Found, Origin, evaluate
from bot.collections.model import Collection, CollectionBenchmark, Scale

scores = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
# Zero, or a weight that stays a normal float once scaled by the smallest factor below: a
# subnormal weight (5e-324) times 0.5 underflows to 0, a different collection (no weight at all).
weights = st.one_of(st.just(0.0), st.floats(min_value=1e-3, max_value=1e3, allow_nan=False))


@st.composite
def members(draw: st.DrawFn) -> CollectionBenchmark:
    low = draw(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False))
    span = draw(st.floats(min_value=1e-3, max_value=1e3, allow_nan=False))
    return CollectionBenchmark(
        id="o/b",
        task_id="t",
        metric="value",
        weight=draw(weights),
        lower_is_better=draw(st.booleans()),
        low=low,
        high=low + span,
    )


@st.composite
def gates(draw: st.DrawFn) -> tuple[Collection, list[float]]:
    parts = draw(st.lists(members(), min_size=1, max_size=6))
    if not any(part.weight > 0 for part in parts):
        parts[0] = replace(parts[0], weight=1.0)
    values = draw(st.lists(scores, min_size=len(parts), max_size=len(parts)))
    collection = Collection(
        id="c", name="c", category="c", benchmarks=tuple(parts), threshold=50.0, scale=Scale.PERCENT
    )
    return collection, values


def _score(collection: Collection, values: list[float]) -> float:
    found = {i: Found(((value, Origin("f", 1)),)) for i, value in enumerate(values)}
    score = evaluate(collection, found).score
    assert score is not None
    return score


@given(gates(), st.data())
def test_improving_one_score_never_lowers_the_aggregate(
    gate: tuple[Collection, list[float]], data: st.DataObject
) -> None:
    collection, values = gate
    index = data.draw(st.integers(min_value=0, max_value=len(values) - 1))
    step = data.draw(st.floats(min_value=0.0, max_value=1e6, allow_nan=False))
    member = collection.benchmarks[index]
    better = list(values)
    better[index] = values[index] - step if member.lower_is_better else values[index] + step
    assert _score(collection, better) >= _score(collection, values) - 1e-9


@given(gates(), st.floats(min_value=1e-3, max_value=1e3, allow_nan=False))
def test_scaling_every_weight_leaves_the_aggregate_unchanged(
    gate: tuple[Collection, list[float]], factor: float
) -> None:
    collection, values = gate
    scaled = replace(
        collection,
        benchmarks=tuple(replace(m, weight=m.weight * factor) for m in collection.benchmarks),
    )
    assert abs(_score(scaled, values) - _score(collection, values)) <= 1e-6


@given(gates())
def test_the_aggregate_stays_on_the_collections_scale(gate: tuple[Collection, list[float]]) -> None:
    collection, values = gate
    assert 0.0 <= _score(collection, values) <= 100.0
