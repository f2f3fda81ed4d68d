"""Comment sections about the PR among its repo, pure: collection standing before and after the
merge, and results main or another open PR already claims (docs/comment.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from bot.collections.aggregate import BenchmarkResult, GateResult, Status
from bot.collections.render import aggregate_text, reason_text
from bot.report import standing_and_clashes_texts as texts
from bot.report.comment_texts import LIST_ITEM, MORE_ITEMS, plural
from bot.report.escaping import escape_text, is_repo_id
from bot.validation.clashes import Claim, Clash, Values


@dataclass(frozen=True, slots=True)
class Standing:
    """One collection's gate before and after the PR; `problem` when it could not be used."""

    collection_id: str
    before: GateResult | None = None
    after: GateResult | None = None
    problem: str | None = None


def render_standing(standings: Sequence[Standing], repo_id: str) -> str | None:
    if not standings:
        return None
    rows: list[str] = []
    problems: list[str] = []
    for standing in standings:
        name = f"**{escape_text(standing.collection_id, 80)}**"
        if standing.before is None or standing.after is None:
            problems.append(
                texts.STANDING_INVALID.format(
                    collection=escape_text(standing.collection_id, 80),
                    problem=escape_text(standing.problem or "unknown", 200),
                )
            )
            continue
        rows.append(
            texts.STANDING_ROW.format(
                collection=name,
                before_score=_score(standing.before),
                after_score=_score(standing.after),
                before=texts.PASS if standing.before.passed else texts.FAIL,
                after=texts.PASS if standing.after.passed else texts.FAIL,
                why=_why(standing.after),
                flips=_flips(standing.before, standing.after),
            )
        )
    parts = [texts.STANDING_HEADING]
    if rows:
        parts.append("\n".join([texts.STANDING_TABLE, *rows]))
    parts.extend(problems)
    shown_repo = escape_text(repo_id, 200) if is_repo_id(repo_id) else "MODEL"
    parts.append(texts.STANDING_NOTE.format(repo=shown_repo))
    return "\n\n".join(parts)


def _score(result: GateResult) -> str:
    return texts.STANDING_NO_SCORE if result.exact_score is None else aggregate_text(result)


def _why(result: GateResult) -> str:
    """The reasons of the verdict after the merge (blocking ones first), or none."""
    reasons = [reason_text(result, reason) for reason in result.reasons]
    if not reasons:
        return texts.STANDING_NONE
    shown = [escape_text(reason, 300) for reason in reasons[: texts.MAX_REASONS]]
    extra = len(reasons) - texts.MAX_REASONS
    if extra > 0:
        shown.append(texts.MORE_CLASHES.format(count=extra))
    return "; ".join(shown)


def _flips(before: GateResult, after: GateResult) -> str:
    flips = [
        texts.FLIP.format(
            benchmark=escape_text(_member_name(old), 120),
            before=_state(old),
            after=_state(new),
        )
        for old, new in zip(before.benchmarks, after.benchmarks, strict=True)
        if _state(old) != _state(new)
    ]
    return "; ".join(flips) if flips else texts.STANDING_NONE


def _member_name(result: BenchmarkResult) -> str:
    member = result.member
    name = f"{member.id} / {member.task_id}"
    return name if member.metric == "value" else f"{name} / {member.metric}"


def _state(result: BenchmarkResult) -> str:
    if result.status in (Status.PASSED, Status.FAILED) and result.score is not None:
        return f"{result.score:g} {result.status.value}"
    return result.status.value


def render_clashes(clashes: Sequence[Clash], repo_id: str, hub_url: str) -> str | None:
    if not clashes:
        return None
    lines = [texts.CLASHES_HEADING]
    for clash in clashes[: texts.MAX_CLASHES]:
        claim, other = clash.claim, clash.other
        common = {
            "path": escape_text(claim.path, 200),
            "line": claim.line,
            "benchmark": escape_text(claim.benchmark, 120),
            "task": escape_text(claim.task_id, 120),
            "notes": texts.NOTES.format(notes=escape_text(claim.notes, 120)) if claim.notes else "",
            "values_word": plural(len(claim.values), "value"),
            "values": _values(claim.values),
            "where": _where(clash, repo_id, hub_url),
        }
        template = texts.CLASH_SAME if clash.agree else texts.CLASH_DIFFERENT
        sources = ""
        if claim.source_url is not None or other.source_url is not None:
            sources = texts.CLASH_SOURCES.format(
                here=_source(claim, hub_url), there=_source(other, hub_url)
            )
        lines.append(template.format(**common, other_values=_values(other.values), sources=sources))
    extra = len(clashes) - texts.MAX_CLASHES
    if extra > 0:
        lines.append(LIST_ITEM.format(item=MORE_ITEMS.format(count=extra)))
    return "\n".join(lines)


def _values(values: Values) -> str:
    if len(values) == 1 and values[0][0] == "value":
        return f"{values[0][1]:g}"
    return ", ".join(f"{escape_text(metric, 60)} {value:g}" for metric, value in values)


def _where(clash: Clash, repo_id: str, hub_url: str) -> str:
    place = {"path": escape_text(clash.other.path, 200), "line": clash.other.line}
    if clash.pr is None:
        return texts.WHERE_MAIN.format(**place)
    if is_repo_id(repo_id):
        url = f"{hub_url.rstrip('/')}/{repo_id}/discussions/{clash.pr}"
        return texts.WHERE_PR.format(num=clash.pr, url=url, **place)
    return texts.WHERE_PR_PLAIN.format(num=clash.pr, **place)


def _source(claim: Claim, hub_url: str) -> str:
    """One side's source: the record (linked on the configured Hub, rebuilt from its parts),
    and whether the claim agrees with it."""
    if claim.source_url is None:
        return texts.SOURCE_NONE
    record = texts.SOURCE_RECORD_PLAIN
    datastore, revision, path = claim.source_datastore, claim.source_revision, claim.source_path
    if datastore and revision and path and is_repo_id(datastore):
        url = (
            f"{hub_url.rstrip('/')}/datasets/{quote(datastore, safe='/')}/blob/"
            f"{quote(revision, safe='')}/{quote(path, safe='/')}"
        )
        record = texts.SOURCE_RECORD.format(url=url)
    state = texts.SOURCE_STATES.get(claim.source_status, texts.SOURCE_STATES[None])
    return state.format(record=record)
