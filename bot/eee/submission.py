"""A datastore PR's changes checked against the datastore as it would be after the merge, pure:
changed paths, the files and a `HashIndex` of main and the other open PRs in, a
`SubmissionReport` out (docs/eee.md, "What a submission is checked for")."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from bot.eee import datastore_diagnostics, pairing, paths, placement
from bot.eee.dedupe import Claim, HashIndex, Holder, normalized_hash
from bot.eee.instances import MAX_SCHEMA_ROWS, InstanceScan, InstanceSummary
from bot.eee.placement import CollectionRule
from bot.eee.records import check_record
from bot.eee.runbudget import RunLimits
from bot.strictjson import depth_of
from bot.validation import diagnostics
from bot.validation.diagnostics import Diagnostic
from bot.validation.eee import MAX_DEPTH, VERSIONS, located
from bot.validation.model import FileReport

ChangeKind = Literal["added", "modified", "removed"]
#: The default bound on the datastore files one PR run checks (one Hub read each).
MAX_PR_FILES = 1000


class Unreadable(Exception):
    """A file the reader could not serve for a reason of the file itself (declared too large,
    a redirect nobody can follow): an error of that file, the others are still checked."""


class DatastoreFiles(Protocol):
    """The datastore's files: at the PR head (as main would hold them after the merge), and
    main's version of a file the PR changes. `read` and `chunks` may raise `Unreadable`."""

    def exists(self, path: str) -> bool: ...

    def read(self, path: str) -> bytes: ...

    def chunks(self, path: str) -> Iterable[bytes]: ...

    def read_main(self, path: str) -> bytes | None: ...


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    kind: ChangeKind


@dataclass(frozen=True, slots=True)
class DatastorePolicy:
    """Per datastore (`config/bot.yaml`, `datastores:`)."""

    #: The schema versions the datastore accepts (a subset of what evalbot ships).
    versions: tuple[str, ...] = VERSIONS
    #: Whether a warning keeps a PR from being ready to merge.
    warnings_block: bool = False
    #: "any": the datastore's maintainers name collections (the real datastore's `hal-usaco`
    #: holds `USACO` results, EEE's own reference record `demo-source` a `demo_bench` one);
    #: "source": the collection folder must be the first result's `source_data.dataset_name`,
    #: as EEE's publisher writes it. Developer and model folders always follow `model_info`.
    collection: CollectionRule = "any"
    #: Rows of a samples file checked against the schema in full (None: all of them, as
    #: `evalbot validate` does); later rows are checked as strict JSON objects and ids.
    schema_rows: int | None = MAX_SCHEMA_ROWS
    #: Datastore files checked per PR (None: all, as `evalbot validate` does); a PR with more
    #: is not ready, and is told to split the upload (each file is a Hub call).
    max_files: int | None = MAX_PR_FILES
    #: What one bot run may read of the PR (`bot.eee.runbudget`).
    run: RunLimits = field(default_factory=RunLimits)


@dataclass(slots=True)
class SubmissionReport:
    files: list[FileReport] = field(default_factory=list)
    #: Normalised hash of each record checked, by path (the open-PR index is built from these).
    hashes: dict[str, str] = field(default_factory=dict)
    #: The sha256 of each record's bytes, by path (byte-for-byte copies are named as such).
    contents: dict[str, str] = field(default_factory=dict)
    #: Changed paths that are no datastore file (a README, .gitattributes): not checked.
    skipped: list[str] = field(default_factory=list)

    def counts(self) -> tuple[int, int]:
        errors = warnings = 0
        for report in self.files:
            for diagnostic in report.diagnostics:
                if diagnostic.is_error:
                    errors += 1
                else:
                    warnings += 1
        return errors, warnings

    def blocking(self) -> int:
        """Warnings that block the merge whatever the policy
        (`datastore_diagnostics.BLOCKING_WARNINGS`)."""
        return blocking_warnings(self.files)

    def ready(self, policy: DatastorePolicy) -> bool:
        errors, warnings = self.counts()
        return errors == 0 and not self.blocking() and not (policy.warnings_block and warnings)


def blocking_warnings(reports: Iterable[FileReport]) -> int:
    """How many findings of `reports` are warnings EEE's gate blocks a merge on."""
    return sum(
        1
        for report in reports
        for diagnostic in report.diagnostics
        if not diagnostic.is_error and diagnostic.code in datastore_diagnostics.BLOCKING_WARNINGS
    )


@dataclass(frozen=True, slots=True)
class Claims:
    """The PR's claim on its records, weighed against other open PRs' (first come, first
    served: docs/eee.md): its number, its author's account, and when it first held each
    evaluation (`since`, by normalised hash, Hub time in seconds; `at` for one not in it)."""

    pr: int
    author: str
    at: float
    since: Mapping[str, float] = field(default_factory=dict)

    def claim(self, digest: str, content: str) -> Claim:
        return Claim(self.pr, self.since.get(digest, self.at), self.author, content)


