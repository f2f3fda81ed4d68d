"""The shared vocabulary of the core, plain data every layer speaks: benchmarks, result entries,
verdicts, reports, and the small predicates of their field formats, `same_hub_name` among them."""

from __future__ import annotations

import datetime
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol, TypeGuard

from bot.validation.diagnostics import Diagnostic


class Dialect(StrEnum):
    """Which of the two result-file dialects an entry is written in (docs/decisions.md#dialects)."""

    TARGET = "target"  # metrics[] of {metric_id, value}, framework, verify_token
    LIVE = "live"  # one scalar value, verifyToken, as real Hub repos carry today


@dataclass(frozen=True, slots=True)
class MetricDef:
    """A metric a benchmark declares in its eval.yaml `metrics[]` (target spec only)."""

    id: str
    display_name: str
    higher_is_better: bool
    primary: bool = False
    min_score: float | None = None
    max_score: float | None = None


@dataclass(frozen=True, slots=True)
class TaskDef:
    id: str
    display_name: str | None = None
    #: the dataset config and split the task reads (what a converter checks a framework's
    #: recorded dataset against)
    config: str | None = None
    split: str | None = None


@dataclass(frozen=True, slots=True)
class Benchmark:
    """A benchmark as its own eval.yaml defines it, at one revision.

    `repo_id` is the canonical spelling (as the Hub or the offline store has it); lookups are
    case-insensitive, so an entry may spell it differently.
    """

    repo_id: str
    tasks: tuple[TaskDef, ...]
    metrics: tuple[MetricDef, ...] = ()
    evaluation_framework: str | None = None
    revision: str | None = None  # the commit the eval.yaml was read at, when known

    @property
    def primary_metric(self) -> MetricDef | None:
        """The metric a live entry's scalar `value` stands for; None when none is declared."""
        if len(self.metrics) == 1:
            return self.metrics[0]
        return next((metric for metric in self.metrics if metric.primary), None)

    def task(self, task_id: str) -> TaskDef | None:
        return next((task for task in self.tasks if task.id == task_id), None)

    def metric(self, metric_id: str) -> MetricDef | None:
        return next((metric for metric in self.metrics if metric.id == metric_id), None)


@dataclass(frozen=True, slots=True)
class BenchmarkNotFound:
    """The benchmark source has no usable eval.yaml for the id; `reason` says why."""

    dataset_id: str
    reason: str
    diagnostics: tuple[Diagnostic, ...] = ()  # problems of the eval.yaml itself, if it exists


BenchmarkLookup = Benchmark | BenchmarkNotFound


class BenchmarkSource(Protocol):
    """Where benchmark definitions come from: an offline folder, the Hub, a cache in front.

    Implementations do their own I/O; the core only calls this method, so validation itself
    stays pure. `revision` is the entry's `dataset.revision` (None: the default branch).
    """

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup: ...


class VerificationStatus(StrEnum):
    VERIFIED = "verified"
    UNVERIFIED = "unverified"
    ABSENT = "absent"  # the entry carries no token


@dataclass(frozen=True, slots=True)
class Verification:
    """The verdict on an entry's token; `reason` is a documented code when unverified."""

    status: VerificationStatus
    reason: str | None = None

    @classmethod
    def absent(cls) -> Verification:
        return cls(VerificationStatus.ABSENT)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status.value, "reason": self.reason}


class SourceStatus(StrEnum):
    """What became of an entry's `source.url` (docs/comment.md#sources)."""

    CHECKED = "checked"  # a datastore record, read, and the entry agrees with it
    MISMATCH = "mismatch"  # a datastore record, read, and the entry disagrees (findings say how)
    UNREADABLE = "unreadable"  # a datastore record that could not be read: not checked
    LINKED = "linked"  # any other http(s) link: shown, not checked


