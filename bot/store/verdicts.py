"""A verdict as the PR history keeps it: built from a run's reports, encoded, and read back."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from bot.report.badges import badges_for
from bot.report.counts import Counts
from bot.validation.model import EntryReport, FileReport, VerificationStatus

#: Per verdict: the problems, token verdicts and results kept (the rest are counted), and the
#: longest text kept of a message, a fix or a title.
MAX_PROBLEMS_KEPT = 10
MAX_TOKENS_KEPT = 10
MAX_ENTRIES_KEPT = 20
MAX_TEXT = 240


@dataclass(frozen=True, slots=True)
class KeptProblem:
    """One problem of a verdict, as the PR comment lists it."""

    code: str
    severity: str  # error, warning
    file: str
    line: int | None
    message: str
    fix: str | None


@dataclass(frozen=True, slots=True)
class KeptToken:
    """One entry's `verify_token`: verified, or why not (a documented reason code)."""

    file: str
    line: int | None
    verified: bool
    reason: str | None


@dataclass(frozen=True, slots=True)
class KeptEntry:
    """One result of a verdict, as the comment's table shows it: benchmark, task, value and
    badges (none when the entry has errors)."""

    benchmark: str
    task: str
    value: str
    badges: tuple[str, ...]
    file: str
    line: int
    #: What became of `source.url` (docs/comment.md#sources): "checked", "mismatch",
    #: "unreadable", "linked", or "" (no source); for a datastore record, its id and revision.
    source: str = ""
    source_record: str = ""
    source_revision: str = ""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One report run on one PR head, as the history page lists it."""

    head: str
    at: str  # ISO-8601 UTC, when the worker finished the run
    outcome: str  # posted, edited, unchanged (workers.outcomes.Outcome)
    state: str  # open, draft, merged, closed
    results: int
    verified: int
    community: int
    invalid: int
    errors: int
    warnings: int
    title: str = ""
    author: str = ""
    problems: tuple[KeptProblem, ...] = ()
    tokens: tuple[KeptToken, ...] = ()
    problems_total: int = 0  # all the run found; `problems` holds the first of them
    entries: tuple[KeptEntry, ...] = ()  # the first `MAX_ENTRIES_KEPT` results
    #: "results" (a model repo's PR: `results` counts results) or "records" (an Every Eval
    #: Ever datastore's: `results` counts the files checked, none is verified or community).
    kind: str = "results"

    @property
    def ok(self) -> bool:
        return self.errors == 0


def encode_verdict(verdict: Verdict) -> str:
    return json.dumps(asdict(verdict), separators=(",", ":"))


def verdict_of(
    head: str,
    outcome: str,
    state: str,
    counts: Counts,
    at: datetime,
    *,
    reports: Sequence[FileReport] = (),
    title: str | None = None,
    author: str | None = None,
    kind: str = "results",
) -> Verdict:
    problems = problems_of(reports)
    return Verdict(
        head=head,
        at=at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        outcome=outcome,
        state=state,
        results=counts.results,
        verified=counts.verified,
        community=counts.community,
        invalid=counts.invalid,
        errors=counts.errors,
        warnings=counts.warnings,
        title=(title or "")[:MAX_TEXT],
        author=(author or "")[:100],
        problems=tuple(problems[:MAX_PROBLEMS_KEPT]),
        tokens=tuple(tokens_of(reports)[:MAX_TOKENS_KEPT]),
        problems_total=len(problems),
        entries=tuple(entries_of(reports)[:MAX_ENTRIES_KEPT]),
        kind=kind,
    )


def entries_of(reports: Sequence[FileReport]) -> list[KeptEntry]:
    """Each result that names a benchmark, with its value as text and its badges."""
    kept: list[KeptEntry] = []
    for report in reports:
        for entry in report.entries:
            benchmark = entry.benchmark.repo_id if entry.benchmark else entry.entry.dataset_id
            if not benchmark:
                continue
            kept.append(
                KeptEntry(
                    benchmark=benchmark[:MAX_TEXT],
                    task=(entry.entry.task_id or "")[:100],
                    value=value_text(entry.entry.data),
                    badges=tuple(badge.value for badge in badges_for(entry)),
                    file=report.path,
                    line=entry.entry.line,
                    **_source_of(entry),
                )
            )
    return kept


def _source_of(entry: EntryReport) -> dict[str, str]:
    source = entry.source
    if source is None:
        return {}
    return {
        "source": source.status.value,
        "source_record": (source.record_id or source.path or "")[:MAX_TEXT],
        "source_revision": (source.revision or "")[:100],
    }


def value_text(data: Mapping[str, Any]) -> str:
    """An entry's score as plain text: `value`, else its metrics as `id: value` (three)."""
    if "value" in data:
        return str(data["value"])[:40]
    metrics = data.get("metrics")
    if isinstance(metrics, list):
        pairs = [
            f"{item.get('metric_id', '?')}: {item.get('value')}"
            for item in metrics[:3]
            if isinstance(item, Mapping)
        ]
        return ", ".join(pairs)[:120]
    return "?"


def problems_of(reports: Sequence[FileReport]) -> list[KeptProblem]:
    """Every error and warning of the run, errors first, each text cut at `MAX_TEXT`."""
    found: list[KeptProblem] = []
    for report in reports:
        diagnostics = [*report.diagnostics, *(d for e in report.entries for d in e.diagnostics)]
        found.extend(
            KeptProblem(
                code=d.code,
                severity="error" if d.is_error else "warning",
                file=report.path,
                line=d.line,
                message=d.message[:MAX_TEXT],
                fix=d.hint[:MAX_TEXT] if d.hint else None,
            )
            for d in diagnostics
        )
    return sorted(found, key=lambda p: (p.severity != "error", p.file, p.line or 0))


def tokens_of(reports: Sequence[FileReport]) -> list[KeptToken]:
    """Each entry that carried a token: verified, or the reason it was not."""
    return [
        KeptToken(
            file=report.path,
            line=entry.entry.line,
            verified=entry.verification.status is VerificationStatus.VERIFIED,
            reason=entry.verification.reason,
        )
        for report in reports
        for entry in report.entries
        if entry.verification.status is not VerificationStatus.ABSENT
    ]


def parse_verdict(raw: bytes | str) -> Verdict | None:
    """A stored record, or None for one this version cannot read (never an error page)."""
    try:
        data: Any = json.loads(raw)
        return Verdict(
            head=str(data["head"]),
            at=str(data["at"]),
            outcome=str(data["outcome"]),
            state=str(data["state"]),
            **{name: int(data[name]) for name in _COUNT_FIELDS},
            title=str(data.get("title", ""))[:MAX_TEXT],
            author=str(data.get("author", ""))[:100],
            problems=tuple(KeptProblem(**kept) for kept in data.get("problems", ())),
            tokens=tuple(KeptToken(**kept) for kept in data.get("tokens", ())),
            problems_total=int(data.get("problems_total", 0)),
            entries=tuple(
                KeptEntry(**{**kept, "badges": tuple(kept["badges"])})
                for kept in data.get("entries", ())
            ),
            kind="records" if data.get("kind") == "records" else "results",
        )
    except (ValueError, KeyError, TypeError):
        return None


_COUNT_FIELDS = ("results", "verified", "community", "invalid", "errors", "warnings")
