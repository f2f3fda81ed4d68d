"""Properties of the gate over random collections and results (hypothesis).

- permuting files, file names and entries never changes a verdict (nor the aggregate);
- multiplying every weight by one constant never changes it;
- a score moved in the better direction never turns a pass into a fail, nor lowers the aggregate;
- the aggregate stays on the collection's scale.

Numbers are drawn as decimals with a few places, as people write them in YAML, so the exact
arithmetic can be asserted with `==`.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.collections.aggregate import Candidate, Found, GateResult, Origin, evaluate
from bot.collections.model import Collection, CollectionBenchmark, Scale, exact
from bot.collections.scores import ResultsLayer, find_scores
from bot.validation.validate import validate_results_files
from tests.unit.collections.helpers import MemorySource, checked


def decimals(low: str, high: str, places: int = 3) -> st.SearchStrategy[float]:
    return st.decimals(Decimal(low), Decimal(high), places=places).map(lambda d: float(str(d)))


weights = st.one_of(st.just(0.0), decimals("0.001", "1000"))


@st.composite
def members(draw: st.DrawFn) -> CollectionBenchmark:
    low = draw(decimals("-1000", "1000"))
    span = draw(decimals("0.001", "1000"))
    high = float(Decimal(str(low)) + Decimal(str(span)))
    threshold = draw(st.one_of(st.none(), decimals(str(low), str(high))))
    return CollectionBenchmark(
        id="o/b",
        task_id="t",
        metric="value",
        weight=draw(weights),
        lower_is_better=draw(st.booleans()),
        low=low,
        high=high,
        threshold=threshold,
    )


@st.composite
def gates(draw: st.DrawFn) -> tuple[Collection, list[float | None]]:
    parts = draw(st.lists(members(), min_size=1, max_size=6))
    if not any(part.weight > 0 for part in parts):
        parts[0] = replace(parts[0], weight=1.0)
    values = [draw(st.one_of(st.none(), decimals(str(part.low), str(part.high)))) for part in parts]
    collection = Collection(
        id="c",
        name="c",
        category="c",
        benchmarks=tuple(parts),
        threshold=draw(decimals("0", "100", 2)),
        scale=Scale.PERCENT,
        allow_missing=draw(st.booleans()),
        require_all=draw(st.booleans()),
        missing_as_zero=draw(st.booleans()),
    )
    return collection, values


def _found(values: list[float | None]) -> dict[int, Found]:
    return {
        index: Found((Candidate(value, Origin("f.yaml", index + 1)),))
        for index, value in enumerate(values)
        if value is not None
    }


def _verdict(result: GateResult) -> tuple[object, ...]:
    return (
        result.passed,
        result.exact_score,
        tuple(item.status for item in result.benchmarks),
        tuple((reason.code, reason.benchmark, reason.blocking) for reason in result.reasons),
    )


@given(gates(), st.data())
def test_a_better_score_never_turns_a_pass_into_a_fail(
    gate: tuple[Collection, list[float | None]], data: st.DataObject
) -> None:
    collection, values = gate
    present = [index for index, value in enumerate(values) if value is not None]
    if not present:
        return
    index = data.draw(st.sampled_from(present))
    member = collection.benchmarks[index]
    old = values[index]
    assert old is not None
    best = member.low if member.lower_is_better else member.high
    low, high = sorted((old, best))
    moved = data.draw(decimals(str(low), str(high)))
    better = list(values)
    better[index] = moved
    before = evaluate(collection, _found(values))
    after = evaluate(collection, _found(better))
    assert not before.passed or after.passed
    if before.exact_score is not None and after.exact_score is not None:
        assert after.exact_score >= before.exact_score


@given(gates(), decimals("0.001", "1000"))
def test_scaling_every_weight_by_one_constant_changes_nothing(
    gate: tuple[Collection, list[float | None]], factor: float
) -> None:
    collection, values = gate
    scaled = replace(
        collection,
        benchmarks=tuple(
            replace(part, weight=float(Decimal(str(part.weight)) * Decimal(str(factor))))
            for part in collection.benchmarks
        ),
    )
    assert _verdict(evaluate(scaled, _found(values))) == _verdict(
        evaluate(collection, _found(values))
    )


@given(gates())
def test_the_order_of_candidates_changes_nothing(
    gate: tuple[Collection, list[float | None]],
) -> None:
    collection, values = gate
    found = _found(values)
    doubled = {
        index: Found((*hit.candidates, Candidate(values[index], Origin("g.yaml", 1))))
        for index, hit in found.items()
    }
    reordered = {index: Found(tuple(reversed(hit.candidates))) for index, hit in doubled.items()}
    assert _verdict(evaluate(collection, reordered)) == _verdict(evaluate(collection, doubled))


@given(gates())
def test_the_aggregate_stays_on_the_collections_scale(
    gate: tuple[Collection, list[float | None]],
) -> None:
    collection, values = gate
    score = evaluate(collection, _found(values)).exact_score
    assert score is None or 0 <= score <= exact(collection.scale.top)


# --- through real validation: files, names and entry order ------------------------------------

GATE = """\
name: perm
category: x
pass_criteria:
  threshold: 50
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    notes: a
    threshold: 40
    scale: percent
  - id: Idavidrein/gpqa
    task_id: diamond
    notes: b
    scale: percent
  - id: TIGER-Lab/MMLU-Pro
    task_id: mmlu_pro
    threshold: 60
    scale: percent
"""
KINDS = {
    "gpqa-a": "- dataset: {{id: Idavidrein/gpqa, task_id: diamond}}\n  value: {v}\n  notes: a\n",
    "gpqa-b": "- dataset: {{id: Idavidrein/gpqa, task_id: diamond}}\n  value: {v}\n  notes: b\n",
    "mmlu": "- dataset: {{id: TIGER-Lab/MMLU-Pro, task_id: mmlu_pro}}\n  value: {v}\n",
}
entries = st.lists(
    st.tuples(st.sampled_from(sorted(KINDS)), decimals("0", "120", 1)), min_size=1, max_size=6
)
stems = st.lists(
    st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8), min_size=6, max_size=6
).filter(lambda names: len(set(names)) == len(names))


def _files(
    items: list[tuple[str, float]], placing: list[int], names: list[str]
) -> dict[str, bytes]:
    files: dict[str, str] = {}
    for (kind, value), where in zip(items, placing, strict=True):
        path = f".eval_results/{names[where]}.yaml"
        files[path] = files.get(path, "") + KINDS[kind].format(v=value)
    return {path: text.encode() for path, text in files.items()}


@settings(max_examples=40, deadline=None)
@given(entries, st.data())
def test_file_names_placement_and_entry_order_never_change_the_verdict(
    items: list[tuple[str, float]], data: st.DataObject
) -> None:
    collection = checked(GATE)
    verdicts = set()
    for _ in range(2):
        names = data.draw(stems)
        placing = data.draw(st.lists(st.integers(0, 5), min_size=len(items), max_size=len(items)))
        order = data.draw(st.permutations(range(len(items))))
        shuffled = [items[i] for i in order]
        placed = [placing[i] for i in order]
        files = _files(shuffled, placed, names)
        layer = ResultsLayer(validate_results_files(files, MemorySource()))
        verdicts.add(_verdict(evaluate(collection, find_scores(collection, [layer]))))
    assert len(verdicts) == 1
