"""A model's standing in a collection, for the web page: the gate `evalbot gate` runs, and the
bars its chart draws (docs/collections.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.adapters.collections_store import SYSTEM_DIR, StoredCollection, all_collections_in
from bot.botconfig.sections import CampaignConfig
from bot.collections.aggregate import GateResult, Status
from bot.collections.check import check_collection
from bot.collections.render import reason_text
from bot.collections.scores import REPO_LIMITS, ResultsLayer, evaluate_view
from bot.hub.repo_results import ResultsReader, read_repo_results
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import BenchmarkSource
from bot.validation.policy import Policy
from bot.validation.validate import validate_results_files

BAR_WIDTH = 300


def load_collections(campaign: CampaignConfig) -> dict[str, StoredCollection]:
    """The system collections and those of the folder `collections_dir` of `config/bot.yaml`
    names (checked when the file was read, `bot.botconfig.files`)."""
    return {stored.id: stored for stored in all_collections_in(SYSTEM_DIR, campaign.folder)}


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    status: str  # passed, failed, not-gated, missing, ambiguous
    score: str  # as the results state it, or why there is none
    threshold: str
    width: float  # the score's bar, 0..BAR_WIDTH (0 when missing)
    mark: float | None  # the threshold's x, or None without one


@dataclass(frozen=True, slots=True)
class Standing:
    result: GateResult | None
    diagnostics: tuple[Diagnostic, ...]  # the collection's problems when it is invalid
    bars: tuple[Bar, ...] = ()
    aggregate: Bar | None = None
    reasons: tuple[str, ...] = ()  # why the verdict is what it is, as `evalbot gate` says it


def standing(
    stored: StoredCollection,
    model_repo: str,
    client: ResultsReader,
    source: BenchmarkSource,
    policy: Policy,
) -> Standing:
    """Raises the Hub's errors (`bot.hub.errors.HubError`) for the caller to answer 503."""
    collection, diagnostics = check_collection(stored.id, stored.read(), source, scope=stored.scope)
    if collection is None:
        return Standing(None, tuple(diagnostics))
    repo = read_repo_results(client, model_repo)
    reports = validate_results_files(repo.main, source, policy=policy, limits=REPO_LIMITS)
    result = evaluate_view(collection, [ResultsLayer(reports)])
    reasons = tuple(reason_text(result, reason) for reason in result.reasons)
    return Standing(result, tuple(diagnostics), *bars(result), reasons=reasons)


def bars(result: GateResult) -> tuple[tuple[Bar, ...], Bar]:
    items: list[Bar] = []
    for item in result.benchmarks:
        member = item.member
        mark = (
            member.normalised(member.threshold) * BAR_WIDTH
            if member.threshold is not None
            else None
        )
        direction = "≤" if member.lower_is_better else "≥"
        items.append(
            Bar(
                label=f"{member.id} / {member.task_id} / {member.metric}",
                status=item.status.value,
                score=_number(item.score) if item.score is not None else _why(item.status),
                threshold=f"{direction} {_number(member.threshold)}"
                if member.threshold is not None
                else "no threshold",
                width=(item.normalised or 0.0) * BAR_WIDTH,
                mark=mark,
            )
        )
    collection = result.collection
    top = collection.scale.top
    aggregate = Bar(
        label="aggregate",
        status="passed" if result.passed else "failed",
        score=_number(result.score) if result.score is not None else "none",
        threshold=f"≥ {_number(collection.threshold)}",
        width=(result.score or 0.0) / top * BAR_WIDTH,
        mark=collection.threshold / top * BAR_WIDTH,
    )
    return tuple(items), aggregate


_WHY: Mapping[Status, str] = {
    Status.MISSING: "missing",
    Status.AMBIGUOUS: "ambiguous (several results)",
    Status.INVALID: "invalid",
}


def _why(status: Status) -> str:
    return _WHY.get(status, status.value)


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"
