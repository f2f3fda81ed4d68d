"""The same result claimed twice: on main and in a PR, or in two open PRs of one repo; pure,
claims in, clashes out (docs/comment.md, "Results also proposed elsewhere")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.validation.model import Dialect, EntryReport, FileReport, is_http_url

Values = tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class Claim:
    """One valid entry: what it claims, and where."""

    benchmark: str  # canonical id
    task_id: str
    notes: str | None
    values: Values  # (metric id, value), sorted; a live entry's is ("value", v)
    path: str
    line: int
    #: The entry's `source.url` and what became of it (`SourceStatus` value: checked,
    #: mismatch, unreadable, linked; None when no run checked it), with the record's place.
    source_url: str | None = None
    source_status: str | None = None
    source_datastore: str | None = None
    source_revision: str | None = None
    source_path: str | None = None

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.benchmark.lower(), self.task_id, self.notes)

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "task_id": self.task_id,
            "notes": self.notes,
            "values": [list(pair) for pair in self.values],
            "path": self.path,
            "line": self.line,
            "source": [
                self.source_url,
                self.source_status,
                self.source_datastore,
                self.source_revision,
                self.source_path,
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Claim:
        return cls(
            benchmark=str(data["benchmark"]),
            task_id=str(data["task_id"]),
            notes=None if data["notes"] is None else str(data["notes"]),
            values=tuple((str(m), float(v)) for m, v in data["values"]),
            path=str(data["path"]),
            line=int(data["line"]),
            **_source_fields(data.get("source")),
        )


def _source_fields(raw: object) -> dict[str, str | None]:
    """The source of a stored claim; none for one stored before claims kept it."""
    names = ("source_url", "source_status", "source_datastore", "source_revision", "source_path")
    if not isinstance(raw, list) or len(raw) != len(names):
        return {}
    return {
        name: value if isinstance(value, str) else None
        for name, value in zip(names, raw, strict=True)
    }


@dataclass(frozen=True, slots=True)
class Clash:
    """This PR's `claim` is also claimed at `other`, on main (`pr` None) or in PR `pr`."""

    claim: Claim
    other: Claim
    pr: int | None

    @property
    def agree(self) -> bool:
        return self.claim.values == self.other.values


def claims_of(reports: Iterable[FileReport]) -> list[Claim]:
    """The claims of the valid entries whose benchmark was found, in file and entry order; an
    entry whose only errors are its disagreements with its source record is a claim too (the
    conflict is worth naming, with the disagreement)."""
    claims: list[Claim] = []
    for report in reports:
        for entry in report.entries:
            if not _claims(entry) or entry.benchmark is None or entry.entry.task_id is None:
                continue
            values = _values(entry.entry.data, entry.entry.dialect)
            if values is None:
                continue
            notes = entry.entry.data.get("notes")
            claims.append(
                Claim(
                    benchmark=entry.benchmark.repo_id,
                    task_id=entry.entry.task_id,
                    notes=notes if isinstance(notes, str) else None,
                    values=values,
                    path=report.path,
                    line=entry.entry.line,
                    **_source_of(entry),
                )
            )
    return claims


def _claims(entry: EntryReport) -> bool:
    errors = [d.code for d in entry.diagnostics if d.is_error]
    return all(code.startswith("ENTRY-SOURCE-") for code in errors)


def _source_of(entry: EntryReport) -> dict[str, str | None]:
    source = entry.source
    if source is None:  # not checked in this run (main's entries): the link alone, if any
        cited = entry.entry.data.get("source")
        url = cited.get("url") if isinstance(cited, dict) else None
        return {"source_url": url} if isinstance(url, str) and is_http_url(url) else {}
    return {
        "source_url": source.url,
        "source_status": source.status.value,
        "source_datastore": source.datastore,
        "source_revision": source.revision,
        "source_path": source.path,
    }


def _values(data: Any, dialect: Dialect) -> Values | None:
    if dialect is Dialect.LIVE:
        value = data.get("value")
        return (("value", float(value)),) if _number(value) else None
    pairs = []
    for item in data.get("metrics") or ():
        if isinstance(item, dict) and isinstance(item.get("metric_id"), str):
            if not _number(item.get("value")):
                return None
            pairs.append((item["metric_id"], float(item["value"])))
    return tuple(sorted(pairs)) or None


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def proposed(claims: Iterable[Claim], main: Iterable[Claim]) -> list[Claim]:
    """The claims that are not main's own, unchanged, in the same file."""
    on_main = {(claim.key, claim.path, claim.values) for claim in main}
    return [claim for claim in claims if (claim.key, claim.path, claim.values) not in on_main]


def find_clashes(
    mine: Sequence[Claim], main: Sequence[Claim], others: Sequence[tuple[int, Sequence[Claim]]]
) -> list[Clash]:
    """Each of this PR's proposed claims against main (other files) and other open PRs."""
    clashes: list[Clash] = []
    main_by_key: dict[tuple[str, str, str | None], list[Claim]] = {}
    for claim in main:
        main_by_key.setdefault(claim.key, []).append(claim)
    other_by_key: dict[tuple[str, str, str | None], list[tuple[int, Claim]]] = {}
    for num, claims in others:
        for claim in proposed(claims, main):
            other_by_key.setdefault(claim.key, []).append((num, claim))
    for claim in proposed(mine, main):
        for existing in main_by_key.get(claim.key, ()):
            if existing.path != claim.path:  # the same file: the PR edits that entry
                clashes.append(Clash(claim, existing, None))
        for num, other in other_by_key.get(claim.key, ()):
            clashes.append(Clash(claim, other, num))
    return clashes
