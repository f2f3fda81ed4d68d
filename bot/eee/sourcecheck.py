"""An entry checked against the Every Eval Ever record its `source.url` links, pure; only a
merged record of a public datastore counts, and a record that could not be read leaves the
source not checked, never a finding (docs/comment.md#sources)."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any, Protocol

from bot.eee import source_reasons
from bot.eee.community import date_of, results_for, score_of, task_ids_for
from bot.eee.links import RecordLink, record_link
from bot.eee.records import MAX_RECORD_BYTES, check_record
from bot.strictjson import JsonError
from bot.validation import diagnostics
from bot.validation.catalogue import CATALOGUE
from bot.validation.diagnostics import Diagnostic, shown
from bot.validation.eee import EEE_JSON, VERSIONS
from bot.validation.model import (
    Dialect,
    EntryReport,
    FileReport,
    SourceCheck,
    SourceStatus,
    is_finite_number,
    is_http_url,
)

#: The converter rounds values to 10 decimals and compares scores within 1e-9 (`_scores_equal`).
DIGITS = 10
TOLERANCE = 1e-9


class RecordMissing(Exception):
    """The datastore has no such file at that revision (the Hub's own 404)."""


class RecordUnreadable(Exception):
    """The record could not be read this time (offline, timeout, refusal, budget spent)."""


class RecordNotMerged(RecordUnreadable):
    """The record is not what the datastore's maintainers merged: not checked, with the fix."""


class RecordNotPublic(Exception):
    """The datastore is not public (private, gated, or not shown): its links are linked only,
    and nothing of it is read or shown."""


class RecordReader(Protocol):
    """Where records come from: the Hub (through `bot.hub`), or a local datastore checkout."""

    def prepare(self, links: Sequence[RecordLink]) -> None:
        """The links the run will read, so a reader can ask for what they share at once."""
        ...

    def read(self, link: RecordLink) -> bytes:
        """The record's bytes; `RecordMissing`, `RecordUnreadable` (`RecordNotMerged`) or
        `RecordNotPublic` otherwise."""
        ...


def check_sources(
    reports: Iterable[FileReport],
    reader: RecordReader | None,
    *,
    model_repo: str | None,
    hub_url: str,
    datastores: Collection[str],
) -> None:
    """Set each entry's `source` verdict and add its findings. `reader` None: datastore links
    are not read (shown as unreadable, with the reason). Each record is read once; a link to
    a datastore's pull request (`refs/pr/<n>`) is never read: only merged records count."""
    linked: list[tuple[EntryReport, str, RecordLink | None]] = []
    for report in reports:
        for entry in report.entries:
            source = entry.entry.data.get("source")
            url = source.get("url") if isinstance(source, dict) else None
            if isinstance(url, str) and is_http_url(url):
                linked.append((entry, url, record_link(url, hub_url, datastores)))
    wanted = [link for _, _, link in linked if link is not None and not link.at_pull_request]
    if reader is not None and wanted:
        reader.prepare(wanted)
    read: dict[tuple[str, str, str], bytes | Exception] = {}
    for entry, url, link in linked:
        if link is None:
            entry.source = SourceCheck(SourceStatus.LINKED, url)
            continue
        key = (link.repo_id.lower(), link.revision, link.path)
        if key not in read:
            read[key] = _read(reader, link)
        outcome = read[key]
        if isinstance(outcome, RecordNotPublic):
            entry.source = SourceCheck(SourceStatus.LINKED, url)  # nothing of it is shown
        elif isinstance(outcome, RecordMissing):
            entry.source = _check(link, SourceStatus.MISMATCH)
            entry.diagnostics.append(_missing(entry, link))
        elif isinstance(outcome, Exception):
            entry.source = _check(link, SourceStatus.UNREADABLE, reason=str(outcome))
        else:
            check, found = check_entry_source(entry, model_repo, link, outcome)
            entry.source = check
            entry.diagnostics.extend(found)


def _read(reader: RecordReader | None, link: RecordLink) -> bytes | Exception:
    if link.at_pull_request:
        return RecordNotMerged(
            source_reasons.SOURCE_PULL_REQUEST.format(
                revision=link.short_revision, datastore=link.repo_id
            )
        )
    if reader is None:
        return RecordUnreadable("no datastore to read it from (offline)")
    try:
        return reader.read(link)
    except (RecordMissing, RecordUnreadable, RecordNotPublic) as error:
        return error


def _check(link: RecordLink, status: SourceStatus, **more: str | None) -> SourceCheck:
    return SourceCheck(
        status, link.url, datastore=link.repo_id, revision=link.revision, path=link.path, **more
    )


def check_entry_source(
    entry: EntryReport,
    model_repo: str | None,
    link: RecordLink,
    content: bytes,
    versions: tuple[str, ...] = VERSIONS,
) -> tuple[SourceCheck, list[Diagnostic]]:
    """The verdict on one entry against the record `content` that `link` names; `model_repo`
    None: the model is not compared (offline without `--model-repo`)."""
    record, problems = _read_record(content, versions)
    found: list[Diagnostic] = []
    if problems:
        first = problems[0]
        where = f"{first.field}: " if first.field else ""
        found.append(
            _finding(
                entry,
                "ENTRY-SOURCE-INVALID",
                "source.url",
                url=link.url,
                problem=f"{first.code} {where}{first.message}",
                count=len(problems),
            )
        )
    record_id = None
    if record is not None:
        evaluation_id = record.get("evaluation_id")
        record_id = evaluation_id if isinstance(evaluation_id, str) else None
        found.extend(_disagreements(entry, model_repo, link, record))
    status = SourceStatus.MISMATCH if found else SourceStatus.CHECKED
    return _check(link, status, record_id=record_id), found


#: The EEE verdict of records already checked, by content digest and accepted versions: a
#: record is checked against its schema once per process, however many runs link it (the
#: schema check is most of a source check's time: `bench/sources.py`).
_VERDICTS: OrderedDict[tuple[str, tuple[str, ...]], tuple[Diagnostic, ...]] = OrderedDict()
MAX_VERDICTS = 10_000


def _read_record(
    content: bytes, versions: tuple[str, ...]
) -> tuple[dict[str, Any] | None, tuple[Diagnostic, ...]]:
    """The record (None when it is no JSON object) and its errors under EEE's checks."""
    key = (hashlib.sha256(content).hexdigest(), versions)
    known = _VERDICTS.get(key)
    if known is not None:
        _VERDICTS.move_to_end(key)
        return _parsed(content), known
    checked = FileReport(path="record.json", kind="eee")
    record = check_record(checked, content, versions)
    problems = tuple(d for d in checked.diagnostics if d.is_error)
    _VERDICTS[key] = problems
    if len(_VERDICTS) > MAX_VERDICTS:
        _VERDICTS.popitem(last=False)
    return record, problems


#: a record as `check_record` reads it
_RECORD_JSON = replace(EEE_JSON, max_bytes=MAX_RECORD_BYTES)


def _parsed(content: bytes) -> dict[str, Any] | None:
    try:
        data = _RECORD_JSON.read(content)
    except JsonError:
        return None
    return data if isinstance(data, dict) else None


def _disagreements(
    entry: EntryReport, model_repo: str | None, link: RecordLink, record: dict[str, Any]
) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    model = record.get("model_info")
    model_id = model.get("id") if isinstance(model, dict) else None
    if model_repo is not None and not (
        isinstance(model_id, str) and model_id.strip().casefold() == model_repo.casefold()
    ):
        found.append(
            _mismatch(
                entry,
                "source.url",
                link,
                what="model",
                mine=model_repo,
                theirs=model_id,
                record_field="model_info.id",
                hint="link the record of this model, or publish the result on the model the "
                "record names",
            )
        )
    dataset_id = entry.entry.dataset_id
    if not dataset_id:
        return found
    results = results_for(record, dataset_id)
    if not results:
        found.append(
            _mismatch(
                entry,
                "dataset.id",
                link,
                what="benchmark",
                mine=dataset_id,
                theirs=_benchmarks_of(record),
                record_field="evaluation_results[].source_data.hf_repo",
                hint="link the record of this benchmark, or correct `dataset.id`",
            )
        )
        return found
    task_id = entry.entry.task_id
    tasks = [r for r in results if task_id is None or _task_agrees(r, dataset_id, task_id)]
    if not tasks:
        expected = sorted({t for r in results for t in task_ids_for(r, dataset_id)})
        found.append(
            _mismatch(
                entry,
                "dataset.task_id",
                link,
                what="task",
                mine=task_id,
                theirs=" or ".join(expected) or None,
                record_field="evaluation_results[].source_data",
                hint=f"write `task_id: {expected[0]}`" if expected else "correct `task_id`",
            )
        )
        return found
    found.extend(_value_disagreement(entry, link, tasks))
    found.extend(_date_disagreement(entry, link, record, tasks))
    return found


def _task_agrees(result: dict[str, Any], dataset_id: str, task_id: str) -> bool:
    tasks = task_ids_for(result, dataset_id)
    return not tasks or task_id in tasks


def _benchmarks_of(record: dict[str, Any]) -> str | None:
    names: list[str] = []
    for result in record.get("evaluation_results") or ():
        source = result.get("source_data") if isinstance(result, dict) else None
        if isinstance(source, dict):
            name = source.get("hf_repo") or source.get("dataset_name")
            if isinstance(name, str) and name not in names:
                names.append(name)
    return ", ".join(names[:3]) + (", …" if len(names) > 3 else "") if names else None


def _value_disagreement(
    entry: EntryReport, link: RecordLink, results: list[dict[str, Any]]
) -> list[Diagnostic]:
    field, value = _entry_value(entry)
    if field is None or not is_finite_number(value):
        return []
    scale = _entry_scale(entry)
    candidates: list[float] = []
    for result in results:
        score = score_of(result)
        if score is not None:
            candidates.extend(_on_scale(score.recorded, score.percent, scale))
    if any(agrees(value, candidate) for candidate in candidates):
        return []
    theirs = _number_text(candidates[0]) if candidates else None
    if len(candidates) > 1:
        theirs = f"{theirs} ({_number_text(candidates[1])} as recorded)"
    return [
        _mismatch(
            entry,
            field,
            link,
            what="value",
            mine=value,
            theirs=theirs,
            record_field="score_details.score",
            hint=f"write the record's score, {theirs}"
            if theirs
            else "link a record with a score for this result",
        )
    ]


def _entry_value(entry: EntryReport) -> tuple[str | None, object]:
    """The entry's field that holds its primary value, and that value."""
    data = entry.entry.data
    if entry.entry.dialect is Dialect.LIVE:
        return "value", data.get("value")
    metrics = data.get("metrics")
    if not isinstance(metrics, list):
        return None, None
    primary = entry.benchmark.primary_metric if entry.benchmark is not None else None
    for index, item in enumerate(metrics):
        if not isinstance(item, dict):
            continue
        if (primary is not None and item.get("metric_id") == primary.id) or (
            primary is None and len(metrics) == 1
        ):
            return f"metrics[{index}].value", item.get("value")
    return None, None


def _entry_scale(entry: EntryReport) -> float | None:
    """The entry's scale when its benchmark declares it (a primary metric's `max_score` of 1
    or 100); None: either."""
    primary = entry.benchmark.primary_metric if entry.benchmark is not None else None
    if primary is not None and primary.max_score in (1, 100):
        return primary.max_score
    return None


def _on_scale(recorded: float, percent: float | None, scale: float | None) -> list[float]:
    if scale == 100:
        return [percent] if percent is not None else []
    if scale == 1:
        return [round(percent / 100, DIGITS + 2)] if percent is not None else [recorded]
    return [percent, recorded] if percent is not None and percent != recorded else [recorded]


def agrees(value: float | int, score: float) -> bool:
    """`value` is `score` written to the digits `value` has: equal within the converter's
    tolerance, or `score` rounded (half up or half even) to as many decimals as `value`
    shows (at most 10, as the converter rounds)."""
    if abs(float(value) - score) <= TOLERANCE:
        return True
    try:
        written = Decimal(repr(value))
        exact = Decimal(repr(score))
    except InvalidOperation:
        return False
    exponent = written.as_tuple().exponent
    if not isinstance(exponent, int):
        return False
    decimals = max(0, -exponent)
    if decimals >= DIGITS:
        return False
    step = Decimal(1).scaleb(-decimals)
    return any(exact.quantize(step, rounding=mode) == written for mode in _ROUNDINGS)


_ROUNDINGS = (ROUND_HALF_UP, ROUND_HALF_EVEN)


def _date_disagreement(
    entry: EntryReport, link: RecordLink, record: dict[str, Any], results: list[dict[str, Any]]
) -> list[Diagnostic]:
    written = entry.entry.data.get("date")
    if not isinstance(written, str) or len(written) < 10:
        return []
    dates = sorted({d for d in (date_of(record, r) for r in results) if d is not None})
    if not dates or written[:10] in dates:
        return []
    return [
        _mismatch(
            entry,
            "date",
            link,
            what="date",
            mine=written,
            theirs=" or ".join(dates),
            record_field="evaluation_timestamp",
            hint=f"write `date: '{dates[0]}'`",
        )
    ]


def _number_text(value: float) -> str:
    return repr(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)


def _mismatch(
    entry: EntryReport,
    field: str,
    link: RecordLink,
    *,
    what: str,
    mine: object,
    theirs: object,
    record_field: str,
    hint: str,
) -> Diagnostic:
    return _finding(
        entry,
        "ENTRY-SOURCE-MISMATCH",
        field,
        what=what,
        mine=shown(mine),
        theirs=_said(theirs),
        record_field=record_field,
        url=link.url,
        fix=hint,
    )


def _said(theirs: object) -> str:
    """The record's side of a disagreement: its own text, cut to a readable length."""
    if theirs is None:
        return "nothing"
    text = str(theirs)
    return text if len(text) <= 120 else text[:119] + "…"


def _missing(entry: EntryReport, link: RecordLink) -> Diagnostic:
    return _finding(
        entry,
        "ENTRY-SOURCE-NOT-FOUND",
        "source.url",
        url=link.url,
        datastore=link.repo_id,
        revision=link.revision,
        path=link.path,
    )


def _finding(entry: EntryReport, code: str, field: str, **params: object) -> Diagnostic:
    line = entry.entry.field_line(field) or entry.entry.field_line(field.split("[", 1)[0])
    return diagnostics.build(
        CATALOGUE[code], code, line=line or entry.entry.line, column=None, field=field,
        params=params,
    )  # fmt: skip
