"""The validation playground: one pasted or uploaded file in, the PR comment's report out, by the
workers' own calls; nothing kept (docs/web.md, "Validation playground")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from markdown_it import MarkdownIt

from bot.convert.api import entries_from, parse_output
from bot.convert.mapping import MappingTable
from bot.convert.registry import ConvertError
from bot.convert.yamlio import dump_entries
from bot.report.comment import CommentContext, render_comment
from bot.report.counts import Counts, count_reports
from bot.tokens.issuers import IssuerRegistry
from bot.tokens.offline import verify_offline
from bot.validation.benchmark import parse_benchmark
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.limits import DEFAULT_LIMITS, Limits
from bot.validation.model import (
    Benchmark,
    BenchmarkSource,
    FileReport,
    VerificationStatus,
    benchmark_file_stem,
    is_repo_id,
)
from bot.validation.policy import DEFAULT_POLICY, Policy
from bot.validation.validate import validate_results_files

#: What the preview names the repo and head when the user gives no model repo (no PR exists).
PREVIEW_REPO = "your-org/your-model"
PREVIEW_HEAD = "0000000"
#: The source view shows every line of files up to this many lines, else the lines around
#: each problem (`CONTEXT` either side).
FULL_SOURCE_LINES = 400
CONTEXT = 3
#: Problems listed (and lines shown around them); the rest are counted. A 10,000-entry paste
#: of duplicates would otherwise make a page of megabytes.
MAX_PROBLEMS_SHOWN = 200

# The comment's markdown as the Hub renders it: CommonMark, tables, the few HTML tags the bot
# writes itself (`<br>`, `<details>`, `<sub>`). User text reaches it escaped by
# `bot.report.escaping.escape_text`, and markdown-it refuses `javascript:` and other unsafe link
# targets.
_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable("table")


@dataclass(frozen=True, slots=True)
class PlaygroundInput:
    content: bytes
    kind: str  # "results" or "benchmark"
    file_name: str | None = None  # as typed or uploaded; the bot reads `.eval_results/<name>`
    benchmark: str | None = None  # the benchmark an eval.yaml belongs to / results are for
    model_repo: str | None = None  # the token claim `model_repo`, when the user gives one


@dataclass(frozen=True, slots=True)
class Problem:
    line: int | None
    severity: str  # error, warning, info
    code: str
    message: str
    hint: str | None
    where: str  # "file", "entry #2"


@dataclass(frozen=True, slots=True)
class SourceLine:
    number: int | None  # None: a gap of lines not shown
    text: str
    severity: str | None  # the worst problem on the line
    problems: tuple[Problem, ...] = ()


@dataclass
class PlaygroundResult:
    path: str
    kind: str
    ok: bool
    counts: Counts
    problems: list[Problem]
    source: list[SourceLine]
    comment_html: str
    reports: list[FileReport] = field(default_factory=list)
    benchmark: Benchmark | None = None  # an eval.yaml's declarations, when it checks out
    converted: Converted | None = None  # a framework output: what converting it found


@dataclass(frozen=True, slots=True)
class Converted:
    """A framework output turned into entries: which converter read it, what it could not
    map (each with the mapping row to add), and whether that blocks writing the entries."""

    adapter: str | None
    notes: list[str]
    blocking: bool
    files: tuple[str, ...] = ()


def results_path(given: PlaygroundInput) -> str:
    """The repo path the file is checked under: the name given or uploaded, else the one the
    naming rule asks for (of the benchmark picked, or the first `id:` in the file's head: a
    guess that only names the file, the validator then checks it like any name), else
    `results.yaml`."""
    name = (given.file_name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    benchmark = given.benchmark
    if not benchmark:
        found = _FIRST_ID.search(given.content[:65536].decode("utf-8", "replace"))
        benchmark = found.group(1) if found else None
    if not name and benchmark and is_repo_id(benchmark):
        name = benchmark_file_stem(benchmark) + ".yaml"
    return ".eval_results/" + (name or "results.yaml")


# A browser sends a textarea's text with CRLF line ends (HTML's form encoding), so a line may
# end in `\r` before the `$`.
_FIRST_ID = re.compile(r"""^[ \t-]*id:[ \t]*["']?([\w.-]+/[\w.-]+)["']?[ \t]*\r?$""", re.MULTILINE)


def run_playground(
    given: PlaygroundInput,
    source: BenchmarkSource,
    registry: IssuerRegistry,
    *,
    policy: Policy = DEFAULT_POLICY,
    limits: Limits = DEFAULT_LIMITS,
    hub_url: str = "https://huggingface.co",
    bot_name: str = "evalbot",
    at: datetime | None = None,
    mappings: MappingTable | None = None,
) -> PlaygroundResult:
    """Validate (and verify tokens, when `model_repo` is given) like the bot; raises the Hub's
    errors (`bot.hub.errors.HubError`) when a benchmark could not be read.

    A benchmark's `eval.yaml` gets its own report (what it declares), not a PR comment: the
    bot comments on results, never on a benchmark. A framework's output (a JSON object or an
    inspect-ai `.eval` archive) is converted first, as `evalbot convert` would, and the
    entries it becomes are checked and shown."""
    if given.kind == "benchmark":
        return _benchmark_report(given, limits)
    if mappings is not None and looks_like_framework_output(given.content):
        return _converted_report(
            given,
            source,
            mappings=mappings,
            policy=policy,
            registry=registry,
            hub_url=hub_url,
            bot_name=bot_name,
            at=at,
        )
    path = results_path(given)
    reports = validate_results_files({path: given.content}, source, limits=limits, policy=policy)
    return _results_report(
        given,
        path,
        given.content,
        reports,
        registry=registry,
        hub_url=hub_url,
        bot_name=bot_name,
        at=at,
    )


def looks_like_framework_output(content: bytes) -> bool:
    """A JSON object or a zip archive: what frameworks write. Results files are YAML lists
    (a JSON list is YAML too, and stays a results file)."""
    if content[:4] == b"PK\x03\x04":
        return True
    if content.lstrip()[:1] != b"{":
        return False
    return isinstance(parse_output(content), dict)


def _results_report(
    given: PlaygroundInput,
    path: str,
    content: bytes,
    reports: list[FileReport],
    *,
    registry: IssuerRegistry,
    hub_url: str,
    bot_name: str,
    at: datetime | None,
    converted: Converted | None = None,
) -> PlaygroundResult:
    model_repo = given.model_repo if given.model_repo and is_repo_id(given.model_repo) else None
    verify_offline(reports, model_repo=model_repo, registry=registry, at=at or datetime.now(UTC))
    problems = collect_problems(reports)
    body = render_comment(
        reports,
        CommentContext(
            repo_id=model_repo or PREVIEW_REPO,
            pr_num=0,
            head_sha=PREVIEW_HEAD,
            bot_name=bot_name,
            hub_url=hub_url,
        ),
    )
    counts = count_reports(reports)
    ok = counts.errors == 0 and (converted is None or not converted.blocking)
    return PlaygroundResult(
        path=path,
        kind="results",
        ok=ok,
        counts=counts,
        problems=problems,
        source=source_view(content, problems),
        comment_html=comment_html(body),
        reports=reports,
        converted=converted,
    )


def _benchmark_report(given: PlaygroundInput, limits: Limits) -> PlaygroundResult:
    repo = given.benchmark if given.benchmark and is_repo_id(given.benchmark) else None
    path = f"{repo}/eval.yaml" if repo else "eval.yaml"
    parsed, diagnostics = parse_benchmark(
        repo or "your-org/your-benchmark", given.content, None, limits=limits
    )
    report = FileReport(path=path, kind="benchmark", diagnostics=list(diagnostics))
    problems = collect_problems([report])
    counts = count_reports([report])
    return PlaygroundResult(
        path=path,
        kind="benchmark",
        ok=counts.errors == 0,
        counts=counts,
        problems=problems,
        source=source_view(given.content, problems),
        comment_html="",
        reports=[report],
        benchmark=parsed,
    )


def _converted_report(
    given: PlaygroundInput,
    source: BenchmarkSource,
    *,
    registry: IssuerRegistry,
    mappings: MappingTable,
    policy: Policy,
    hub_url: str,
    bot_name: str,
    at: datetime | None,
) -> PlaygroundResult:
    name = (given.file_name or "").replace("\\", "/").rsplit("/", 1)[-1].strip() or "output.json"
    try:
        conversion = entries_from(
            given.content, benchmarks=source, mappings=mappings, filename=name, policy=policy
        )
    except ConvertError as error:
        converted = Converted(adapter=None, notes=[str(error)], blocking=True)
        return _results_report(
            given,
            name,
            given.content,
            [],
            registry=registry,
            hub_url=hub_url,
            bot_name=bot_name,
            at=at,
            converted=converted,
        )
    notes = [*conversion.problems, *conversion.run_problems]
    notes += [str(problem) for problem in conversion.mapping_problems]
    notes += [
        f"{row.framework} {row.task} / {row.metric} = {row.value}: no mapping row names it; "
        f"add `{row.line}` to a mappings file (docs/convert.md)"
        for row in conversion.unmapped
    ]
    produced = b"".join(dump_entries(entries) for entries in conversion.files.values())
    converted = Converted(
        adapter=conversion.adapter,
        notes=notes,
        blocking=bool(conversion.problems or conversion.mapping_problems),
        files=tuple(conversion.files),
    )
    path = ", ".join(conversion.files) or name
    return _results_report(
        given,
        path,
        produced,
        conversion.reports,
        registry=registry,
        hub_url=hub_url,
        bot_name=bot_name,
        at=at,
        converted=converted,
    )


def comment_html(body: str) -> str:
    """The comment as HTML, without its footer (no PR, no head: the footer would mislead)."""
    without_footer = body.rsplit("\n\n---\n", 1)[0]
    html: str = _MARKDOWN.render(without_footer)
    return html


def collect_problems(reports: Sequence[FileReport]) -> list[Problem]:
    problems: list[Problem] = []
    for report in reports:
        problems.extend(_problem(d, "file") for d in report.diagnostics)
        for entry in report.entries:
            where = f"entry #{entry.entry.index + 1}"
            problems.extend(_problem(d, where) for d in entry.diagnostics)
            verification = entry.verification
            if verification.status is VerificationStatus.UNVERIFIED and entry.ok:
                problems.append(
                    Problem(
                        entry.entry.line,
                        "info",
                        verification.reason or "unverified",
                        "the verify token was not accepted: this result counts as a "
                        "community claim",
                        "see docs/verification.md for the reason code",
                        where,
                    )
                )
    return sorted(problems, key=lambda p: (p.line or 0, p.severity != "error"))


def _problem(diagnostic: Diagnostic, where: str) -> Problem:
    severity = "error" if diagnostic.severity is Severity.ERROR else "warning"
    return Problem(
        diagnostic.line, severity, diagnostic.code, diagnostic.message, diagnostic.hint, where
    )


_RANK = {"error": 0, "warning": 1, "info": 2}


def source_view(content: bytes, problems: Sequence[Problem]) -> list[SourceLine]:
    """The file's lines, each with the problems found on it; long files show only the lines
    around problems (gaps are one `SourceLine` with `number=None`)."""
    text = content.decode("utf-8", "replace")
    lines = text.splitlines() or [""]
    by_line: dict[int, list[Problem]] = {}
    for problem in problems:
        if problem.line is not None and 1 <= problem.line <= len(lines):
            by_line.setdefault(problem.line, []).append(problem)
    shown: Sequence[int]
    if len(lines) <= FULL_SOURCE_LINES:
        shown = range(1, len(lines) + 1)
    else:
        wanted = sorted(
            {
                n
                for line in list(by_line)[:MAX_PROBLEMS_SHOWN]
                for n in range(max(1, line - CONTEXT), min(len(lines), line + CONTEXT) + 1)
            }
        )
        shown = wanted or range(1, min(len(lines), FULL_SOURCE_LINES) + 1)
    view: list[SourceLine] = []
    previous = 0
    for number in shown:
        if number != previous + 1:
            view.append(SourceLine(None, f"… {number - previous - 1} lines", None))
        found = tuple(by_line.get(number, ()))
        worst = min((p.severity for p in found), key=_RANK.__getitem__, default=None)
        view.append(SourceLine(number, lines[number - 1][:500], worst, found))
        previous = number
    if previous < len(lines):
        view.append(SourceLine(None, f"… {len(lines) - previous} lines", None))
    return view
