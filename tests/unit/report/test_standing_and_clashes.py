"""The standing and clash sections of the comment: content, and user text kept inert."""

from __future__ import annotations

import re
from html import unescape

from markdown_it import MarkdownIt

from bot.collections.aggregate import Candidate, Found, Origin, evaluate
from bot.report.standing_and_clashes import Standing, render_clashes, render_standing
from bot.validation.clashes import Claim, Clash
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


def test_standing_row_says_why_the_merged_repo_fails_with_its_sources_escaped() -> None:
    collection = checked(GATE)
    before = evaluate(collection, found(45.0, 55.0))
    two = (Candidate(45.0, Origin("a|<b>.yaml", 1)), Candidate(70.0, Origin("c.yaml", 2, pr=3)))
    after = evaluate(collection, {0: Found(two), 1: Found((Candidate(55.0, Origin("f", 1)),))})
    text = render_standing([Standing("two", before, after)], "alice/model")
    assert text is not None
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert html.count("<td>") == 5  # a pipe in a path cannot end a cell
    assert "<b>" not in html
    shown = unescape(re.sub(r"<[^>]+>", "", html))
    assert (
        "Idavidrein/gpqa / diamond has 2 results and no `notes:` chooses between them: "
        "45 (a|<b>.yaml:1), 70 (PR #3 c.yaml:2)"
    ) in shown


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


def test_a_conflict_names_each_sides_source_and_whether_it_agrees_with_its_record() -> None:
    record = {
        "source_url": "https://hub.example/datasets/evaleval/EEE_datastore/blob/c0/flat/x.json",
        "source_datastore": "evaleval/EEE_datastore",
        "source_revision": "c0",
        "source_path": "flat/objects/67/6f/x).json",
    }
    mine = Claim(
        "o/b", "t", None, (("value", 52.29),), ".eval_results/a.yaml", 3,
        source_status="checked", **record,
    )  # fmt: skip
    other = Claim(
        "o/b", "t", None, (("value", 96.8),), ".eval_results/b.yaml", 7,
        source_status="mismatch", **record,
    )  # fmt: skip
    text = render_clashes([Clash(mine, other, 12)], "alice/model", "https://hub.example")
    assert text is not None
    link = (
        "https://hub.example/datasets/evaleval/EEE_datastore/blob/c0/flat/objects/67/6f/x%29.json"
    )
    assert (
        f"<br>Source here: [the record]({link}), ✔️ agrees with its record; there: "
        f"[the record]({link}), ❌ disagrees with its record." in text
    )
    plain = Claim("o/b", "t", None, (("value", 1.0),), "a.yaml", 1, source_url="https://x.org")
    bare = Claim("o/b", "t", None, (("value", 2.0),), "b.yaml", 2)
    text = render_clashes([Clash(plain, bare, None)], "alice/model", "https://hub.example")
    assert text is not None
    assert "Source here: cited, not checked in this run; there: none." in text
    no_sources = render_clashes([Clash(bare, bare, None)], "m/x", "https://h")
    assert no_sources is not None
    assert "Source here" not in no_sources  # neither side cites one


def test_claims_keep_their_source_through_the_cache_and_read_older_entries() -> None:
    claim = Claim(
        "o/b", "t", None, (("value", 1.0),), "a.yaml", 1,
        source_url="u", source_status="checked", source_datastore="d/s", source_revision="r",
        source_path="p",
    )  # fmt: skip
    assert Claim.from_json(claim.to_json()) == claim
    older = {k: v for k, v in claim.to_json().items() if k != "source"}
    assert Claim.from_json(older) == Claim("o/b", "t", None, (("value", 1.0),), "a.yaml", 1)
