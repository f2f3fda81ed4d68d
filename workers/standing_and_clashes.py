"""The PR among its repo: collection standing before and after, and results main or another open
PR already claims, both opt-in in `config/bot.yaml` (docs/comment.md; calls: docs/hub.md, "Beyond
one PR: collections and campaigns")."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis

from bot.botconfig.sections import CampaignConfig
from bot.collections.check import check_collection
from bot.collections.scores import REPO_LIMITS, ResultsLayer, evaluate_view
from bot.hub.datastore import git_blob_id
from bot.hub.pulls import PullRequest
from bot.hub.repo_results import ResultsReader, is_results
from bot.logs import log_json
from bot.queue.events import DedupeKey, PrEvent
from bot.queue.publishing import publish
from bot.report.standing_and_clashes import Standing, render_clashes, render_standing
from bot.store import keys
from bot.validation.clashes import Claim, Clash, claims_of, find_clashes
from bot.validation.model import BenchmarkSource, FileReport
from bot.validation.policy import Policy
from bot.validation.validate import validate_results_files

log = logging.getLogger("evalbot.worker")

#: How long a file's bytes (by blob id) and an open PR's claims (by head) are kept.
CACHE_TTL_S = 7 * 24 * 3600
#: Open PRs compared with at most (one page of the Hub's discussions listing).
MAX_OPEN_PRS = 50


class RepoView:
    """The repo around one PR, read through the Hub once and cached in Redis; counts calls."""

    def __init__(self, reader: ResultsReader, client: redis.Redis, repo_id: str) -> None:
        self.reader = reader
        self.redis = client
        self.repo_id = repo_id
        self.hub_calls = 0
        #: The head each other open PR was read at (`other_claims`).
        self.heads: dict[int, str] = {}

    def main_files(self, branch: str) -> dict[str, bytes]:
        tree = self.reader.results_tree(self.repo_id, branch)
        self.hub_calls += 1
        files: dict[str, bytes] = {}
        for path, blob in sorted(tree.items()):
            if not is_results(path):
                continue
            key = keys.blob(blob)
            cached = self.redis.get(key) if blob else None
            if isinstance(cached, bytes):
                files[path] = cached
                continue
            content = self.reader.read_file(self.repo_id, path, branch)
            self.hub_calls += 1
            files[path] = content
            if blob and git_blob_id(content) == blob:  # not if main moved in between
                self.redis.set(key, content, ex=CACHE_TTL_S)
        return files

    def store_claims(self, num: int, head: str, claims: Sequence[Claim]) -> None:
        payload = json.dumps([claim.to_json() for claim in claims])
        self.redis.set(keys.pr_claims(self.repo_id, num, head), payload, ex=CACHE_TTL_S)

    def other_claims(
        self, exclude: int, source: BenchmarkSource, policy: Policy
    ) -> list[tuple[int, list[Claim]]]:
        listing = self.reader.open_pull_requests(self.repo_id, limit=MAX_OPEN_PRS)
        self.hub_calls += listing.hub_calls
        others: list[tuple[int, list[Claim]]] = []
        for open_pr in listing.prs:
            if open_pr.num == exclude:
                continue
            cached = (
                self.redis.get(keys.pr_claims(self.repo_id, open_pr.num, open_pr.head_sha))
                if open_pr.head_sha
                else None
            )
            if cached is not None and open_pr.head_sha:
                self.heads[open_pr.num] = open_pr.head_sha
                others.append((open_pr.num, [Claim.from_json(c) for c in json.loads(cached)]))
                continue
            pr = self.reader.pull_request(self.repo_id, open_pr.num)
            self.hub_calls += 1
            if pr.head_sha is None:
                continue
            files = {}
            for path in pr.result_files:
                if is_results(path):
                    files[path] = self.reader.read_file(self.repo_id, path, pr.head_sha)
                    self.hub_calls += 1
            claims = claims_of(validate_results_files(files, source, policy=policy))
            self.store_claims(pr.num, pr.head_sha, claims)
            self.heads[pr.num] = pr.head_sha
            others.append((pr.num, claims))
        return others


@dataclass(slots=True)
class CampaignInputs:
    pr: PullRequest
    head_sha: str
    reports: Sequence[FileReport]
    source: BenchmarkSource
    policy: Policy
    hub_url: str


def campaign_sections(
    inputs: CampaignInputs, config: CampaignConfig, reader: ResultsReader, client: redis.Redis
) -> list[str]:
    """The rendered sections for the PR's comment; [] when nothing is configured for it."""
    pr = inputs.pr
    ids = config.collections_for(pr.repo_id)
    if not ids and not config.cross_pr:
        return []
    view = RepoView(reader, client, pr.repo_id)
    main_files = view.main_files(pr.target_branch or "main")
    main_reports = validate_results_files(
        main_files, inputs.source, policy=inputs.policy, limits=REPO_LIMITS
    )
    sections: list[str] = []
    if ids:
        standing = render_standing(
            [_standing(name, config, inputs, main_reports) for name in ids], pr.repo_id
        )
        if standing:
            sections.append(standing)
    clashes = 0
    if config.cross_pr:
        mine = claims_of(inputs.reports)
        view.store_claims(pr.num, inputs.head_sha, mine)
        others = view.other_claims(pr.num, inputs.source, inputs.policy)
        found = find_clashes(mine, claims_of(main_reports), others)
        clashes = len(found)
        tell_others(client, pr.repo_id, (pr.num, inputs.head_sha), found, view.heads)
        rendered = render_clashes(found, pr.repo_id, inputs.hub_url)
        if rendered:
            sections.append(rendered)
    log_json(
        log,
        logging.INFO,
        "campaign checks",
        repo=pr.repo_id,
        pr=pr.num,
        head=inputs.head_sha,
        collections=len(ids),
        clashes=clashes,
        hub_calls=view.hub_calls,
    )
    return sections


