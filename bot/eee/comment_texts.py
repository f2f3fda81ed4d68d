"""The texts of a datastore PR's living comment (`bot.eee.comment`)."""

from __future__ import annotations

from bot.report.comment_texts import GLYPH_INFO

TITLE = "### Every Eval Ever submission check"
STATE_BANNERS = {
    "draft": "> " + GLYPH_INFO + " This PR is a **draft**: the report is updated as it changes;"
    " publish it when the records are ready for review.",
    "merged": "> " + GLYPH_INFO + " This PR has been **merged**: its records are on main, where"
    " the next PRs are compared with them. The report below reflects its last head.",
    "closed": "> " + GLYPH_INFO + " This PR is **closed**: its records are no longer compared"
    " with other PRs. The report below reflects its last head.",
}
VERDICT_READY = "**✅ Ready to merge:** {files} {files_word} checked, no errors{warnings}."
VERDICT_BLOCKED = (
    "**❌ Not ready to merge:** {errors} {errors_word} in {bad} of {files} {files_word}"
    "{warnings}. Each is listed below with its fix."
)
VERDICT_WARNINGS_BLOCK = (
    "**❌ Not ready to merge:** no errors, but {warnings} {warnings_word}, and this datastore"
    " treats warnings as blocking."
)
VERDICT_FOLDER_BLOCKS = (
    "**❌ Not ready to merge:** no errors, but {blocking} {warnings_word} that {verb} the merge"
    " (`EEE-FOLDER`: a record's folder must follow its `model_info`, as in EEE's own gate)."
)
VERDICT_NOTHING = (
    "**No datastore files in this PR** (only `.json` records and `_samples.jsonl` files are"
    " checked)."
)
WARNINGS_SUFFIX = ", {warnings} {warnings_word}"
FOLDER_HEADING = "#### {glyph} `{folder}` ({files} {files_word})"
FILE_OK = "- ✔️ `{name}`"
FILE_DELETED = "- 🗑️ `{name}`: deleted"
FILE_PROBLEMS = "- {glyph} `{name}`"
PROBLEM = "  - `{code}`{place}: {message}<br>**Fix:** {hint}"
PROBLEM_NO_HINT = "  - `{code}`{place}: {message}"
PROBLEM_PLACE = " at **{place}**"
PROBLEM_LINE = " line {line}"
MORE_PROBLEMS = "  - … and {count} more in this file"
MORE_IN_FOLDER = "- … and {count} more files in this folder"
MORE_FILES = (
    "> ⚠️ {files} more {files_word} ({bad} with errors) in {folders} more {folders_word}"
    " are not shown, to keep this comment readable; `evalbot validate` on the PR's files"
    " lists every finding."
)
UNREAD_PRS = (
    "<sub>Duplicates were looked for on main and in the lowest-numbered other open PRs;"
    " {count} more open {prs_word} were not compared.</sub>"
)
NOT_COMPARED = (
    "> ⏳ Duplicates were not yet looked for in open {prs_word} {prs}: comparing with them"
    " would have taken more of the Hub than one run may spend. {then}"
)
FOLLOW_UP = "A follow-up run compares them in about a minute and updates this comment."
NO_FOLLOW_UP = (
    "The follow-up runs of this head could not finish the comparison; a maintainer can"
    " comment `@{bot} recheck` to try again."
)
MORE_PRS = " and {count} more"
SKIPPED = "<sub>Not checked (no datastore file): {count} {files_word}.</sub>"


def plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"
