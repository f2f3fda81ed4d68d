"""What a model PR's run leaves for the rest of the bot: the head its comment reflects (or that
needed none) for reconciliation, and the verdict in the pages' history with the repo's
visibility."""

from __future__ import annotations

from bot.hub.errors import HubError
from bot.hub.pulls import PullRequest
from bot.store import keys
from bot.store.history import add_verdict, recent_visibility
from bot.store.verdicts import Verdict
from workers.runtime import Runtime


def record_verdict(
    pr: PullRequest,
    head_sha: str,
    runtime: Runtime,
    verdict: Verdict,
    private_hint: bool | None,
) -> None:
    """Remember which head the PR's comment reflects (reconciliation looks for gaps), and the
    verdict in the PR's history (the web pages), in one round trip; the repo's visibility
    (`repo_visibility`) decides whether the pages may show it."""
    visibility, read = repo_visibility(runtime, pr.repo_id, private_hint)
    pipe = runtime.redis.pipeline(transaction=False)
    pipe.set(keys.verdict(pr.repo_id, pr.num), head_sha, ex=keys.VERDICT_TTL_S)
    pipe.sadd(keys.VERDICT_REPOS, pr.repo_id)
    add_verdict(pipe, pr.repo_id, pr.num, verdict, visibility=visibility, read_from_hub=read)
    pipe.execute()


def repo_visibility(runtime: Runtime, repo_id: str, private_hint: bool | None) -> tuple[str, bool]:
    """The model repo's visibility for the pages, and whether the Hub was asked for it.

    A webhook names `repo.private`: private is taken at its word, with no call. Whether a
    public repo is gated is in no payload, so the visibility read from the Hub (`repos.info`)
    stands for `VISIBILITY_FRESH_S` (`recent_visibility`; this process remembers it as long,
    `Runtime.visibilities`, so a run makes no round trip for it), unless the webhook
    contradicts it (a repo recorded private whose webhook says it is not is read again). A
    Hub that does not answer hides the history (fail closed): the comment is posted, the run
    is kept."""
    if private_hint is True:
        return "private", False
    known = runtime.visibilities.get(repo_id)  # this process's, to save a round trip
    if known is None:
        known = recent_visibility(runtime.redis, repo_id)
        if known is not None:
            runtime.visibilities.put(repo_id, known)
    if known is not None and not (known == "private" and private_hint is False):
        return known, False
    try:
        visibility = runtime.hub.repo_visibility(repo_id)
    except HubError:
        return "unknown", False
    runtime.visibilities.put(repo_id, visibility)
    return visibility, True


def record_checked(pr: PullRequest, head_sha: str, runtime: Runtime) -> None:
    """Remember a head that needed no report (no result files), so reconciliation does not
    queue the PR again every interval."""
    runtime.redis.set(keys.checked(pr.repo_id, pr.num), head_sha, ex=keys.VERDICT_TTL_S)
