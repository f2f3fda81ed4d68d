"""`bot.eee.comment`: the verdict first, files by folder, capped, every user string inert."""

from __future__ import annotations

from bot.eee import datastore_diagnostics
from bot.eee.comment import MAX_FILES, render_submission
from bot.eee.submission import DatastorePolicy, SubmissionReport
from bot.report.comment import CommentContext, head_of_comment
from bot.report.comment_texts import REPORT_MARKER
from bot.validation.model import FileReport

HEAD = "a" * 40
CONTEXT = CommentContext(
    repo_id="alice/store", pr_num=3, head_sha=HEAD, bot_name="evalbot", repo_type="dataset"
)


def path(folder: int, name: int) -> str:
    return f"data/c/d/m{folder}/{name:08d}-0000-4000-8000-000000000000.json"


def test_verdict_at_the_top_and_markers_for_the_living_comment() -> None:
    bad = FileReport(
        path(1, 1), "eee", [datastore_diagnostics.make("EEE-PATH", problem="bad `path`")]
    )
    good = FileReport(path(2, 1), "eee")
    body = render_submission(SubmissionReport([good, bad]), DatastorePolicy(), CONTEXT)
    lines = body.split("\n\n")
    assert lines[0].startswith(REPORT_MARKER)
    assert head_of_comment(body) == HEAD
    assert lines[2].startswith("**❌ Not ready to merge:** 1 error in 1 of 2 files")
    assert body.index("m1") < body.index("m2")  # folders with errors first
    assert "/datasets/alice/store/commit/" + HEAD in body


def test_warnings_block_when_the_datastore_says_so() -> None:
    deleted = FileReport(
        path(1, 1), "eee", [datastore_diagnostics.make("EEE-DELETED", path=path(1, 1))]
    )
    result = SubmissionReport([deleted])
    assert "Ready to merge" in render_submission(result, DatastorePolicy(), CONTEXT)
    blocked = render_submission(result, DatastorePolicy(warnings_block=True), CONTEXT)
    assert "treats warnings as blocking" in blocked
    assert "🗑️" in blocked


def test_a_large_upload_is_capped_with_a_count_of_the_rest() -> None:
    reports = [FileReport(path(f, n), "eee") for f in range(40) for n in range(20)]
    body = render_submission(SubmissionReport(reports), DatastorePolicy(), CONTEXT)
    assert body.count("- ✔️ `") == MAX_FILES
    assert f"{800 - MAX_FILES} more files (0 with errors)" in body
    assert len(body) < 20_000


def test_user_text_is_inert() -> None:
    hostile = "@everyone <img src=x onerror=alert(1)> [link](http://evil)"
    report = FileReport(
        "data/c/`x`/m/f.json", "eee", [datastore_diagnostics.make("EEE-PATH", problem=hostile)]
    )
    body = render_submission(SubmissionReport([report]), DatastorePolicy(), CONTEXT)
    assert "<img" not in body
    assert "@everyone" not in body
    assert "](http://evil" not in body
    assert "`data/c/?x?/m`" in body  # a backquote cannot close the code span


def test_banners_speak_of_records() -> None:
    from dataclasses import replace

    merged = replace(CONTEXT, pr_state="merged")
    closed = replace(CONTEXT, pr_state="closed")
    body = render_submission(SubmissionReport([]), DatastorePolicy(), merged)
    assert "its records are on main" in body
    body = render_submission(SubmissionReport([]), DatastorePolicy(), closed)
    assert "no longer compared" in body
    assert "model page" not in body


def test_open_prs_not_compared_are_said() -> None:
    body = render_submission(SubmissionReport([]), DatastorePolicy(), CONTEXT, beyond=3)
    assert "3 more open PRs were not compared" in body
    assert "not compared" not in render_submission(SubmissionReport([]), DatastorePolicy(), CONTEXT)


def test_open_prs_past_the_budget_are_named_with_the_follow_up() -> None:
    body = render_submission(SubmissionReport([]), DatastorePolicy(), CONTEXT, not_compared=[12, 7])
    assert "not yet looked for in open PRs #7, #12" in body
    assert "follow-up run" in body
    many = render_submission(
        SubmissionReport([]), DatastorePolicy(), CONTEXT, not_compared=list(range(1, 31))
    )
    assert "#20 and 10 more" in many
    stopped = render_submission(
        SubmissionReport([]), DatastorePolicy(), CONTEXT, not_compared=[7], follow_up=False
    )
    assert "follow-up run compares" not in stopped
    assert "recheck` to try again" in stopped


def test_a_folder_warning_blocks_the_merge_whatever_the_policy() -> None:
    folder = datastore_diagnostics.make(
        "EEE-FOLDER", field="model_info.id", problem="the model folder …", hint="x"
    )
    result = SubmissionReport([FileReport(path(1, 1), "eee", [folder])])
    body = render_submission(result, DatastorePolicy(), CONTEXT)
    assert "**❌ Not ready to merge:** no errors, but 1 warning that blocks the merge" in body
    assert "Ready to merge" not in body
    assert "- ❌ `" in body  # the file is marked as blocking
