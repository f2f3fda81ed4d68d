"""The PR comment, pure: every `FileReport` of one PR head turned into one markdown comment,
found again by its marker and head (docs/comment.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import quote

from bot.report import comment_texts
from bot.report.badges import badge_label, badges_for
from bot.report.counts import Counts, count_reports
from bot.report.escaping import escape_text, is_repo_id
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import EntryReport, FileReport, SourceStatus, VerificationStatus

PrState = Literal["open", "draft", "merged", "closed"]

MAX_METRICS_SHOWN = 6
_HEAD_RE = re.compile(r"<!-- evalbot:head=([0-9a-f]{7,64}) -->")
_BOT_NAME_RE = re.compile(r"[A-Za-z0-9][\w-]{0,95}")
_RECHECK_RE = re.compile(r"<!-- evalbot:recheck=([0-9A-Za-z_-]{1,64}) -->")
#: Hub user names: letters, digits, `-`, `_`, `.` (anything else is not shown as a mention).
_USER_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


@dataclass(frozen=True, slots=True)
class RecheckNote:
    """The maintainer's `recheck` comment a report answers: its id, author and Hub time."""

    comment_id: str
    author: str
    asked_at: datetime

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[0-9A-Za-z_-]{1,64}", self.comment_id):
            raise ValueError(f"not a comment id: {self.comment_id!r}")


@dataclass(frozen=True, slots=True)
class CommentContext:
    """What the comment needs besides the reports. `hub_url` has no trailing slash."""

    repo_id: str
    pr_num: int
    head_sha: str
    bot_name: str
    pr_state: PrState = "open"
    removed_files: Sequence[str] = ()
    misplaced_files: Sequence[str] = ()  # under .eval_results but not read by the Hub
    hub_url: str = "https://huggingface.co"
    max_chars: int = comment_texts.MAX_COMMENT_CHARS
    #: Rendered sections about the PR among its repo (collection standing, claims made
    #: elsewhere: `bot.report.standing_and_clashes`), shown after the files; already escaped.
    extra_sections: Sequence[str] = ()
    #: "dataset" for a benchmark's PR: its pages live under `/datasets/` on the Hub.
    repo_type: Literal["model", "dataset"] = "model"
    #: The latest maintainer's recheck of this head, shown in the footer (None: no recheck).
    recheck: RecheckNote | None = None
    #: The bot's web pages (no trailing slash): the footer links the PR's details page there.
    pages_url: str | None = None

    def __post_init__(self) -> None:
        if not _BOT_NAME_RE.fullmatch(self.bot_name):
            raise ValueError(f"bot name must be a Hub user name, not {self.bot_name!r}")
        if not re.fullmatch(r"[0-9a-f]{7,64}", self.head_sha):
            raise ValueError(f"head_sha must be a hex commit id, not {self.head_sha!r}")


def recheck_of_comment(body: str) -> str | None:
    """The id of the recheck comment a report answered last (None if it answered none)."""
    match = _RECHECK_RE.search(body)
    return match.group(1).lower() if match else None


def _recheck_note(note: RecheckNote) -> str:
    author = note.author if _USER_NAME_RE.fullmatch(note.author) else "?"
    at = note.asked_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return (
        comment_texts.RECHECK_MARKER.format(comment_id=note.comment_id.lower())
        + "\n"
        + comment_texts.RECHECK_NOTE.format(author=author, at=at)
    )


def head_of_comment(body: str) -> str | None:
    """The head SHA a report comment reflects, from its hidden marker (None if absent).

    Only the bot writes `<!--` into the comment (user strings are escaped), so the first match
    is the bot's own.
    """
    match = _HEAD_RE.search(body)
    return match.group(1) if match else None


