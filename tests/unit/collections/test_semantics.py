"""The gate's semantics (docs/collections.md), one property per test, through real validation.

Each test builds a model repo's `.eval_results/` files, validates them as the CLI and the bot do,
and gates them; the verdict and its reasons are what is asserted.
"""

from __future__ import annotations

from bot.collections.aggregate import GateResult, Status, Why, evaluate
from bot.collections.model import Collection
from bot.collections.render import reason_text, render_text, verdict_line
from bot.collections.scores import REPO_LIMITS, ResultsLayer, evaluate_view, find_scores
from bot.validation.validate import validate_results_files
from tests.unit.collections.helpers import MemorySource, check, checked, codes

ONE = """\
name: one
category: x
pass_criteria:
  threshold: {threshold}
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    scale: {scale}
"""
GPQA = "- dataset: {{id: Idavidrein/gpqa, task_id: diamond}}\n  value: {value}\n"


def _layer(files: dict[str, str], **kwargs: object) -> ResultsLayer:
    reports = validate_results_files(
        {path: text.encode() for path, text in files.items()}, MemorySource(), limits=REPO_LIMITS
    )
    return ResultsLayer(reports, **kwargs)  # type: ignore[arg-type]


def _gate(collection: Collection, *layers: ResultsLayer) -> GateResult:
    return evaluate(collection, find_scores(collection, list(layers)))


def _one(threshold: float = 50, scale: str = "percent") -> Collection:
    return checked(ONE.format(threshold=threshold, scale=scale))


# --- duplicates ----------------------------------------------------------------------------------


def test_two_disagreeing_files_are_ambiguous_whatever_they_are_called() -> None:
    """Validation marks the later file's entry a duplicate; the gate used to count the first,
    so renaming a file flipped FAIL 20.00 into PASS 90.00."""
    collection = _one()
    verdicts = []
    for low_name, high_name in (("a", "z"), ("z", "a")):
        files = {
            f".eval_results/{low_name}.yaml": GPQA.format(value=20),
            f".eval_results/{high_name}.yaml": GPQA.format(value=90),
        }
        result = _gate(collection, _layer(files))
        item = result.benchmarks[0]
        assert item.status is Status.AMBIGUOUS
        assert not result.passed
        assert result.score is None
        why = reason_text(result, result.reasons[0])
        assert f"20 (.eval_results/{low_name}.yaml:1)" in why
        assert f"90 (.eval_results/{high_name}.yaml:1)" in why
        verdicts.append((result.passed, item.status, why.count("yaml:1")))
    assert verdicts[0] == verdicts[1]


def test_two_entries_of_one_file_are_ambiguous_and_both_lines_are_named() -> None:
    files = {".eval_results/gpqa.yaml": GPQA.format(value=20) + GPQA.format(value=90)}
    result = _gate(_one(), _layer(files))
    assert result.benchmarks[0].status is Status.AMBIGUOUS
    assert [(c.origin.line, c.value) for c in result.benchmarks[0].candidates] == [
        (1, 20.0),
        (3, 90.0),
    ]
    assert "FAIL" in verdict_line(result)
    assert "has 2 results and no `notes:` chooses between them" in verdict_line(result)


# --- exact comparison ----------------------------------------------------------------------------


def test_a_score_equal_to_the_pass_threshold_passes() -> None:
    """0.57 on a 0-1 metric is 57 on the percent aggregate; floats made it 56.99999999999999."""
    result = _gate(
        _one(threshold=57, scale="fraction"),
        _layer({".eval_results/gpqa.yaml": GPQA.format(value=0.57)}),
    )
    assert result.passed
    assert result.score == 57.0
    assert verdict_line(result) == "PASS  57.00 / 100 (pass at 57)"


def test_a_fail_by_less_than_the_printed_precision_says_by_how_much() -> None:
    result = _gate(
        _one(threshold=57, scale="fraction"),
        _layer({".eval_results/gpqa.yaml": GPQA.format(value=0.56999)}),
    )
    assert not result.passed
    assert verdict_line(result) == (
        "FAIL  57.00 / 100 (pass at 57): the aggregate 57.00 is below the pass threshold 57 "
        "by 0.001"
    )


