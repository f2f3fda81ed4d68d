"""The comment as a whole: markers, hostile reports, trimming, the help reply."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from bot.report import comment_texts
from bot.report.comment import CommentContext, head_of_comment, render_comment
from bot.report.help_reply import render_help
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import (
    Benchmark,
    FileReport,
    SourceCheck,
    SourceStatus,
    TaskDef,
    Verification,
    VerificationStatus,
)
from tests.unit.report import cases
from tests.unit.report.test_escape import HOSTILE

MD = MarkdownIt("gfm-like", {"linkify": True, "html": True})
ALLOWED_TAGS = {
    "p",
    "h3",
    "h4",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "details",
    "summary",
    "br",
    "strong",
    "em",
    "code",
    "ul",
    "li",
    "blockquote",
    "sub",
    "hr",
    "a",
}


def hostile_report(text: str, reason: str = "bad-signature") -> FileReport:
    """A report where every field a user controls carries `text` (a linked record's id and
    revision, and why a record was not read, included)."""
    report = _hostile_report(text, reason)
    first, second = report.entries
    first.source = SourceCheck(
        SourceStatus.CHECKED, text, datastore=text, revision=text, path=text, record_id=text
    )
    second.source = SourceCheck(SourceStatus.UNREADABLE, text, reason=text)
    return report


def _hostile_report(text: str, reason: str) -> FileReport:
    return FileReport(
        path=f".eval_results/{text}.yaml",
        kind="results",
        diagnostics=[
            Diagnostic("E-YAML", Severity.ERROR, f"bad value {text}", line=2, hint=f"fix {text}")
        ],
        entries=[
            cases.entry(
                {
                    "dataset": {"id": text, "task_id": text},
                    "value": text,
                    "metrics": [{"metric_id": text, "value": text}],
                    "source": {"url": text},
                    "notes": text,
                },
                diagnostics=[Diagnostic(text, Severity.WARNING, text, hint=text)],
                verification=Verification(VerificationStatus.UNVERIFIED, reason),
            ),
            cases.entry(
                {"dataset": {"id": text, "task_id": text}, "value": 1},
                index=1,
                line=9,
                benchmark=Benchmark(repo_id=text, tasks=(TaskDef(text),)),
                verification=Verification(VerificationStatus.UNVERIFIED, text),
            ),
        ],
    )


def check_inert(comment: str, context: CommentContext) -> None:
    assert comment.count(comment_texts.REPORT_MARKER) == 1
    assert comment.count("<!--") == 2  # the two markers, nothing a user wrote
    assert head_of_comment(comment) == context.head_sha
    html = MD.render(comment)
    tags = {m.group(1).lower() for m in re.finditer(r"<(?:/)?([a-zA-Z][\w-]*)", html)}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    commit_page = f"{context.hub_url}/{context.repo_id}/commit/{context.head_sha}"
    for href in re.findall(r'href="([^"]*)"', html):
        assert href.startswith(f"{context.hub_url}/datasets/") or href == commit_page, href
    assert "<img" not in html
    text = re.sub(r"<[^>]+>", "", html)
    mentions = set(re.findall(r"@[\w-]+", text))
    assert mentions <= {f"@{context.bot_name}"}, mentions  # only inside the footer's code spans


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_in_every_field(text: str) -> None:
    context = cases.context(removed_files=[text], misplaced_files=[text])
    check_inert(render_comment([hostile_report(text)], context), context)


@given(st.text(max_size=40))
@settings(max_examples=60, deadline=None)
def test_any_string_in_every_field(text: str) -> None:
    context = cases.context(removed_files=[text])
    check_inert(render_comment([hostile_report(text, reason=text)], context), context)


def test_repo_id_that_is_no_repo_id_is_not_linked() -> None:
    evil = "a/b)](https://evil.example"
    report = cases.live_valid()
    report.entries[0].benchmark = Benchmark(repo_id=evil, tasks=(TaskDef("diamond"),))
    html = MD.render(render_comment([report], cases.context(repo_id=evil)))
    assert "href" not in html


def test_footer_links_the_checked_commit() -> None:
    html = MD.render(render_comment([], cases.context()))
    assert f'href="https://huggingface.co/acme/model-7b/commit/{cases.HEAD}"' in html


def test_footer_links_the_prs_details_page_when_the_pages_have_an_address() -> None:
    context = cases.context(pages_url="https://evalbot.example/")
    html = MD.render(render_comment([], context))
    assert f'href="https://evalbot.example/pr/acme/model-7b/{context.pr_num}"' in html
    assert "evalbot.example" not in render_comment([], cases.context())
    benchmark_pr = cases.context(pages_url="https://evalbot.example", repo_type="dataset")
    assert "evalbot.example" not in render_comment([], benchmark_pr)


def test_summary_counts() -> None:
    reports = [cases.live_valid(), cases.target_verified(), cases.with_errors()]
    comment = render_comment(reports, cases.context())
    assert (
        "**4 results in 3 files:** 1 verified, 2 community, 1 with errors · 2 errors, 2 warnings"
        in comment
    )


def test_live_value_is_named_after_the_primary_metric_when_known() -> None:
    known = render_comment([cases.live_valid()], cases.context())
    assert "| Accuracy: 0.412 |" in known
    report = cases.live_valid()
    report.entries[0].benchmark = None
    assert "| value: 0.412 |" in render_comment([report], cases.context())


def test_context_rejects_a_bot_name_or_sha_that_could_inject() -> None:
    with pytest.raises(ValueError, match="bot name"):
        cases.context(bot_name="x <!--")
    with pytest.raises(ValueError, match="head_sha"):
        cases.context(head_sha="HEAD -->")
    with pytest.raises(ValueError, match="bot name"):
        render_help("@everyone")


def test_head_marker_is_read_back() -> None:
    comment = render_comment([], cases.context())
    assert head_of_comment(comment) == cases.HEAD
    assert head_of_comment("no marker here") is None


def many_entries(count: int, path: str = ".eval_results/big.yaml") -> FileReport:
    entries = [
        cases.entry(
            {"dataset": {"id": "Idavidrein/gpqa", "task_id": "diamond"}, "value": i / 1000},
            index=i,
            line=1 + 3 * i,
            benchmark=cases.GPQA,
            diagnostics=[Diagnostic("W-X", Severity.WARNING, f"warning {i}", line=2 + 3 * i)],
        )
        for i in range(count)
    ]
    return FileReport(path=path, kind="results", entries=entries)


def trimmed_count(comment: str) -> tuple[int, int]:
    match = re.search(
        r"trimmed to fit a Hub comment: (\d+) entr\w+ in (\d+) files? not shown", comment
    )
    assert match is not None
    return int(match.group(1)), int(match.group(2))


def test_small_report_is_not_trimmed() -> None:
    comment = render_comment([many_entries(10)], cases.context())
    assert "trimmed" not in comment


def test_long_report_is_trimmed_to_the_cap_with_a_count() -> None:
    reports = [many_entries(300, ".eval_results/a.yaml"), many_entries(300, ".eval_results/b.yaml")]
    context = cases.context(max_chars=20_000)
    comment = render_comment(reports, context)
    assert len(comment) <= 20_000
    rows = len(re.findall(r"^\| \d+ \| \d+ \|", comment, flags=re.MULTILINE))
    dropped, files = trimmed_count(comment)
    assert rows + dropped == 600
    assert rows > 0
    assert files >= 1
    assert comment.rstrip().endswith("</sub>")  # the footer survives
    assert head_of_comment(comment) == cases.HEAD
    check_inert(comment, context)


def test_the_default_cap_holds_for_ten_thousand_entries() -> None:
    comment = render_comment([many_entries(10_000)], cases.context())
    assert len(comment) <= comment_texts.MAX_COMMENT_CHARS
    rows = len(re.findall(r"^\| \d+ \| \d+ \|", comment, flags=re.MULTILINE))
    assert rows + trimmed_count(comment)[0] == 10_000


def test_a_file_that_does_not_fit_at_all_is_left_out_and_counted() -> None:
    reports = [many_entries(50, ".eval_results/a.yaml"), many_entries(5, ".eval_results/b.yaml")]
    first_alone = render_comment(reports[:1], cases.context())
    context = cases.context(max_chars=len(first_alone) + 600)
    comment = render_comment(reports, context)
    assert len(comment) <= context.max_chars
    assert len(re.findall(r"^\| \d+ \| \d+ \|", comment, flags=re.MULTILINE)) == 50
    assert trimmed_count(comment) == (5, 1)
    assert "b.\u200byaml" not in comment  # no empty section for the file left out


def test_help_lists_the_commands() -> None:
    reply = render_help("evalbot")
    assert "`@evalbot recheck`" in reply
    assert "`@evalbot help`" in reply
    assert comment_texts.REPORT_MARKER not in reply  # never mistaken for the report
    assert comment_texts.HELP_MARKER in reply


def test_draft_banner() -> None:
    comment = render_comment([cases.live_valid()], cases.context(pr_state="draft"))
    assert "**draft**" in comment


def test_long_lists_of_files_are_counted_not_listed() -> None:
    removed = [f".eval_results/r{i}.yaml" for i in range(25)]
    comment = render_comment([], cases.context(removed_files=removed))
    assert "r19&#46;yaml" in comment
    assert "r20&#46;yaml" not in comment
    assert "- … and 5 more" in comment


def test_worst_case_strings_everywhere_stay_under_the_cap() -> None:
    """Every field at its length cap, made of the characters that expand most when escaped."""
    worst = "&" * 1000
    reports = [hostile_report(worst, reason=worst) for _ in range(40)]
    context = cases.context(removed_files=[worst] * 500, misplaced_files=[worst] * 500)
    comment = render_comment(reports, context)
    assert len(comment) <= comment_texts.MAX_COMMENT_CHARS
    assert "trimmed to fit" in comment
    check_inert(comment, context)


def test_metrics_beyond_six_are_counted() -> None:
    report = cases.target_verified()
    data = dict(report.entries[0].entry.data)
    data["metrics"] = [{"metric_id": f"m{i}", "value": i} for i in range(9)]
    report.entries[0] = cases.entry(data, benchmark=cases.HLE)
    comment = render_comment([report], cases.context())
    assert "m5: 5<br>+3 more" in comment
    assert "m6" not in comment


def test_file_that_could_not_be_read_shows_its_problem() -> None:
    broken = FileReport(
        path=".eval_results/broken.yaml",
        kind="results",
        diagnostics=[
            Diagnostic(
                "E-YAML-DUPLICATE-KEY", Severity.ERROR, "duplicate key 'value'", line=4, hint="x"
            )
        ],
    )
    comment = render_comment([broken], cases.context())
    assert "**0 results in 1 file:** 0 verified, 0 community, 0 with errors · 1 error" in comment
    assert "❌ **file, line 4** `E-YAML-DUPLICATE-KEY`: duplicate key 'value'" in comment
    empty = FileReport(path=".eval_results/empty.yaml", kind="results")
    assert comment_texts.NO_ENTRIES in render_comment([empty], cases.context())
