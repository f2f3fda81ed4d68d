"""The PR history the web pages show: each verdict the workers reached, kept small in Redis.

After each report run the pipeline queues `add_verdict` on the pipeline that records the PR's
last verdict (no round trip of its own):

- `evalbot:history:pr:<repo>:<num>`: a list, newest first, of the PR's last
  `MAX_VERDICTS_PER_PR` verdicts (JSON: head, time, outcome, PR state, counts);
- `evalbot:history:repo:<repo>`: a sorted set of the repo's PR numbers by last verdict time,
  the newest `MAX_PRS_PER_REPO` kept;
- `evalbot:history:repos`: a sorted set of repos by last verdict time, the newest
  `MAX_REPOS` kept (the history page lists them);
- `evalbot:history:visibility:<repo>`: the repo's visibility on the Hub when the last verdict
  was written (`public`, `private`, `gated`, or `unknown` when the Hub did not say). Pages
  show a repo's history only while it reads `public`: a private or gated repo's verdicts are
  not written at all, its PR list is dropped and it leaves the repos list; an `unknown` one is
  hidden and keeps what it had (its next public verdict shows it again); a repo with no
  record (written before visibility was kept) is hidden until its next verdict. A repo the Hub
  no longer shows the bot (private or deleted since, or gated and refused to it) gets no
  verdict to say so: reconciliation, which lists each known repo's PRs, hides it when the Hub
  refuses (`hide_repo`).

Each key expires `RETENTION_S` after its last write (the same 90 days the bot remembers a
PR's last verdict), so the history costs at most about
`MAX_REPOS x MAX_PRS_PER_REPO x MAX_VERDICTS_PER_PR` records of ~200 bytes, and a PR untouched
for 90 days leaves no trace (docs/web.md, "PR history"). Only what the public PR comment
already shows is stored: no file content, no token.

The reader (`read_repo_history`) lives here too, so writer and reader agree on one format.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

import redis

from bot.contract import keys
from bot.report.comment import Counts

HISTORY_PREFIX = keys.HISTORY_PREFIX
HISTORY_REPOS = f"{HISTORY_PREFIX}:repos"
MAX_VERDICTS_PER_PR = 20
MAX_PRS_PER_REPO = 200
MAX_REPOS = 1000
RETENTION_S = 90 * 24 * 3600


def pr_history_key(repo_id: str, pr_num: int) -> str:
    return f"{HISTORY_PREFIX}:pr:{repo_id}:{pr_num}"


def repo_history_key(repo_id: str) -> str:
    return f"{HISTORY_PREFIX}:repo:{repo_id}"


def visibility_key(repo_id: str) -> str:
    return f"{HISTORY_PREFIX}:visibility:{repo_id}"


def public_repos(client: redis.Redis, repo_ids: Sequence[str]) -> list[str]:
    """Those of `repo_ids` whose history may be shown: recorded as public on the Hub."""
    if not repo_ids:
        return []
    marks = client.mget([visibility_key(repo_id) for repo_id in repo_ids])
    return [repo_id for repo_id, mark in zip(repo_ids, marks, strict=True) if mark == b"public"]


def hide_repo(client: redis.Redis, repo_id: str) -> None:
    """Take `repo_id` out of the pages: the Hub no longer shows it to the bot (private, gated
    or deleted since its last verdict), so it gets no verdict that would record that."""
    pipe = client.pipeline(transaction=False)
    pipe.set(visibility_key(repo_id), "private", ex=RETENTION_S)
    pipe.delete(repo_history_key(repo_id))
    pipe.zrem(HISTORY_REPOS, repo_id)
    pipe.execute()


@dataclass(frozen=True, slots=True)
class Verdict:
    """One report run on one PR head, as the history page lists it."""

    head: str
    at: str  # ISO-8601 UTC, when the worker finished the run
    outcome: str  # posted, edited, unchanged (workers.pipeline.Outcome)
    state: str  # open, draft, merged, closed
    results: int
    verified: int
    community: int
    invalid: int
    errors: int
    warnings: int

    @property
    def ok(self) -> bool:
        return self.errors == 0


@dataclass(frozen=True, slots=True)
class PrHistory:
    num: int
    verdicts: tuple[Verdict, ...]  # newest first


def record_verdict(
    client: redis.Redis,
    repo_id: str,
    pr_num: int,
    verdict: Verdict,
    *,
    visibility: str,
    now: datetime | None = None,
) -> None:
    """Append `verdict` to the PR's history and bump the PR and the repo; trim and expire."""
    pipe = client.pipeline(transaction=False)
    add_verdict(pipe, repo_id, pr_num, verdict, visibility=visibility, now=now)
    pipe.execute()


def add_verdict(
    pipe: redis.client.Pipeline,
    repo_id: str,
    pr_num: int,
    verdict: Verdict,
    *,
    visibility: str,
    now: datetime | None = None,
) -> None:
    """`record_verdict`'s commands, queued on `pipe`: the pipeline sends them in the round
    trip that records the run's other keys (every round trip of a run is budgeted).
    `visibility` is the repo's on the Hub: anything but `public` stores no verdict and takes
    the repo out of the pages."""
    moment = (now or datetime.now(UTC)).timestamp()
    pr_key, repo_key = pr_history_key(repo_id, pr_num), repo_history_key(repo_id)
    pipe.set(visibility_key(repo_id), visibility, ex=RETENTION_S)
    if visibility != "public":
        if visibility != "unknown":  # a Hub that did not answer hides, and deletes nothing
            pipe.delete(repo_key, pr_key)
            pipe.zrem(HISTORY_REPOS, repo_id)
        return
    pipe.lpush(pr_key, json.dumps(asdict(verdict), separators=(",", ":")))
    pipe.ltrim(pr_key, 0, MAX_VERDICTS_PER_PR - 1)
    pipe.expire(pr_key, RETENTION_S)
    pipe.zadd(repo_key, {str(pr_num): moment})
    pipe.zremrangebyrank(repo_key, 0, -MAX_PRS_PER_REPO - 1)
    pipe.expire(repo_key, RETENTION_S)
    pipe.zadd(HISTORY_REPOS, {repo_id: moment})
    pipe.zremrangebyrank(HISTORY_REPOS, 0, -MAX_REPOS - 1)
    pipe.expire(HISTORY_REPOS, RETENTION_S)


def verdict_of(head: str, outcome: str, state: str, counts: Counts, at: datetime) -> Verdict:
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
    )


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
        )
    except (ValueError, KeyError, TypeError):
        return None


_COUNT_FIELDS = ("results", "verified", "community", "invalid", "errors", "warnings")


def parse_pr_history(num: int, raws: Sequence[bytes | str]) -> PrHistory:
    verdicts = tuple(v for v in (parse_verdict(raw) for raw in raws) if v is not None)
    return PrHistory(num, verdicts)