# --- caps ----------------------------------------------------------------------------------------


def test_a_repo_with_more_files_than_a_pr_may_carry_is_read_whole() -> None:
    """The 100-files cap is for a PR; a collection over a repo may need more files."""
    count = 120
    members = "".join(
        f"  - {{id: Idavidrein/gpqa, task_id: diamond, notes: run{i}, scale: percent}}\n"
        for i in range(count)
    )
    collection = checked(
        f"name: many\ncategory: x\npass_criteria: {{threshold: 50}}\nbenchmarks:\n{members}"
    )
    files = {
        f".eval_results/gpqa_{i:03}.yaml": GPQA.format(value=60) + f"  notes: run{i}\n"
        for i in range(count)
    }
    result = _gate(collection, _layer(files))
    assert [item.status for item in result.benchmarks] == [Status.NOT_GATED] * count
    assert result.passed


# --- out of scale --------------------------------------------------------------------------------


def test_a_value_outside_the_declared_scale_is_refused_not_clamped() -> None:
    """150 under `scale: percent` used to count as 100."""
    result = _gate(_one(), _layer({".eval_results/gpqa.yaml": GPQA.format(value=150)}))
    item = result.benchmarks[0]
    assert item.status is Status.INVALID
    assert item.problems == ("COLL-SCORE-RANGE",)
    assert not result.passed
    why = reason_text(result, result.reasons[0])
    assert "150 [.eval_results/gpqa.yaml:1] is outside [0, 100]" in why


def test_reference_bounds_still_clamp() -> None:
    """Reference bounds (for unbounded metrics) are not a range the results are on."""
    collection = checked(
        """\
name: cost
category: x
pass_criteria: {threshold: 50}
benchmarks:
  - id: MathArena/aime_2026
    task_id: aime_2026
    metric: cost_usd
    lower_is_better: true
    bounds: {best: 0, worst: 50}
"""
    )
    entry = (
        "- dataset: {id: MathArena/aime_2026, task_id: aime_2026}\n"
        "  metrics:\n    - {metric_id: cost_usd, value: 80}\n"
    )
    result = _gate(collection, _layer({".eval_results/aime_2026.yaml": entry}))
    assert result.benchmarks[0].status is Status.NOT_GATED
    assert result.score == 0.0


# --- invalid results -----------------------------------------------------------------------------


def test_an_invalid_result_is_named_with_its_code_not_shown_as_missing() -> None:
    result = _gate(_one(), _layer({".eval_results/gpqa.yaml": GPQA.format(value=".nan")}))
    item = result.benchmarks[0]
    assert item.status is Status.INVALID
    assert item.problems
    text = render_text(result, "model")
    assert "missing" not in text
    assert f"is invalid ({item.problems[0]}" in text


# --- allow_missing -------------------------------------------------------------------------------

TWO = """\
name: two
category: x
pass_criteria:
  threshold: 50
  allow_missing: true{extra}
benchmarks:
  - id: Idavidrein/gpqa
    task_id: diamond
    scale: percent
  - id: TIGER-Lab/MMLU-Pro
    task_id: mmlu_pro
    scale: percent
"""


def test_allow_missing_says_which_benchmark_it_left_out() -> None:
    result = _gate(
        checked(TWO.format(extra="")), _layer({".eval_results/gpqa.yaml": GPQA.format(value=60)})
    )
    assert result.passed
    assert result.score == 60.0
    (reason,) = result.reasons
    assert reason.code is Why.LEFT_OUT
    assert not reason.blocking
    assert "TIGER-Lab/MMLU-Pro / mmlu_pro has no result and is left out" in render_text(result, "m")


def test_missing_as_zero_counts_a_missing_benchmark_at_its_worst() -> None:
    """Otherwise a model can skip its weakest benchmark and pass."""
    result = _gate(
        checked(TWO.format(extra="\n  missing_as_zero: true")),
        _layer({".eval_results/gpqa.yaml": GPQA.format(value=60)}),
    )
    assert result.score == 30.0
    assert not result.passed
    assert [reason.code for reason in result.reasons] == [Why.BELOW, Why.COUNTED_ZERO]


