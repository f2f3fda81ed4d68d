"""The living comment of a datastore PR, pure: the verdict at the top, then the files by folder,
errors first, capped and counted past the limits, every user string escaped (docs/comment.md,
"PRs on Every Eval Ever datastores")."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from bot.eee import comment_texts
from bot.eee.submission import DatastorePolicy, SubmissionReport, blocking_warnings
from bot.report import comment_texts as report_texts
from bot.report.comment import CommentContext
from bot.report.escaping import escape_text, is_repo_id
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import FileReport

MAX_FOLDERS = 20
MAX_FILES = 60
MAX_PROBLEMS_PER_FILE = 5
#: Open PRs named in the note of those not compared (the rest counted).
MAX_PRS_NAMED = 20


@dataclass(frozen=True, slots=True)
class _Folder:
    path: str
    reports: tuple[FileReport, ...]

    @property
    def bad(self) -> int:
        return sum(1 for r in self.reports if _blocks(r))


def render_submission(
    result: SubmissionReport,
    policy: DatastorePolicy,
    context: CommentContext,
    *,
    not_compared: Sequence[int] = (),
    beyond: int = 0,
    follow_up: bool = True,
) -> str:
    """`not_compared`: open PRs whose records this run's Hub budget did not cover (a
    follow-up run compares them, when `follow_up`; else a recheck does); `beyond`: open PRs
    past the bound, never compared. Both are said, so the verdict never claims more than was
    checked."""
    markers = (
        report_texts.REPORT_MARKER + "\n" + report_texts.HEAD_MARKER.format(sha=context.head_sha)
    )
    parts = [markers, comment_texts.TITLE]
    banner = comment_texts.STATE_BANNERS.get(context.pr_state)
    if banner:
        parts.append(banner)
    parts.append(_verdict(result, policy))
    parts.extend(_files(result.files))
    bot = escape_text(context.bot_name, 96)
    if not_compared:
        listed = ", ".join(f"#{num}" for num in sorted(not_compared)[:MAX_PRS_NAMED])
        if len(not_compared) > MAX_PRS_NAMED:
            listed += comment_texts.MORE_PRS.format(count=len(not_compared) - MAX_PRS_NAMED)
        then = comment_texts.FOLLOW_UP if follow_up else comment_texts.NO_FOLLOW_UP.format(bot=bot)
        parts.append(
            comment_texts.NOT_COMPARED.format(
                prs=listed, prs_word=comment_texts.plural(len(not_compared), "PR"), then=then
            )
        )
    if beyond:
        parts.append(
            comment_texts.UNREAD_PRS.format(
                count=beyond, prs_word=comment_texts.plural(beyond, "PR")
            )
        )
    if result.skipped:
        count = len(result.skipped)
        parts.append(
            comment_texts.SKIPPED.format(
                count=count, files_word=comment_texts.plural(count, "file")
            )
        )
    parts.append(
        report_texts.FOOTER.format(bot=bot, head=_head_link(context), details=_details(context))
    )
    return "\n\n".join(parts)


def render_files(reports: Sequence[FileReport]) -> str:
    """The comment's title, verdict and files, without a PR's markers and footer: the report of
    a check outside a PR (`evalbot validate --markdown` on a datastore folder)."""
    result = SubmissionReport(files=list(reports))
    return "\n\n".join(
        [comment_texts.TITLE, _verdict(result, DatastorePolicy()), *_files(result.files)]
    )


def _files(reports: Sequence[FileReport]) -> list[str]:
    """The files by folder, within `MAX_FOLDERS` and `MAX_FILES`, the rest counted."""
    parts: list[str] = []
    folders = _folders(reports)
    shown_files = 0
    for index, folder in enumerate(folders):
        if index >= MAX_FOLDERS or shown_files >= MAX_FILES:
            rest = folders[index:]
            files = sum(len(f.reports) for f in rest)
            parts.append(
                comment_texts.MORE_FILES.format(
                    files=files,
                    files_word=comment_texts.plural(files, "file"),
                    bad=sum(f.bad for f in rest),
                    folders=len(rest),
                    folders_word=comment_texts.plural(len(rest), "folder"),
                )
            )
            break
        budget = MAX_FILES - shown_files
        parts.append(_folder(folder, budget))
        shown_files += min(budget, len(folder.reports))
    return parts


def _details(context: CommentContext) -> str:
    """The footer's link to the PR's details page, kept under `datasets/<repo>`."""
    if context.pages_url is None or not is_repo_id(context.repo_id) or context.pr_num <= 0:
        return ""
    repo = quote(context.repo_id, safe="/")
    url = f"{context.pages_url.rstrip('/')}/pr/datasets/{repo}/{context.pr_num}"
    return report_texts.DETAILS_LINK.format(url=url)


def _head_link(context: CommentContext) -> str:
    """The checked head, linked to its commit page on the datastore."""
    short_sha = context.head_sha[:7]
    if not re.fullmatch(r"[0-9a-f]{7,64}", context.head_sha):
        return report_texts.HEAD_PLAIN.format(short_sha=escape_text(short_sha))
    url = f"{context.hub_url.rstrip('/')}/datasets/{context.repo_id}/commit/{context.head_sha}"
    return report_texts.HEAD_LINKED.format(short_sha=short_sha, url=url)


def _verdict(result: SubmissionReport, policy: DatastorePolicy) -> str:
    files = len(result.files)
    if not files:
        return comment_texts.VERDICT_NOTHING
    errors, warnings = result.counts()
    suffix = (
        comment_texts.WARNINGS_SUFFIX.format(
            warnings=warnings, warnings_word=comment_texts.plural(warnings, "warning")
        )
        if warnings
        else ""
    )
    if errors:
        return comment_texts.VERDICT_BLOCKED.format(
            errors=errors,
            errors_word=comment_texts.plural(errors, "error"),
            bad=sum(1 for r in result.files if not r.ok),
            files=files,
            files_word=comment_texts.plural(files, "file"),
            warnings=suffix,
        )
    blocking = result.blocking()
    if blocking and not policy.warnings_block:
        return comment_texts.VERDICT_FOLDER_BLOCKS.format(
            blocking=blocking,
            warnings_word=comment_texts.plural(blocking, "warning"),
            verb="blocks" if blocking == 1 else "block",
        )
    if warnings and policy.warnings_block:
        return comment_texts.VERDICT_WARNINGS_BLOCK.format(
            warnings=warnings, warnings_word=comment_texts.plural(warnings, "warning")
        )
    return comment_texts.VERDICT_READY.format(
        files=files, files_word=comment_texts.plural(files, "file"), warnings=suffix
    )


def _folders(reports: Sequence[FileReport]) -> list[_Folder]:
    grouped: dict[str, list[FileReport]] = {}
    for report in reports:
        grouped.setdefault(posixpath.dirname(report.path) or ".", []).append(report)
    folders = [_Folder(path, tuple(found)) for path, found in grouped.items()]
    return sorted(folders, key=lambda f: (f.bad == 0, f.path))


def _folder(folder: _Folder, budget: int) -> str:
    glyph = report_texts.GLYPH_ERROR if folder.bad else report_texts.GLYPH_OK
    count = len(folder.reports)
    lines = [
        comment_texts.FOLDER_HEADING.format(
            glyph=glyph,
            folder=_code(folder.path, 200),
            files=count,
            files_word=comment_texts.plural(count, "file"),
        )
    ]
    ordered = sorted(folder.reports, key=lambda r: (not _blocks(r), r.path))
    for report in ordered[:budget]:
        lines.extend(_file(report))
    if count > budget:
        lines.append(comment_texts.MORE_IN_FOLDER.format(count=count - budget))
    return "\n".join(lines)


def _file(report: FileReport) -> list[str]:
    name = _code(posixpath.basename(report.path), 120)
    if [d.code for d in report.diagnostics] == ["EEE-DELETED"]:
        return [comment_texts.FILE_DELETED.format(name=name)]  # the deletion alone: one line
    if not report.diagnostics:
        return [comment_texts.FILE_OK.format(name=name)]
    glyph = report_texts.GLYPH_ERROR if _blocks(report) else report_texts.GLYPH_WARNING
    lines = [comment_texts.FILE_PROBLEMS.format(glyph=glyph, name=name)]
    for diagnostic in report.diagnostics[:MAX_PROBLEMS_PER_FILE]:
        lines.append(_problem(diagnostic))
    extra = len(report.diagnostics) - MAX_PROBLEMS_PER_FILE
    if extra > 0:
        lines.append(comment_texts.MORE_PROBLEMS.format(count=extra))
    return lines


def _blocks(report: FileReport) -> bool:
    """An error, or a warning that blocks the merge, in this file."""
    return not report.ok or blocking_warnings([report]) > 0


def _problem(diagnostic: Diagnostic) -> str:
    place = ""
    if diagnostic.field:
        place = comment_texts.PROBLEM_PLACE.format(place=escape_text(diagnostic.field, 120))
    if diagnostic.line is not None:
        place += comment_texts.PROBLEM_LINE.format(line=diagnostic.line)
    code = re.sub(r"[^\w.-]", "", diagnostic.code)[:60] or "?"
    message = escape_text(diagnostic.message, 400)
    if diagnostic.hint:
        return comment_texts.PROBLEM.format(
            code=code, place=place, message=message, hint=escape_text(diagnostic.hint, 300)
        )
    return comment_texts.PROBLEM_NO_HINT.format(code=code, place=place, message=message)


def _code(text: str, limit: int) -> str:
    """A path inside backquotes: markdown is inert there, but a backquote would end it."""
    cleaned = re.sub(r"[`\x00-\x1f\x7f]", "?", text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"