@dataclass(frozen=True, slots=True)
class SourceCheck:
    """The verdict on an entry's `source.url`. `datastore`, `revision` and `path` name the
    record a datastore link points at; `record_id` is its `evaluation_id` once read;
    `reason` says why a record was not read (the next run tries again)."""

    status: SourceStatus
    url: str
    datastore: str | None = None
    revision: str | None = None
    path: str | None = None
    record_id: str | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "url": self.url,
            "datastore": self.datastore,
            "revision": self.revision,
            "path": self.path,
            "record_id": self.record_id,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class ResultEntry:
    """One entry of a results file, as loaded: plain JSON-compatible data plus where it stood.

    `data` is the entry exactly as the strict loader constructed it (YAML 1.2 core types:
    str, int, float, bool, None, lists and str-keyed mappings), token included; the token
    verifier computes its digest from it. `index` is 0-based, `line` the 1-based line of `-`.
    """

    index: int
    line: int
    data: Mapping[str, Any]
    dialect: Dialect
    dataset_id: str | None = None
    task_id: str | None = None
    token: str | None = None  # from `verify_token` or `verifyToken`
    lines: Mapping[str, int] = field(default_factory=dict)  # dotted field path -> 1-based line
    #: Dotted paths of plain scalars that a YAML 1.1 reader (PyYAML's safe_load, which the Hub's
    #: own tooling uses) would read as another value or type: `1e3`, `012`, `on`, `1:20`, an
    #: unquoted date. Valid under YAML 1.2, but a signed claim must not rest on them.
    ambiguous_fields: frozenset[str] = frozenset()

    def field_line(self, path: str) -> int | None:
        """Line of a dotted field path inside the entry, when the loader recorded it."""
        return self.lines.get(path)


@dataclass(slots=True)
class EntryReport:
    """Everything known about one entry after the checks that have run so far."""

    entry: ResultEntry
    diagnostics: list[Diagnostic] = field(default_factory=list)
    benchmark: Benchmark | None = None
    verification: Verification = field(default_factory=Verification.absent)
    #: The verdict on `source.url`; None when the entry cites no http(s) source.
    source: SourceCheck | None = None

    @property
    def ok(self) -> bool:
        return not any(diagnostic.is_error for diagnostic in self.diagnostics)


FileKind = Literal["results", "benchmark", "eee"]  # eee: an Every Eval Ever record or JSONL


@dataclass(slots=True)
class FileReport:
    """The verdict on one file: file-level diagnostics plus one report per entry."""

    path: str
    kind: FileKind
    diagnostics: list[Diagnostic] = field(default_factory=list)
    entries: list[EntryReport] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics) and all(e.ok for e in self.entries)


# --- the formats of fields and names ----------------------------------------------------------

_SHA40 = re.compile(r"[0-9a-f]{40}\Z")
# Hub repo ids: `owner/name`, letters, digits, `-`, `_`, `.` (docs/specs.md#validation-rules, E1).
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+\Z", re.ASCII)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")


def is_sha40(value: str) -> bool:
    """A full commit SHA as the draft spec asks for revisions (D4): 40 lower-case hex."""
    return _SHA40.match(value) is not None


def is_repo_id(value: str) -> bool:
    return _REPO_ID.match(value) is not None and ".." not in value


def is_iso8601(value: str) -> bool:
    """An ISO-8601 date (`2026-01-15`) or date-time (`2026-01-15T10:30:00Z`, with offset)."""
    if _DATE.match(value):
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            return False
        return True
    if len(value) < 11 or value[10] not in "Tt ":
        return False
    try:
        datetime.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def is_http_url(value: str) -> bool:
    """An absolute http(s) URL with a host; anything else (javascript:, file:) is refused."""
    lowered = value.lower()
    for scheme in ("https://", "http://"):
        if lowered.startswith(scheme):
            rest = value[len(scheme) :]
            host = rest.split("/", 1)[0]
            return bool(host) and not any(char.isspace() for char in value)
    return False


def is_number(value: Any) -> bool:
    """int or float, never a bool (a YAML `true` is not a score)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite_number(value: Any) -> TypeGuard[int | float]:
    """A number a float can hold: an integer beyond float range (`9` x 400) counts as infinite."""
    if not is_number(value):
        return False
    if isinstance(value, int):
        return abs(value) <= sys.float_info.max
    return math.isfinite(value)


def benchmark_file_stem(dataset_id: str) -> str:
    """The draft naming rule (F2): repo-name part, lower-cased, `-` as `_` (`cais/hle` -> hle)."""
    return dataset_id.rsplit("/", 1)[-1].lower().replace("-", "_")


def same_hub_name(left: str, right: str) -> bool:
    """Whether two Hub user or org names name the same account."""
    return left.casefold() == right.casefold()
