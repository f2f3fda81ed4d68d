"""Every user-facing text of the PR comment, the `help` reply and the validation report, in one
place to review; templates are filled with escaped or bot-made values."""

from __future__ import annotations

from enum import StrEnum


class Badge(StrEnum):
    VERIFIED = "verified"
    COMMUNITY = "community"
    LEADERBOARD = "leaderboard"
    SOURCE = "source"


#: Hidden marker by which the bot finds its own report comment again (with the author check).
REPORT_MARKER = "<!-- evalbot:pr-report -->"
#: Hidden marker naming the head SHA the report reflects: `<!-- evalbot:head=<40-hex> -->`.
HEAD_MARKER = "<!-- evalbot:head={sha} -->"

#: The Hub documents no size limit for comment markdown (docs/hub-api.md#unknowns).
#: 60,000 characters is a safe cap, well under GitHub's 65,536 that similar bots design for.
MAX_COMMENT_CHARS = 60_000
#: GitHub caps a job step's summary at 1 MiB; the report stays well under it.
MAX_SUMMARY_CHARS = 500_000

BADGE_LABELS: dict[Badge, str] = {
    Badge.VERIFIED: "✅ verified",
    Badge.COMMUNITY: "👥 community",
    Badge.LEADERBOARD: "🏆 leaderboard",
    Badge.SOURCE: "🔗 source",
}
#: What each badge means, for readers of the help reply and the bot's web page.
BADGE_MEANINGS: dict[Badge, str] = {
    Badge.VERIFIED: "a signed token from a trusted issuer matches the result exactly",
    Badge.COMMUNITY: "the result rests on its submitter's word (no token, or one not accepted)",
    Badge.LEADERBOARD: "the benchmark is known, so the result can rank on its leaderboard",
    Badge.SOURCE: "the result cites an http(s) source",
}
GLYPH_ERROR = "❌"
GLYPH_WARNING = "⚠️"
GLYPH_OK = "✔️"
GLYPH_INFO = "\u2139\ufe0f"  # information source
GLYPH_REMOVED = "🗑️"

#: How the 🔗 badge reads for each state of a source (docs/comment.md#sources): a record of a
#: trusted datastore that the entry agrees with, one that could not be read, any other link.
SOURCE_LABELS: dict[str, str] = {
    "checked": "🔗 source " + GLYPH_OK + " checked",
    "unreadable": "🔗 source (not checked)",
    "linked": "🔗 source",
}
#: Under the verdict: which record the source was checked against, or why it was not read.
SOURCE_CHECKED_NOTE = "source checked against record {record} at {revision}"
SOURCE_MISMATCH_NOTE = "source disagrees with its record (see the problems)"
SOURCE_UNREAD_NOTE = "source record not checked: {reason}"
#: The line under the summary when entries cite sources; the parts with a count above 0.
SOURCES_SUMMARY = "**Sources:** {parts}."
SOURCES_PARTS: dict[str, str] = {
    "checked": "{count} checked against {their} Every Eval Ever {records} " + GLYPH_OK,
    "mismatch": "{count} {disagree} with {their} {records} " + GLYPH_ERROR,
    "unreadable": (
        "{count} could not be read (not checked; the next run reads {them} again) " + GLYPH_WARNING
    ),
    "linked": "{count} linked only (not a datastore record: not checked)",
}

#: Glyphs a user string may not contain: they would let a note pose as a badge or verdict.
RESERVED_GLYPHS: tuple[str, ...] = ("✅", "👥", "🏆", "🔗", "❌", "⚠", "✔", "\u2139", "🗑", "🤖")

TITLE = "### Evaluation results check"

SUMMARY = (
    "**{results} {results_word} in {files} {files_word}:** {verified} verified, "
    "{community} community, {invalid} with errors · {errors} {errors_word}, "
    "{warnings} {warnings_word}"
)
SUMMARY_NO_RESULTS = "**No results to check in this PR.**"
SUMMARY_NOTHING_CHECKED = "**No results to check.**"

STATE_BANNERS = {
    "draft": (
        "> " + GLYPH_INFO + " This PR is a **draft**: the report is updated as it changes; "
        "publish it when the results are ready for review."
    ),
    "merged": (
        "> " + GLYPH_INFO + " This PR has been **merged**. The report below reflects its last "
        "head; the results now live on the main branch."
    ),
    "closed": (
        "> " + GLYPH_INFO + " This PR is **closed**. Its results are not shown on the model "
        "page; the report below reflects its last head."
    ),
}

FILE_HEADING_OK = "#### " + GLYPH_OK + " {path}"
FILE_HEADING_ERRORS = "#### " + GLYPH_ERROR + " {path}"
TABLE_HEADER = (
    "| # | line | benchmark | task | metrics | badges | verdict |\n|---|---|---|---|---|---|---|"
)
TABLE_ROW = "| {number} | {line} | {benchmark} | {task} | {metrics} | {badges} | {verdict} |"
NO_ENTRIES = "_No entries could be read from this file._"
UNKNOWN = "—"
MORE_METRICS = "+{count} more"

VERDICT_VALID = GLYPH_OK + " valid"
VERDICT_WARNINGS = GLYPH_WARNING + " valid, {count} {warnings_word}"
VERDICT_INVALID = GLYPH_ERROR + " {count} {errors_word}"
UNVERIFIED_NOTE = "token not verified: {reason}"
REASON_UNKNOWN = "unknown-reason"

