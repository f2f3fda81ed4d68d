"""A PR on an Every Eval Ever datastore: its files checked as a submission, in one comment.

The datastores are the dataset repos `config/bot.yaml` names (`workers.datastores`); a PR on
one comes here from the pipeline's dataset branch instead of the benchmark check. One run:
the PR's details with its diff (1 call), main's index brought up to date
(`workers.datastore_index`: 1 call for main's commit, and when main moved, its tree plus the
records that changed), the other open PRs' hashes (1 listing, 1 call per PR, and their
records only when their head moved), then each changed file read at the head (a samples file
streamed), the pure check (`bot.eee.submission`) and the comment (`bot.eee.comment`) posted
or edited in place. `recheck` and `help` are heard from the datastore's maintainers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from bot.contract.events import PrEvent
from bot.eee.comment import render_submission
from bot.eee.submission import Change, DatastorePolicy, Unreadable, check_submission
from bot.hub.datastore import HubDatastore, tree_changes
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.pulls import Change as DiffChange
from bot.hub.pulls import DiffFile, PullRequest
from bot.report.comment import CommentContext, head_of_comment, help_reply_marker, render_help
from bot.report.texts import REPORT_MARKER
from bot.spec.model import same_hub_name
from workers.datastore_index import (
    MainIndex,
    forget_pr,
    hash_index,
    main_index,
    open_pr_hashes,
    remember_pr,
)
from workers.fleet import Lease
from workers.runtime import Runtime


def datastore_policy(runtime: Runtime, repo_id: str) -> DatastorePolicy | None:
    """The repo's datastore settings; None: not a datastore (a benchmark, or anything else)."""
    return runtime.datastores.get(repo_id.lower())


def run_datastore_event(
    event: PrEvent, runtime: Runtime, lease: Lease, policy: DatastorePolicy
) -> str:
    """One event on a datastore PR; the outcome's name (`workers.pipeline.Outcome` values)."""
    hub = runtime.datastore_hub
    client = runtime.datasets
    if hub is None or client is None:
        return "no-results"
    pr = client.dataset_pull_request(event.repo_id, event.pr_num)
    if not pr.is_pull_request or pr.head_sha is None:
        return "not-a-pr"
    if event.kind == "command":
        heard = _command(event, pr, runtime, lease)
        if heard is not None:
            return heard
    existing = pr.find_bot_comment(runtime.bot_name, REPORT_MARKER)
    if existing is not None and not pr.may_replace(head_of_comment(existing.raw), pr.head_sha):
        return "stale"
    head = pr.head_sha
    diff = list(pr.diff_files) if pr.has_diff else _tree_diff(hub, pr)
    changes = datastore_changes(diff)
    if not changes and existing is None:
        return "no-results"
    main = main_index(runtime.redis, hub, pr.repo_id)
    removed = {c.path for c in changes if c.kind == "removed"}
    others, unread = open_pr_hashes(
        runtime.redis,
        hub,
        pr.repo_id,
        pr.num,
        details=lambda num: client.dataset_pull_request(pr.repo_id, num),
        changed=lambda other: (c.path for c in datastore_changes(list(other.diff_files))),
    )
    files = HubDatastoreFiles(hub, pr.repo_id, head, changes, main)
    result = check_submission(changes, files, hash_index(main, removed, others), policy, pr=pr.num)
    body = render_submission(
        result,
        policy,
        CommentContext(
            repo_id=pr.repo_id,
            pr_num=pr.num,
            head_sha=head,
            bot_name=runtime.bot_name,
            pr_state=pr.status.value,
            hub_url=runtime.hub_url,
            repo_type="dataset",
        ),
        unread_prs=unread,
    )
    if pr.status.value in ("open", "draft"):
        remember_pr(runtime.redis, pr.repo_id, pr.num, head, result.hashes)
    else:
        forget_pr(runtime.redis, pr.repo_id, pr.num)
    if existing is not None and existing.raw == body:
        return "unchanged"
    lease.still_held()
    if existing is not None:
        client.edit_comment(pr.repo_id, pr.num, existing.id, body, repo_type="dataset")
        return "edited"
    client.post_comment(pr.repo_id, pr.num, body, repo_type="dataset")
    return "posted"