def check_submission(
    changes: Sequence[Change],
    files: DatastoreFiles,
    index: HashIndex,
    policy: DatastorePolicy = DatastorePolicy(),
    *,
    pr: int | None = None,
    claims: Claims | None = None,
) -> SubmissionReport:
    """Check every changed datastore file; `pr` is the PR's number (None offline). With
    `claims`, a record another open PR holds is a duplicate only when that PR came first."""
    result = SubmissionReport()
    reports: dict[str, FileReport] = {}
    records: dict[str, dict[str, Any] | None] = {}
    scanned: set[str] = set()
    seen: dict[str, str] = {}  # hash -> the first path of this PR holding it
    ordered = sorted(changes, key=lambda change: change.path)
    ordered, unchecked = _bounded(ordered, policy.max_files)
    if unchecked:
        first = unchecked[0].path
        reports[first] = FileReport(
            first,
            "eee",
            [
                datastore_diagnostics.make(
                    "EEE-TOO-MANY", count=len(unchecked), limit=policy.max_files
                )
            ],
        )
    for change in ordered:
        if not paths.is_datastore_file(change.path) and not change.path.endswith(".jsonl"):
            result.skipped.append(change.path)
            continue
        report = reports[change.path] = FileReport(change.path, "eee")
        if change.kind == "removed":
            report.diagnostics.append(datastore_diagnostics.make("EEE-DELETED", path=change.path))
            report.diagnostics.extend(_deletion_problems(change.path, files))
            continue
        problem = paths.path_problem(change.path)
        if problem is not None:
            report.diagnostics.append(datastore_diagnostics.make("EEE-PATH", problem=problem))
    for change in ordered:
        path = change.path
        if path not in reports or change.kind == "removed" or paths.is_samples(path):
            continue
        if not path.endswith(".json"):
            continue
        report = reports[path]
        try:
            content = files.read(path)
        except Unreadable as error:
            report.diagnostics.append(_unreadable(error))
            continue
        record = records[path] = check_record(report, content, policy.versions)
        if record is None:
            continue
        report.diagnostics.extend(_placement(path, change.kind, record, files, policy))
        samples = paths.samples_path(path)
        samples_exist = files.exists(samples)
        report.diagnostics.extend(pairing.aggregate_problems(path, record, samples_exist))
        if samples_exist and pairing.declared_samples(record) is not None:
            sample_report = reports.setdefault(samples, FileReport(samples, "eee"))
            summary = _scan(files, samples, sample_report, policy, pairing.algorithm_of(record))
            scanned.add(samples)
            report.diagnostics.extend(pairing.content_problems(path, record, summary))
        digest = result.hashes[path] = normalized_hash(record)
        content_id = result.contents[path] = hashlib.sha256(content).hexdigest()
        claim = claims.claim(digest, content_id) if claims is not None else None
        report.diagnostics.extend(_duplicates(digest, path, index, seen, pr=pr, claim=claim))
        report.diagnostics = located(content, report.diagnostics)
    for change in ordered:
        path = change.path
        if path not in reports or change.kind == "removed" or not path.endswith(".jsonl"):
            continue
        report = reports[path]
        if not paths.is_samples(path):
            _scan(files, path, report, policy, "sha256")
            continue
        aggregate = paths.aggregate_path(path)
        exists = files.exists(aggregate)
        try:
            record = records[aggregate] if aggregate in records else _peek(files, aggregate, exists)
        except Unreadable as error:
            report.diagnostics.append(_unreadable(error, of=f"its record `{aggregate}`"))
            continue
        if path not in scanned:
            # Its record is not in the PR: the record's declarations (rows, ids, checksum) are
            # still compared with the new file, and a mismatch is this file's error.
            algorithm = pairing.algorithm_of(record) if record is not None else "sha256"
            summary = _scan(files, path, report, policy, algorithm)
            declared = pairing.declared_samples(record) if record is not None else None
            if record is not None and declared is not None and declared.get("file_path") == path:
                report.diagnostics.extend(pairing.content_problems(aggregate, record, summary))
        orphan = pairing.orphan_problem(path, record, exists)
        if orphan is not None:
            report.diagnostics.append(orphan)
    result.files = [reports[path] for path in sorted(reports)]
    return result


def _bounded(changes: list[Change], limit: int | None) -> tuple[list[Change], list[Change]]:
    """The changes to check and the datastore files past `limit`, left unchecked."""
    if limit is None:
        return changes, []
    kept: list[Change] = []
    rest: list[Change] = []
    counted = 0
    for change in changes:
        if not change.path.endswith((".json", ".jsonl")):
            kept.append(change)  # skipped anyway, at no cost
        elif counted < limit:
            kept.append(change)
            counted += 1
        else:
            rest.append(change)
    return kept, rest