PROBLEMS_SUMMARY = "{count} {problems_word} in this file"
PROBLEM_ENTRY_WHERE = "entry #{number}"
PROBLEM_FILE_WHERE = "file"
PROBLEM_AT_LINE = ", line {line}"
PROBLEM_LINE = "- {glyph} **{where}** `{code}`: {message}"
PROBLEM_HINT = "<br>**Fix:** {hint}"
#: The field in the Hub's notation (`[18].source.url`, 0-based like the Hub's own errors).
PROBLEM_PLACE = "{place}: {message}"
TOKEN_PROBLEM = (
    "- " + GLYPH_INFO + " **entry #{number}, line {line}** `{reason}`: the verify token "
    "was not accepted, so this result is shown as a community claim. Look the code up in "
    "the verification docs."
)

REMOVED_HEADING = (
    GLYPH_REMOVED
    + " **Result files removed by this PR** (their results leave the model page on merge):"
)
MISPLACED_HEADING = (
    GLYPH_WARNING + " **Files the Hub will not read as results** (only `.eval_results/*.yaml`, "
    "one level deep, is read):"
)
LIST_ITEM = "- {item}"
MORE_ITEMS = "… and {count} more"
#: Removed and misplaced files listed by name, at most this many each (the rest are counted).
MAX_LISTED_FILES = 20

TRIMMED = (
    "> " + GLYPH_WARNING + " This report was trimmed to fit a Hub comment: "
    "{entries} {entries_word} in {files} {files_word} not shown. Run `evalbot validate` on the "
    "PR's files for the full report."
)

#: A run that was parked (or gave up) leaves this in the living comment instead of the verdict
#: of an earlier head (`render_unchecked`): the head it names was not checked.
NOT_CHECKED_MARKER = "<!-- evalbot:not-checked -->"
NOT_CHECKED = (
    "**" + GLYPH_WARNING + " Not checked:** this PR's head {head} has not been checked, so no"
    " verdict stands for it: {why}. What this comment showed before was the verdict of an"
    " earlier head; it no longer applies."
)
NOT_CHECKED_NEXT = (
    "A maintainer can ask again by commenting `@{bot} recheck`; the bot's operator finds the"
    " run among the parked events (`evalbot parked`) and can replay it."
)
NOT_CHECKED_FOOTER = (
    "---\n<sub>🤖 Automated check by {bot}, updated as this PR changes. `@{bot} help` lists the"
    " commands.</sub>"
)
#: Why a head was not checked, by the parking reason (`workers.tasks`); any other reason
#: reads `NOT_CHECKED_OTHER`.
NOT_CHECKED_WHY = {
    "hub-unavailable": "the Hub did not answer the bot's reads, through every retry",
    "hub-throttled": "the Hub's rate limit held the check back for too long",
    "hub-refused": "the Hub refused one of the bot's requests{status}",
    "crashed": "the bot failed on it with an internal error (logged for its operator)",
    "worker-lost": "the bot's worker stopped during every attempt at it",
    "busy": "another run held the PR for too long",
    "lease-lost": "every run on it outlived its lease",
}
NOT_CHECKED_STATUS = " (HTTP {status})"
NOT_CHECKED_OTHER = "the check could not be finished ({reason}), through every retry"

#: Hidden marker naming the maintainer's `recheck` comment the report answered last.
RECHECK_MARKER = "<!-- evalbot:recheck={comment_id} -->"
#: The visible trace of a heard recheck: by whom and when it was asked for this head.
RECHECK_NOTE = "<sub>🔁 Checked again at the request of @{author} (comment of {at}).</sub>"

HEAD_PLAIN = "`{short_sha}`"
HEAD_LINKED = "[`{short_sha}`]({url})"
FOOTER = (
    "---\n"
    "<sub>🤖 Automated check by {bot}, updated as this PR changes. Checked head "
    "{head}. A maintainer can re-run it by commenting `@{bot} recheck`; "
    "`@{bot} help` lists the commands.{details}</sub>"
)
#: Appended to the footer when the bot's pages have a public address.
DETAILS_LINK = " Every push's verdict: [details and history]({url})."

HELP = """{marker}
**{bot} commands** (from the repo owner, members of the owning organisation, or users on the
bot's allow-list; comments from anyone else are ignored):

- `@{bot} recheck` (or `/evalbot recheck`): validate the PR again at its current head and
  update the report comment, whose footer then names you and the time you asked. Rechecks of
  one PR are coalesced: the first runs at once, those asked within the next few seconds run
  together once, a little later.
- `@{bot} help` (or `/evalbot help`): show this list.

The report comment checks every `.eval_results/*.yaml` file this PR adds or changes against the
benchmark's `eval.yaml`, and verifies signed `verify_token`s. Badges: ✅ verified (a token from a
trusted issuer matches the result), 👥 community (the submitter's claim), 🏆 leaderboard (the
benchmark is known, the result can rank), 🔗 source (the result cites an http(s) source;
🔗 source ✔️ checked: the result agrees with the Every Eval Ever record it links).
Run the same checks before pushing with `evalbot validate`.

<sub>🤖 Automated reply.</sub>"""

#: Marks help replies, so they are never mistaken for the report (nor edited as one).
HELP_MARKER = "<!-- evalbot:help -->"
#: Names the comment a help reply answers, so a retried task never answers twice.
HELP_REPLY_MARKER = "<!-- evalbot:help-for={comment_id} -->"

# -- the validation report `evalbot validate` prints (bot.report.validation_formats) ---------

VALIDATE_SUMMARY = (
    "{files} {file_word}, {checked}: {errors} {error_word}, {warnings} {warning_word}"
)
VALIDATE_ENTRIES = "{entries} {entry_word}"
VALIDATE_RECORDS = "{records} EEE {record_word}"
VALIDATE_BENCHMARKS = "{benchmarks} {benchmark_word}"
VALIDATE_FILE_OK = "ok"
VALIDATE_FILE_COUNTS = "{errors} {error_word}, {warnings} {warning_word}"
VALIDATE_HINT = "hint"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    return singular if count == 1 else (plural_form or singular + "s")