class HubDatastoreFiles:
    """`bot.eee.submission.DatastoreFiles` over the Hub: the PR's changed files at its head,
    the others as main holds them (the merged view)."""

    def __init__(
        self, hub: HubDatastore, repo_id: str, head: str, changes: list[Change], main: MainIndex
    ) -> None:
        self._hub = hub
        self._repo_id = repo_id
        self._head = head
        self._main = main
        self._at_head = {c.path for c in changes if c.kind != "removed"}
        self._removed = {c.path for c in changes if c.kind == "removed"}

    def _revision(self, path: str) -> str:
        return self._head if path in self._at_head else self._main.sha

    def exists(self, path: str) -> bool:
        if path in self._at_head:
            return True
        return path in self._main.hashes and path not in self._removed

    def read(self, path: str) -> bytes:
        with _as_unreadable(path):
            return self._hub.read(self._repo_id, path, self._revision(path))

    def chunks(self, path: str) -> Iterator[bytes]:
        with _as_unreadable(path):
            yield from self._hub.chunks(self._repo_id, path, self._revision(path))

    def read_main(self, path: str) -> bytes | None:
        if path not in self._main.hashes:
            return None
        try:
            return self._hub.read(self._repo_id, path, self._main.sha)
        except HubPermanentError as error:
            if error.not_found:
                return None
            raise Unreadable(str(error)) from error


@contextmanager
def _as_unreadable(path: str) -> Iterator[None]:
    """A file the Hub refuses to serve (a refusal other than "not found": a 403, a path it
    will not resolve, a redirect nobody can follow) is an error of that file, with the Hub's
    reason, and the other files are still checked; a file that vanished means the PR changed
    under the run: retried, to check what is there then."""
    try:
        yield
    except HubPermanentError as error:
        if not error.not_found:
            raise Unreadable(str(error)) from error
        raise HubTransientError(f"{path} vanished during the check: {error}") from error


def datastore_changes(diff: Iterable[DiffFile]) -> list[Change]:
    """The diff as the check reads it: a rename is its old path removed and its new added."""
    found: dict[str, Change] = {}
    for file in diff:
        if file.change is DiffChange.RENAMED:
            if file.old_path:
                found[file.old_path] = Change(file.old_path, "removed")
            if file.new_path:
                found[file.new_path] = Change(file.new_path, "added")
        elif file.change is DiffChange.REMOVED and file.old_path:
            found[file.old_path] = Change(file.old_path, "removed")
        elif file.new_path:
            added = file.change is DiffChange.ADDED
            found[file.new_path] = Change(file.new_path, "added" if added else "modified")
    return [found[path] for path in sorted(found)]


def _tree_diff(hub: HubDatastore, pr: PullRequest) -> list[DiffFile]:
    """The PR's changes when the Hub gave no diff: its base and head trees compared."""
    assert pr.head_sha is not None
    base = pr.commits[0].parents[0] if pr.commits and pr.commits[0].parents else "main"
    return tree_changes(hub.tree(pr.repo_id, base), hub.tree(pr.repo_id, pr.head_sha))


def _command(event: PrEvent, pr: PullRequest, runtime: Runtime, lease: Lease) -> str | None:
    """A maintainer's `recheck` runs the check (None); `help` is answered; the rest ignored."""
    comment = pr.comment(event.comment_id) if event.comment_id else None
    if comment is None or comment.hidden or same_hub_name(comment.author, runtime.bot_name):
        return "command-ignored"
    if not comment.by_maintainer(pr.repo_id, runtime.maintainers):
        return "command-ignored"
    if event.command == "recheck":
        return None
    if event.command != "help" or runtime.datasets is None:
        return "command-ignored"
    marker = help_reply_marker(comment.id)
    if any(same_hub_name(c.author, runtime.bot_name) and marker in c.raw for c in pr.comments):
        return "help-already-sent"
    lease.still_held()
    runtime.datasets.post_comment(
        pr.repo_id,
        pr.num,
        render_help(runtime.bot_name, reply_to=comment.id),
        repo_type="dataset",
    )
    return "help-sent"
