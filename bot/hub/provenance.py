"""When did the Hub first record a token? Freshness is judged at that time
(docs/decisions.md#tokens).

A token is judged at the Hub time of the commit that introduced it, so a re-run a week later
reaches the same verdict. The cheapest correct way to find that commit, in calls:

1. The PR's diff (already fetched with the details) tells whether the token was added by the
   PR at all: it is then on a `+` line of that file.
2. Added by a PR with one commit: that commit's `createdAt` in the PR timeline. 0 calls. This
   is the common case (a framework opens the PR with one commit).
3. Added by a PR with several commits: bisect the PR's commits for the first one whose file
   holds the token. log2(n) file reads.
4. Not added by the PR (it was on the base branch already): bisect the base history
   (`list_commits` from the PR's base, 1 call per 50 commits) the same way, using the commits'
   dates as the Hub lists them.

The timeline's `createdAt` is the time the Hub recorded the push: a `git push` cannot set it,
unlike a git committer date. Step 4 must fall back on the listed commit dates; they are the
Hub's own for commits made through its API (the way frameworks publish).

Bisecting assumes that once introduced, the token stays until the head (true unless a PR
removes it and adds it back; then a later introduction is found, which only makes the check
stricter). Whitespace is ignored when looking for the token, so a YAML folded scalar still
matches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from bot.hub.client import HubClient, PullRequest, RepoCommit
from bot.hub.errors import HubPermanentError


def _squeeze(text: str) -> str:
    return "".join(text.split())


def _first_holding(candidates: Sequence[RepoCommit], holds: Callable[[str], bool]) -> int | None:
    """Index of the oldest candidate that holds the token, given the newest one does."""
    if not candidates or not holds(candidates[-1].oid):
        return None
    low, high = 0, len(candidates) - 1  # candidates[high] holds it
    while low < high:
        middle = (low + high) // 2
        if holds(candidates[middle].oid):
            high = middle
        else:
            low = middle + 1
    return high


def token_commit_time(client: HubClient, pr: PullRequest, path: str, token: str) -> datetime | None:
    """The Hub time of the commit that introduced `token` into `path`; None if none is found."""
    wanted = _squeeze(token)
    if not wanted or not pr.commits:
        return None

    def holds(oid: str) -> bool:
        try:
            content = client.read_file(pr.repo_id, path, oid)
        except HubPermanentError as error:
            if error.not_found:
                return False  # the file did not exist yet at that commit
            raise
        return wanted in _squeeze(content.decode("utf-8", errors="replace"))

    added = pr.added_text(path)
    if added is None or wanted in _squeeze(added):
        pr_commits = [RepoCommit(c.oid, c.created_at) for c in pr.commits]
        if len(pr_commits) == 1:
            return pr_commits[0].created_at
        index = _first_holding(pr_commits, holds)
        return None if index is None else pr_commits[index].created_at

    first = pr.commits[0]
    base = first.parents[0] if first.parents else None
    pr_oids = {c.oid for c in pr.commits}
    history = [
        c for c in client.list_commits(pr.repo_id, base or first.oid) if c.oid not in pr_oids
    ]
    oldest_first = list(reversed(history))
    index = _first_holding(oldest_first, holds)
    return None if index is None else oldest_first[index].created_at