# --- the merged view -----------------------------------------------------------------------------


def test_a_pr_that_deletes_a_needed_entry_from_a_changed_file_fails_after() -> None:
    """The PR's layer used to add to main's, so main's deleted entry still counted."""
    collection = checked(TWO.format(extra="").replace("  allow_missing: true", ""))
    mmlu = "- dataset: {id: TIGER-Lab/MMLU-Pro, task_id: mmlu_pro}\n  value: 70\n"
    main = _layer({".eval_results/results.yaml": GPQA.format(value=60) + mmlu})
    pr = _layer({".eval_results/results.yaml": GPQA.format(value=60)}, pr=4)
    assert _gate(collection, main).passed
    after = _gate(collection, main, pr)
    assert not after.passed
    assert after.benchmarks[1].status is Status.MISSING


def test_a_pr_adding_a_second_result_with_other_notes_makes_the_benchmark_ambiguous() -> None:
    collection = _one()
    main = _layer({".eval_results/gpqa.yaml": GPQA.format(value=60)})
    pr = _layer({".eval_results/gpqa_tools.yaml": GPQA.format(value=20) + "  notes: tools\n"}, pr=5)
    after = _gate(collection, main, pr)
    assert after.benchmarks[0].status is Status.AMBIGUOUS
    assert {c.origin.pr for c in after.benchmarks[0].candidates} == {None, 5}
    assert not after.passed


def test_a_deleted_file_is_gone_after_the_merge() -> None:
    collection = _one()
    main = _layer({".eval_results/gpqa.yaml": GPQA.format(value=60)})
    pr = ResultsLayer([], pr=6, removed=frozenset({".eval_results/gpqa.yaml"}))
    assert _gate(collection, main, pr).benchmarks[0].status is Status.MISSING


# --- the collection file -------------------------------------------------------------------------


def test_a_threshold_between_0_and_1_on_a_percent_scale_is_flagged() -> None:
    """EvalHub's 0.758 read on evalbot's percent scale let a 33 % model pass, silently."""
    collection, diagnostics = check(ONE.format(threshold=0.758, scale="percent"))
    assert collection is not None
    assert codes(diagnostics) == ["COLL-THRESHOLD-FRACTION"]
    (warning,) = diagnostics
    assert warning.line == 4
    assert "write 75.8" in (warning.hint or "")
    per_benchmark = ONE.format(threshold=50, scale="percent") + "    threshold: 0.6\n"
    assert codes(check(per_benchmark)[1]) == ["COLL-THRESHOLD-FRACTION"]


def test_the_content_hash_names_the_collections_bytes() -> None:
    first = _one()
    assert first.content_hash is not None
    assert first.content_hash.startswith("sha256:")
    assert _one(threshold=51).content_hash != first.content_hash
    assert _one().content_hash == first.content_hash


def test_an_unreadable_results_file_is_named_and_blocks_when_something_is_missing() -> None:
    """A results file with a YAML error used to leave its benchmark "missing", unsaid."""
    collection = _one()
    broken = {".eval_results/gpqa.yaml": "- dataset: {id: Idavidrein/gpqa\n  value: 60\n"}
    result = evaluate_view(collection, [_layer(broken)])
    assert result.benchmarks[0].status is Status.MISSING
    codes_ = [reason.code for reason in result.reasons]
    assert codes_ == [Why.MISSING, Why.UNREADABLE, Why.NO_SCORE]
    text = reason_text(result, result.reasons[1])
    assert text.startswith(".eval_results/gpqa.yaml:")
    assert "could not be read (YAML-" in text
    assert "a missing benchmark may be in it" in text
    fine = {".eval_results/gpqa.yaml": GPQA.format(value=60), ".eval_results/x.yaml": "[a"}
    result = evaluate_view(collection, [_layer(fine)])
    assert result.passed
    (reason,) = result.reasons
    assert reason.code is Why.UNREADABLE
    assert not reason.blocking
