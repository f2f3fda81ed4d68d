"""What a datastore PR's run leaves for the rest of the bot: its verdict in the pages' history
(under `datasets/<owner>/<name>`: a dataset and a model may share an id), the head it reflects
for reconciliation, and the follow-up run a partial comparison asks for."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.eee.submission import SubmissionReport
from bot.hub.datastore import MainCommit
from bot.hub.pulls import PullRequest
from bot.queue.events import DedupeKey, PrEvent
from bot.queue.publishing import publish
from bot.report.counts import Counts
from bot.store import keys
from bot.store.history import add_verdict
from bot.store.verdicts import verdict_of
from workers.reconcile_plan import DATASETS
from workers.runtime import Runtime

#: A follow-up run, after one whose budget left open PRs uncompared, starts this long after.
FOLLOW_UP_S = 60
#: Follow-up runs of one head at most (a comparison that cannot progress, say another PR's
#: file the Hub keeps failing, stops asking; a maintainer's recheck runs it again).
MAX_FOLLOW_UPS = 30


def history_repo(repo_id: str) -> str:
    """The name a datastore's PRs are shown under: its path on the Hub, `datasets/<repo>`,
    with the Hub's spelling of the id."""
    return f"{DATASETS}{repo_id}"


def verdict_repo(repo_id: str) -> str:
    """The repo part of the keys reconciliation compares heads with (`keys.verdict`,
    `keys.checked`): lower-cased, as reconciliation knows a datastore by its config's id."""
    return f"{DATASETS}{repo_id.lower()}"


def record_checked(runtime: Runtime, pr: PullRequest, head: str) -> None:
    """A head with nothing to check and no comment: reconciliation need not queue it again."""
    runtime.redis.set(keys.checked(verdict_repo(pr.repo_id), pr.num), head, ex=keys.VERDICT_TTL_S)


def record_datastore_verdict(
    runtime: Runtime,
    pr: PullRequest,
    head: str,
    result: SubmissionReport,
    *,
    outcome: str,
    main: MainCommit,
) -> None:
    """The head the comment now reflects (reconciliation) and the verdict in the PR's history
    (the web pages: a non-public datastore's is not kept), in one round trip; `main` gives
    the datastore's visibility and the Hub's spelling of its id."""
    errors, warnings = result.counts()
    counts = Counts(
        results=len(result.files),
        invalid=sum(1 for report in result.files if not report.ok),
        errors=errors,
        warnings=warnings,
    )
    verdict = verdict_of(
        head,
        outcome,
        pr.status.value,
        counts,
        runtime.clock(),
        reports=result.files,
        title=pr.title,
        author=pr.author,
        kind="records",
    )
    pipe = runtime.redis.pipeline(transaction=False)
    pipe.set(keys.verdict(verdict_repo(pr.repo_id), pr.num), head, ex=keys.VERDICT_TTL_S)
    add_verdict(pipe, history_repo(main.repo_id), pr.num, verdict, visibility=main.visibility)
    pipe.execute()


def follow_up_allowed(runtime: Runtime, repo_id: str, num: int, head: str) -> bool:
    """Whether this head may have one more follow-up run (`MAX_FOLLOW_UPS`); counts it."""
    key = keys.eee_follow_ups(repo_id, num, head)
    pipe = runtime.redis.pipeline(transaction=True)
    pipe.incr(key)
    pipe.expire(key, keys.VERDICT_TTL_S)
    count = int(pipe.execute()[0])
    return count <= MAX_FOLLOW_UPS


def queue_follow_up(runtime: Runtime, repo_id: str, num: int, head: str) -> bool:
    """Queue a run of this head `FOLLOW_UP_S` from now, through the ledger (never lost), at
    most one per head in that time: it carries on comparing where this run's budget stopped."""
    delivery = f"eee-compare:{repo_id}:{num}:{head}"
    event = PrEvent(
        kind="updated",
        repo_id=repo_id,
        pr_num=num,
        delivery_id=delivery,
        received_at=datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        head_sha=head,
        repo_type="dataset",
    )
    queued = publish(
        runtime.redis, [(event, DedupeKey(delivery, FOLLOW_UP_S // 2))], after_s=FOLLOW_UP_S
    )
    return all(queued)