def tell_others(
    client: redis.Redis,
    repo_id: str,
    mine: tuple[int, str],
    found: Sequence[Clash],
    heads: dict[int, str],
) -> None:
    """Queue a run of each other open PR whose claim conflicts with this one's, so both
    comments name the conflict. Once per pair of heads, whichever PR ran first: the pair's
    dedupe key is the same from both sides, so the other PR's run does not queue this one
    back. Best effort: a Redis error leaves the other comment to its next run."""
    num, head = mine
    events: list[tuple[PrEvent, DedupeKey]] = []
    for other in sorted({clash.pr for clash in found if clash.pr is not None and not clash.agree}):
        other_head = heads.get(other)
        if other_head is None:
            continue
        pair = sorted([(num, head), (other, other_head)])
        key = f"clash:{repo_id}:" + ":".join(f"{n}@{h}" for n, h in pair)
        event = PrEvent(
            kind="updated",
            repo_id=repo_id,
            pr_num=other,
            delivery_id=f"{key}:for:{other}",
            received_at=datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            head_sha=other_head,
        )
        events.append((event, DedupeKey(key, CACHE_TTL_S)))
    try:
        publish(client, events)
    except redis.RedisError:
        return


def _standing(
    name: str, config: CampaignConfig, inputs: CampaignInputs, main_reports: list[FileReport]
) -> Standing:
    scope, content = config.files[name]
    collection, diagnostics = check_collection(name, content, inputs.source, scope=scope)
    if collection is None:
        errors = [d for d in diagnostics if d.is_error]
        first: Any = errors[0] if errors else None
        problem = f"{len(errors)} error(s) in the collection" + (
            f", first: {first.code} {first.message}" if first is not None else ""
        )
        return Standing(name, problem=problem)
    main = ResultsLayer(main_reports)
    merged = ResultsLayer(
        list(inputs.reports),
        pr=inputs.pr.num,
        removed=frozenset(inputs.pr.removed_result_files),
    )
    before = evaluate_view(collection, [main])
    after = evaluate_view(collection, [main, merged])
    return Standing(name, before=before, after=after)
