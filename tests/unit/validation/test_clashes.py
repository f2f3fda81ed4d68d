"""Claims made twice across PRs: duplicates (same values) and conflicts (different ones)."""

from __future__ import annotations

from bot.validation.clashes import Claim, claims_of, find_clashes, proposed
from bot.validation.validate import validate_results_files
from tests.unit.collections.helpers import MemorySource


def claim(path: str, value: float, notes: str | None = None, line: int = 1) -> Claim:
    return Claim("Idavidrein/gpqa", "diamond", notes, (("value", value),), path, line)


def test_claims_come_from_valid_entries_only_with_their_values() -> None:
    files = {
        ".eval_results/a.yaml": b"""\
- dataset: {id: Idavidrein/gpqa, task_id: diamond}
  value: 41.5
- dataset: {id: Idavidrein/gpqa, task_id: Diamond}
  value: 50
- dataset: {id: MathArena/aime_2026, task_id: aime_2026}
  metrics:
    - {metric_id: cost_usd, value: 3}
    - {metric_id: accuracy, value: 80}
  notes: tools
"""
    }
    claims = claims_of(validate_results_files(files, MemorySource()))
    assert [(c.benchmark, c.values, c.notes, c.line) for c in claims] == [
        ("Idavidrein/gpqa", (("value", 41.5),), None, 1),
        ("MathArena/aime_2026", (("accuracy", 80.0), ("cost_usd", 3.0)), "tools", 5),
    ]
    assert Claim.from_json(claims[1].to_json()) == claims[1]


def test_a_duplicate_and_a_conflict_with_other_prs_and_main() -> None:
    main = [claim(".eval_results/gpqa.yaml", 41.5)]
    mine = [claim(".eval_results/new.yaml", 41.5), claim(".eval_results/new.yaml", 50, "tools")]
    others = [(3, [claim(".eval_results/x.yaml", 52.0, "tools")])]
    clashes = find_clashes(mine, main, others)
    assert [(c.claim.notes, c.pr, c.agree) for c in clashes] == [
        (None, None, True),
        ("tools", 3, False),
    ]


def test_editing_an_entry_of_a_main_file_is_not_a_duplicate_of_itself() -> None:
    main = [claim(".eval_results/gpqa.yaml", 41.5), claim(".eval_results/gpqa.yaml", 30, "cot")]
    # The PR changes one entry of gpqa.yaml; the file's other entry comes along unchanged.
    mine = [claim(".eval_results/gpqa.yaml", 42.0), claim(".eval_results/gpqa.yaml", 30, "cot")]
    assert find_clashes(mine, main, []) == []
    assert proposed(mine, main) == [mine[0]]
    # Another PR carrying the same unchanged entry is not a clash either.
    assert find_clashes(mine, main, [(9, [claim(".eval_results/gpqa.yaml", 30, "cot")])]) == []
