"""Texts of the comment sections about more than the PR itself: collection standing, clashes."""

from __future__ import annotations

from bot.report.comment_texts import GLYPH_ERROR, GLYPH_INFO, GLYPH_OK, GLYPH_WARNING

STANDING_HEADING = "#### 📊 Collection standing (before → after this PR)"
STANDING_TABLE = (
    "| collection | score | verdict | why, after this PR | thresholds that flip |\n"
    "|---|---|---|---|---|"
)
STANDING_ROW = (
    "| {collection} | {before_score} → {after_score} | {before} → {after} | {why} | {flips} |"
)
STANDING_INVALID = "- " + GLYPH_WARNING + " **{collection}** could not be used: {problem}"
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
    "with the **same** {values_word} ({values}): a duplicate.{sources}"
)
CLASH_DIFFERENT = (
    "- " + GLYPH_WARNING + " **{path}, line {line}** {benchmark} / {task}{notes}: also {where} "
    "with **different** {values_word} (there {other_values}; here {values}): a conflict to "
    "settle before both are merged.{sources}"
)
#: Each side's source, when either cites one (docs/comment.md#sources).
CLASH_SOURCES = "<br>Source here: {here}; there: {there}."
SOURCE_NONE = "none"
SOURCE_STATES = {
    "checked": "{record}, " + GLYPH_OK + " agrees with its record",
    "mismatch": "{record}, " + GLYPH_ERROR + " disagrees with its record",
    "unreadable": "{record}, not checked (it could not be read)",
    "linked": "a link, not checked (not a datastore record)",
    None: "cited, not checked in this run",
}
SOURCE_RECORD = "[the record]({url})"
SOURCE_RECORD_PLAIN = "a record"
WHERE_MAIN = "on main in {path}, line {line}"
WHERE_PR = "proposed in [PR #{num}]({url}) ({path}, line {line})"
WHERE_PR_PLAIN = "proposed in PR #{num} ({path}, line {line})"
NOTES = " (notes: {notes})"
MORE_CLASHES = "… and {count} more"
MAX_CLASHES = 20
MAX_REASONS = 5  # reasons shown per collection row; the rest are counted

IMPACT_HEADING = "#### 🧭 What this change does to results already on the Hub"
IMPACT_NONE = (
    "No task or metric is removed or renamed, and the ranking is unchanged: the {count} "
    "{results_word} on this benchmark's leaderboard are unaffected."
)
IMPACT_UNREAD = (
    "The current or the proposed eval.yaml has errors, so the change to existing results "
    "cannot be assessed."
)
CHANGE_TEXTS = {
    "task-removed": "task **{old}** removed",
    "task-renamed": (
        "task **{old}** renamed to **{new}** (read as a rename: one id removed, one added)"
    ),
    "metric-removed": "metric **{old}** removed",
    "metric-renamed": (
        "metric **{old}** renamed to **{new}** (read as a rename: one id removed, one added)"
    ),
    "primary-changed": "primary metric changed from **{old}** to **{new}**",
    "direction-flipped": "`higher_is_better` of metric **{old}** flipped",
}
ORPHANED = (
    GLYPH_ERROR + " **{count} {results_word} would be orphaned** (no longer valid against the "
    "new eval.yaml), of {total} on the leaderboard:"
)
ORPHAN_ITEM = "- {model} **{path}** line {line}{pr}{task}: {cause}"
RERANKED = (
    GLYPH_WARNING + " **{count} {results_word} would be re-ranked** (the ranking metric or "
    "its direction changes):"
)
RERANK_ITEM = "- {model} **{path}** line {line}{pr}{task}"
IN_PR = " (open PR #{num})"
TASK = ", task **{task}**"
UNREAD_FILES = "<sub>{count} more results files on the leaderboard were not read (cap).</sub>"
MAX_LISTED = 30
