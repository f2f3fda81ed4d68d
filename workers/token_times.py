"""The reference time of each token: the Hub time of the commit that introduced it, kept in Redis
so every run judges a token's freshness at the same moment (docs/decisions.md#tokens)."""

from __future__ import annotations

import hashlib
from datetime import datetime

from bot.hub.pulls import PullRequest
from bot.hub.sources import token_commit_time
from bot.store import keys
from bot.validation.model import EntryReport, FileReport
from workers.pr_lease import as_text
from workers.runtime import Runtime


class TokenTimes:
    """The reference time of each token: the Hub time of the commit that introduced it.

    Looked up once per (model repo, token) and kept in Redis, so re-runs (rechecks, retries, a
    later push) judge freshness at the same moment and cost no Hub calls. When the token's
    commit cannot be found, the PR head's Hub time stands in; failing that, the worker's clock.
    """

    def __init__(self, pr: PullRequest, runtime: Runtime) -> None:
        self._pr = pr
        self._runtime = runtime

    def reference_time(self, file_report: FileReport, entry_report: EntryReport) -> datetime:
        token = entry_report.entry.token
        if token is None:  # not called for entries without a token; a safe answer anyway
            return self._runtime.clock()
        digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
        key = keys.token_time(self._pr.repo_id, digest)
        known = self._runtime.redis.get(key)
        if known is not None:
            return datetime.fromisoformat(as_text(known))
        found = token_commit_time(self._runtime.hub, self._pr, file_report.path, token)
        moment = found or self._head_time() or self._runtime.clock()
        # The first writer wins, so concurrent first sightings agree on one moment (one round
        # trip: a pipeline's commands run in order, so the GET sees the winner's value).
        first = self._runtime.redis.pipeline(transaction=False)
        first.set(key, moment.isoformat(), nx=True, ex=keys.VERDICT_TTL_S)
        first.get(key)
        stored = first.execute()[1]
        return datetime.fromisoformat(as_text(stored)) if stored is not None else moment

    def _head_time(self) -> datetime | None:
        return self._pr.commits[-1].created_at if self._pr.commits else None
