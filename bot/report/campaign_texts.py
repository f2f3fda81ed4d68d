"""Texts of the comment sections about more than the PR itself: collection standing, clashes."""

from __future__ import annotations

from bot.report.texts import GLYPH_ERROR, GLYPH_INFO, GLYPH_OK, GLYPH_WARNING

STANDING_HEADING = "#### 📊 Collection standing (before → after this PR)"
STANDING_TABLE = "| collection | score | verdict | thresholds that flip |\n|---|---|---|---|"
STANDING_ROW = "| {collection} | {before_score} → {after_score} | {before} → {after} | {flips} |"
STANDING_INVALID = "- " + GLYPH_WARNING + " `{collection}` could not be used: {problem}"
STANDING_NONE = "none"
STANDING_NO_SCORE = "—"
PASS = GLYPH_OK + " pass"
FAIL = GLYPH_ERROR + " fail"
FLIP = "{benchmark}: {before} → {after}"
STANDING_NOTE = (
    "<sub>Scores are on each collection's scale after putting every benchmark on it; "
    "`evalbot gate --collection ID {repo}` gives the full breakdown.</sub>"
)

CLASHES_HEADING = "#### " + GLYPH_WARNING + " Results also proposed elsewhere"
CLASH_SAME = (
    "- " + GLYPH_INFO + " **{path}, line {line}** {benchmark} / {task}{notes}: already {where} "
    "with the **same** {values_word} ({values}): a duplicate."
)
CLASH_DIFFERENT = (
    "- " + GLYPH_WARNING + " **{path}, line {line}** {benchmark} / {task}{notes}: also {where} "
    "with **different** {values_word} (there {other_values}; here {values}): a conflict to "
    "settle before both are merged."
)
WHERE_MAIN = "on main in {path}, line {line}"
WHERE_PR = "proposed in [PR #{num}]({url}) ({path}, line {line})"
WHERE_PR_PLAIN = "proposed in PR #{num} ({path}, line {line})"
NOTES = " (notes: {notes})"
MORE_CLASHES = "… and {count} more"
MAX_CLASHES = 20