def _deletion_problems(path: str, files: DatastoreFiles) -> list[Diagnostic]:
    """A deletion must not leave its pair behind: a record declaring a samples file that is
    gone, or a samples file without its record."""
    if paths.is_samples(path):
        aggregate = paths.aggregate_path(path)
        try:
            record = _peek(files, aggregate, files.exists(aggregate))
        except Unreadable as error:
            return [_unreadable(error, of=f"its record `{aggregate}`")]
        declared = pairing.declared_samples(record) if record is not None else None
        if declared is not None and declared.get("file_path") == path:
            return [
                datastore_diagnostics.make(
                    "EEE-PAIR",
                    problem=f"the record `{aggregate}` stays and still declares this file",
                    hint="delete the record too, or keep its samples file",
                )
            ]
        return []
    samples = paths.samples_path(path)
    if path.endswith(".json") and files.exists(samples):
        return [
            datastore_diagnostics.make(
                "EEE-PAIR",
                problem=f"its samples file `{samples}` stays without its record",
                hint="delete the samples file too",
            )
        ]
    return []


def _scan(
    files: DatastoreFiles, path: str, report: FileReport, policy: DatastorePolicy, algorithm: str
) -> InstanceSummary:
    scan = InstanceScan(report, policy.versions, algorithm, policy.schema_rows)
    try:
        for chunk in files.chunks(path):
            scan.feed(chunk)
    except Unreadable as error:
        report.diagnostics.append(_unreadable(error))
        return scan.abandon()
    return scan.finish()


def _unreadable(error: Unreadable, *, of: str | None = None) -> Diagnostic:
    """FILE-UNREADABLE with the reader's reason; `of` names what else could not be read (a
    record read for what it declares, main's version of the file)."""
    reason = str(error) if of is None else f"{of}: {error}"
    return diagnostics.make("FILE-UNREADABLE", reason=reason)


def _peek(files: DatastoreFiles, path: str, exists: bool) -> dict[str, Any] | None:
    """A record the PR does not change, read only to see what it declares."""
    if not exists:
        return None
    return _record(files.read(path))


def _placement(
    path: str,
    kind: ChangeKind,
    record: dict[str, Any],
    files: DatastoreFiles,
    policy: DatastorePolicy,
) -> list[Diagnostic]:
    """EEE-FOLDER when a folder does not follow the record (the developer and model folders
    `model_info`, the collection `dataset_name` with `collection: source`); a record edited in
    place whose identity did not change keeps the folder it was accepted in."""
    actual = paths.folders(path)
    if actual is None or paths.path_problem(path) is not None:
        return []  # the path rule already says where it must go
    found = placement.folder_problems(actual, record, policy.collection)
    if not found or kind != "modified":
        return found
    try:
        old = _old_record(files, path)
    except Unreadable as error:
        return [*found, _unreadable(error, of="main's version of this file")]
    if old is None:
        return found
    if placement.identity_key(old, policy.collection) == placement.identity_key(
        record, policy.collection
    ):
        return []  # identity unchanged: the record keeps the folder it was accepted in
    moved = placement.moved(old, record, actual, policy.collection)
    return found if moved is None else [moved]


def _old_record(files: DatastoreFiles, path: str) -> dict[str, Any] | None:
    content = files.read_main(path)
    return None if content is None else _record(content)


def _record(content: bytes) -> dict[str, Any] | None:
    """A record read only for what it declares; None when it is not a sound JSON object."""
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and depth_of(data, MAX_DEPTH) <= MAX_DEPTH else None


def _duplicates(
    digest: str,
    path: str,
    index: HashIndex,
    seen: dict[str, str],
    *,
    pr: int | None,
    claim: Claim | None,
) -> list[Diagnostic]:
    """Main's copy is always first; another open PR's only when it held the record before
    this PR did (`Claim.yields_to`): the later PR carries the error, the earlier stays as
    it was, whoever copies whom."""
    found: list[Diagnostic] = []
    first = seen.setdefault(digest, path)
    if first != path:
        found.append(_duplicate(f"`{first}` in this PR", digest))
    earlier = [h for h in index.others(digest, path, pr) if claim is None or claim.yields_to(h)]
    for holder in earlier[:3]:
        found.append(_duplicate(_where(holder, claim), digest))
    return found


def _where(holder: Holder, claim: Claim | None) -> str:
    if holder.pr is None:
        return datastore_diagnostics.DUPLICATE_ON_MAIN.format(path=holder.path)
    if claim is not None and claim.copies(holder):
        return datastore_diagnostics.DUPLICATE_COPIED.format(path=holder.path, pr=holder.pr)
    if claim is not None:
        return datastore_diagnostics.DUPLICATE_EARLIER.format(path=holder.path, pr=holder.pr)
    return datastore_diagnostics.DUPLICATE_IN_PR.format(path=holder.path, pr=holder.pr)


def _duplicate(where: str, digest: str) -> Diagnostic:
    return datastore_diagnostics.make("EEE-DUPLICATE", where=where, digest=digest[:12])
