"""The standing and clash sections of the comment: content, and user text kept inert."""

from __future__ import annotations

from markdown_it import MarkdownIt

from bot.collections.aggregate import Candidate, Found, Origin, evaluate
from bot.report.campaign import Standing, render_clashes, render_standing
from bot.spec.clashes import Claim, Clash
from tests.unit.collections.helpers import checked
from tests.unit.collections.test_aggregate import TWO_BENCHMARKS as GATE


def found(*scores: float) -> dict[int, Found]:
    return {i: Found((Candidate(s, Origin("f.yaml", 1)),)) for i, s in enumerate(scores)}


def test_standing_row_names_score_verdict_and_flipped_thresholds() -> None:
    collection = checked(GATE)
    before = evaluate(collection, found(45.0, 55.0))
    after = evaluate(collection, found(45.0, 62.0))
    text = render_standing([Standing("two", before, after)], "alice/model")
    assert text is not None
    assert (
        "| **two** | 50.00 → 53.50 | ✔️ pass → ✔️ pass | none | "
        "TIGER-Lab/MMLU-Pro / mmlu\\_pro: 55 failed → 62 passed |"
    ) in text


def test_an_unusable_collection_says_why() -> None:
    text = render_standing([Standing("bad<x>", problem="1 error(s) <script>")], "alice/model")
    assert text is not None
    assert "<script>" not in text
    assert "&lt;script&gt;" in text


def test_clashes_link_the_other_pr_and_escape_user_text() -> None:
    mine = Claim("o/b", "t", "**bold** @someone", (("value", 1.0),), ".eval_results/a.yaml", 3)
    other = Claim("o/b", "t", "**bold** @someone", (("value", 2.0),), ".eval_results/b.yaml", 7)
    text = render_clashes([Clash(mine, other, 12)], "alice/model", "https://hub.example")
    assert text is not None
    html = MarkdownIt().render(text)
    assert "<strong>bold</strong>" not in html
    assert "@\u200bsomeone" in text
    assert '<a href="https://hub.example/alice/model/discussions/12">PR #12</a>' in html
    assert "there 2; here 1" in text
    assert render_clashes([], "alice/model", "https://hub.example") is None