def _summary(counts: Counts, files: int) -> str:
    if counts.results == 0 and counts.errors == 0 and counts.warnings == 0:
        return comment_texts.SUMMARY_NO_RESULTS
    return comment_texts.SUMMARY.format(
        results=counts.results,
        results_word=comment_texts.plural(counts.results, "result"),
        files=files,
        files_word=comment_texts.plural(files, "file"),
        verified=counts.verified,
        community=counts.community,
        invalid=counts.invalid,
        errors=counts.errors,
        errors_word=comment_texts.plural(counts.errors, "error"),
        warnings=counts.warnings,
        warnings_word=comment_texts.plural(counts.warnings, "warning"),
    )


def _format_value(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return escape_text(value, 20)
    if isinstance(value, float):
        return escape_text(repr(value), 32)
    return escape_text(value, 32)


def _metrics(entry: EntryReport) -> str:
    data = entry.entry.data
    pairs: list[tuple[str, str]] = []
    metrics = data.get("metrics")
    if isinstance(metrics, list):
        for item in metrics:
            if isinstance(item, dict):
                pairs.append(
                    (escape_text(item.get("metric_id", "?"), 48), _format_value(item.get("value")))
                )
    if "value" in data:
        name = "value"
        primary = entry.benchmark.primary_metric if entry.benchmark is not None else None
        if primary is not None:
            name = primary.display_name or primary.id
        pairs.append((escape_text(name, 48), _format_value(data.get("value"))))
    if not pairs:
        return comment_texts.UNKNOWN
    shown = [f"{name}: {value}" for name, value in pairs[:MAX_METRICS_SHOWN]]
    if len(pairs) > MAX_METRICS_SHOWN:
        shown.append(comment_texts.MORE_METRICS.format(count=len(pairs) - MAX_METRICS_SHOWN))
    return "<br>".join(shown)


def _benchmark(entry: EntryReport, hub_url: str) -> str:
    if entry.benchmark is not None and is_repo_id(entry.benchmark.repo_id):
        repo_id = entry.benchmark.repo_id
        url = f"{hub_url}/datasets/{quote(repo_id, safe='/')}"
        return f"[{escape_text(repo_id, 100)}]({url})"
    if entry.entry.dataset_id:
        return escape_text(entry.entry.dataset_id, 100)
    return comment_texts.UNKNOWN


def _verdict(entry: EntryReport) -> str:
    errors = sum(1 for d in entry.diagnostics if d.is_error)
    warnings = len(entry.diagnostics) - errors
    if errors:
        verdict = comment_texts.VERDICT_INVALID.format(
            count=errors, errors_word=comment_texts.plural(errors, "error")
        )
    elif warnings:
        verdict = comment_texts.VERDICT_WARNINGS.format(
            count=warnings, warnings_word=comment_texts.plural(warnings, "warning")
        )
    else:
        verdict = comment_texts.VERDICT_VALID
    if entry.verification.status is VerificationStatus.UNVERIFIED:
        reason = escape_text(entry.verification.reason or comment_texts.REASON_UNKNOWN, 60)
        verdict += "<br>" + comment_texts.UNVERIFIED_NOTE.format(reason=reason)
    source = entry.source
    if source is not None and source.status is SourceStatus.CHECKED:
        verdict += "<br>" + comment_texts.SOURCE_CHECKED_NOTE.format(
            record=escape_text(source.record_id or source.path or "?", 120),
            revision=escape_text((source.revision or "?")[:12], 40),
        )
    elif source is not None and source.status is SourceStatus.MISMATCH:
        verdict += "<br>" + comment_texts.SOURCE_MISMATCH_NOTE
    elif source is not None and source.status is SourceStatus.UNREADABLE:
        verdict += "<br>" + comment_texts.SOURCE_UNREAD_NOTE.format(
            reason=escape_text(source.reason or comment_texts.REASON_UNKNOWN, 160)
        )
    return verdict


def _sources_line(reports: Sequence[FileReport]) -> str | None:
    """How many sources were checked, disagree, could not be read, or are links only."""
    counts = dict.fromkeys(SourceStatus, 0)
    for report in reports:
        for entry in report.entries:
            if entry.source is not None:
                counts[entry.source.status] += 1
    parts = [
        comment_texts.SOURCES_PARTS[status.value].format(
            count=count,
            their="its" if count == 1 else "their",
            records=comment_texts.plural(count, "record"),
            disagree=comment_texts.plural(count, "disagrees", "disagree"),
            them="it" if count == 1 else "them",
        )
        for status, count in counts.items()
        if count
    ]
    return comment_texts.SOURCES_SUMMARY.format(parts="; ".join(parts)) if parts else None


def _row(entry: EntryReport, hub_url: str) -> str:
    badges = " ".join(badge_label(badge, entry) for badge in badges_for(entry))
    return comment_texts.TABLE_ROW.format(
        number=entry.entry.index + 1,
        line=entry.entry.line,
        benchmark=_benchmark(entry, hub_url),
        task=escape_text(entry.entry.task_id, 60) if entry.entry.task_id else comment_texts.UNKNOWN,
        metrics=_metrics(entry),
        badges=badges or comment_texts.UNKNOWN,
        verdict=_verdict(entry),
    )


def _problem(diagnostic: Diagnostic, where: str, entry_index: int | None = None) -> str:
    if diagnostic.line is not None:
        where += comment_texts.PROBLEM_AT_LINE.format(line=diagnostic.line)
    glyph = (
        comment_texts.GLYPH_ERROR
        if diagnostic.severity is Severity.ERROR
        else comment_texts.GLYPH_WARNING
    )
    message = escape_text(diagnostic.message, 300)
    place = diagnostic.hub_path(entry_index)  # a field name is the author's text: escaped
    if place is not None:
        message = comment_texts.PROBLEM_PLACE.format(place=escape_text(place, 120), message=message)
    text = comment_texts.PROBLEM_LINE.format(
        glyph=glyph,
        where=where,
        code=re.sub(r"[^\w.-]", "", diagnostic.code)[:60] or "?",
        message=message,
    )
    if diagnostic.hint:
        text += comment_texts.PROBLEM_HINT.format(hint=escape_text(diagnostic.hint, 300))
    return text


def _entry_problems(entry: EntryReport) -> list[str]:
    where = comment_texts.PROBLEM_ENTRY_WHERE.format(number=entry.entry.index + 1)
    problems = [_problem(d, where, entry.entry.index) for d in entry.diagnostics]
    if entry.verification.status is VerificationStatus.UNVERIFIED:
        problems.append(
            comment_texts.TOKEN_PROBLEM.format(
                line=entry.entry.line,
                number=entry.entry.index + 1,
                reason=re.sub(r"[^\w.-]", "", entry.verification.reason or "")[:60]
                or comment_texts.REASON_UNKNOWN,
            )
        )
    return problems


@dataclass
class _FileSection:
    """A file's section, built from parts so the trimmer can drop entries from the end."""

    heading: str
    file_problems: list[str]
    rows: list[str] = field(default_factory=list)
    entry_problems: list[list[str]] = field(default_factory=list)
    #: The file's entries, built or not: rows stop being built once they alone overflow the
    #: comment (a 10,000-entry file would otherwise cost 10,000 escaped rows, nearly all cut).
    entries_total: int = 0

    def render(self, entries: int | None = None) -> str:
        count = len(self.rows) if entries is None else entries
        parts = [self.heading]
        if self.rows:
            parts.append(comment_texts.TABLE_HEADER + "\n" + "\n".join(self.rows[:count]))
        elif not self.file_problems:
            parts.append(comment_texts.NO_ENTRIES)
        problems = self.file_problems + [p for ps in self.entry_problems[:count] for p in ps]
        if problems:
            has_errors = any(p.startswith("- " + comment_texts.GLYPH_ERROR) for p in problems)
            summary = comment_texts.PROBLEMS_SUMMARY.format(
                count=len(problems),
                problems_word=comment_texts.plural(len(problems), "problem"),
            )
            open_attr = " open" if has_errors else ""
            parts.append(
                f"<details{open_attr}><summary>{summary}</summary>\n\n"
                + "\n".join(problems)
                + "\n\n</details>"
            )
        return "\n\n".join(parts)


def _section(report: FileReport, hub_url: str, budget: int) -> _FileSection:
    """The file's section, its entries built only while they fit `budget` characters: past
    it, the section overflows the comment whatever follows, and the trimmer counts the rest."""
    path = escape_text(report.path, 200)
    heading = (
        comment_texts.FILE_HEADING_OK if report.ok else comment_texts.FILE_HEADING_ERRORS
    ).format(path=path)
    section = _FileSection(
        heading=heading,
        file_problems=[_problem(d, comment_texts.PROBLEM_FILE_WHERE) for d in report.diagnostics],
        entries_total=len(report.entries),
    )
    used = 0
    for entry in report.entries:
        if used > budget:
            break
        row, problems = _row(entry, hub_url), _entry_problems(entry)
        section.rows.append(row)
        section.entry_problems.append(problems)
        used += len(row) + 1 + sum(len(problem) + 1 for problem in problems)
    return section


def _head_link(context: CommentContext, hub_url: str) -> str:
    """The checked head, linked to its commit page when the repo id is a plain `owner/name`."""
    short_sha = context.head_sha[:7]
    if not is_repo_id(context.repo_id):
        return comment_texts.HEAD_PLAIN.format(short_sha=short_sha)
    prefix = "datasets/" if context.repo_type == "dataset" else ""
    url = f"{hub_url}/{prefix}{quote(context.repo_id, safe='/')}/commit/{context.head_sha}"
    return comment_texts.HEAD_LINKED.format(short_sha=short_sha, url=url)


def _details_link(context: CommentContext) -> str:
    """The footer's link to the PR's details page, when the pages' address is known (model
    repos only: the history keeps their PRs)."""
    if (
        context.pages_url is None
        or context.repo_type != "model"
        or not is_repo_id(context.repo_id)
        or context.pr_num <= 0
    ):
        return ""
    url = f"{context.pages_url.rstrip('/')}/pr/{quote(context.repo_id, safe='/')}/{context.pr_num}"
    return comment_texts.DETAILS_LINK.format(url=url)


def _file_list(heading: str, paths: Sequence[str]) -> str:
    shown = paths[: comment_texts.MAX_LISTED_FILES]
    items = [
        comment_texts.LIST_ITEM.format(item=escape_text(p, 120, block_start=True)) for p in shown
    ]
    if len(paths) > len(shown):
        more = comment_texts.MORE_ITEMS.format(count=len(paths) - len(shown))
        items.append(comment_texts.LIST_ITEM.format(item=more))
    return heading + "\n\n" + "\n".join(items)


def render_comment(reports: Sequence[FileReport], context: CommentContext) -> str:
    """The whole comment for one PR head; at most `context.max_chars` characters."""
    hub_url = context.hub_url.rstrip("/")
    markers = (
        comment_texts.REPORT_MARKER + "\n" + comment_texts.HEAD_MARKER.format(sha=context.head_sha)
    )
    head = [markers, comment_texts.TITLE]
    banner = comment_texts.STATE_BANNERS.get(context.pr_state)
    if banner:
        head.append(banner)
    result_reports = [r for r in reports if r.kind == "results"] + [
        r for r in reports if r.kind != "results"
    ]
    head.append(_summary(count_reports(result_reports), len(result_reports)))
    sources = _sources_line(result_reports)
    if sources is not None:
        head.append(sources)
    tail: list[str] = list(context.extra_sections)
    if context.removed_files:
        tail.append(_file_list(comment_texts.REMOVED_HEADING, context.removed_files))
    if context.misplaced_files:
        tail.append(_file_list(comment_texts.MISPLACED_HEADING, context.misplaced_files))
    tail.append(
        comment_texts.FOOTER.format(
            bot=context.bot_name, head=_head_link(context, hub_url), details=_details_link(context)
        )
    )
    if context.recheck is not None:
        tail.append(_recheck_note(context.recheck))

    return _assembled(head, result_reports, tail, hub_url, context.max_chars)


def render_report(
    reports: Sequence[FileReport],
    *,
    hub_url: str = "https://huggingface.co",
    max_chars: int = comment_texts.MAX_SUMMARY_CHARS,
) -> str:
    """The comment's title, summary and file tables without the PR's markers and footer: the
    report of a check outside a PR (`evalbot validate --markdown`, a CI job's summary)."""
    result_reports = [r for r in reports if r.kind == "results"] + [
        r for r in reports if r.kind != "results"
    ]
    counts = count_reports(result_reports)
    summary = (
        comment_texts.SUMMARY_NOTHING_CHECKED
        if counts == Counts()
        else _summary(counts, len(result_reports))
    )
    return _assembled(
        [comment_texts.TITLE, summary], result_reports, [], hub_url.rstrip("/"), max_chars
    )


def _assembled(
    head: list[str],
    result_reports: Sequence[FileReport],
    tail: list[str],
    hub_url: str,
    max_chars: int,
) -> str:
    """`head`, one section per report, `tail`: trimmed to `max_chars` characters."""
    # Sections are built one by one and building stops at the first that overflows: the
    # files after it are only counted, so a PR of 100 files x 10,000 entries costs one file.
    fixed = "\n\n".join(head) + "\n\n" + "\n\n".join(tail)
    sections: list[_FileSection] = []
    rendered: list[str] = []
    length = len(fixed)
    for index, report in enumerate(result_reports):
        section = _section(report, hub_url, max_chars)
        sections.append(section)
        rendered.append(section.render())
        length += len(rendered[-1]) + 2
        if length > max_chars:
            rest = result_reports[index + 1 :]
            return _trimmed(
                head,
                sections,
                tail,
                budget=max_chars - len(fixed),
                unrendered=(sum(len(r.entries) for r in rest), len(rest)),
            )
    return "\n\n".join([*head, *rendered, *tail])


def _trimmed(
    head: list[str],
    sections: list[_FileSection],
    tail: list[str],
    budget: int,
    unrendered: tuple[int, int],
) -> str:
    """Keep whole entries, file by file, while they fit; then say how many were left out.

    `unrendered` counts (entries, files) of the reports after `sections`, never built.
    """
    notice_reserve = len(comment_texts.TRIMMED) + 40
    budget -= notice_reserve
    kept: list[str] = []
    dropped_entries, dropped_files = unrendered
    for index, section in enumerate(sections):
        total = section.entries_total
        rendered = section.render()
        if len(rendered) + 2 <= budget:
            kept.append(rendered)
            budget -= len(rendered) + 2
            continue
        count = _entries_that_fit(section, budget - 2)
        if count is not None:
            rendered = section.render(count)
            kept.append(rendered)
            budget -= len(rendered) + 2
        dropped_entries += total - (count or 0)
        dropped_files += 1
        for later in sections[index + 1 :]:
            dropped_entries += later.entries_total
            dropped_files += 1
        break
    notice = comment_texts.TRIMMED.format(
        entries=dropped_entries,
        entries_word=comment_texts.plural(dropped_entries, "entry", "entries"),
        files=dropped_files,
        files_word=comment_texts.plural(dropped_files, "file"),
    )
    return "\n\n".join([*head, *kept, notice, *tail])


def _entries_that_fit(section: _FileSection, budget: int) -> int | None:
    """The most entries of `section` whose rendering fits `budget`; None when not even one does
    (a section of file-level problems only is all or nothing).

    Rendering length grows with the entry count, so a binary search finds it in log(n) renders.
    """
    smallest = 1 if section.rows else 0
    if len(section.render(smallest)) > budget:
        return None
    low, high = smallest, len(section.rows)
    while low < high:
        middle = (low + high + 1) // 2
        if len(section.render(middle)) <= budget:
            low = middle
        else:
            high = middle - 1
    return low
