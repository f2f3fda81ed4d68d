"""A PR on an Every Eval Ever datastore: its files checked as a submission (`bot.eee`) against
main and the other open PRs, in one living comment (docs/eee.md; calls: docs/hub.md, "Every Eval
Ever datastore PRs")."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from bot.eee.comment import render_submission
from bot.eee.records import MAX_RECORD_BYTES
from bot.eee.submission import (
    Change,
    Claims,
    DatastorePolicy,
    SubmissionReport,
    Unreadable,
    check_submission,
)
from bot.hub.budget import HubCalls, current
from bot.hub.datastore import HubDatastore, git_blob_id, tree_changes
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.pulls import Change as DiffChange
from bot.hub.pulls import DiffFile, PrStatus, PullRequest
from bot.hub.repo_results import DatasetPrClient
from bot.logs import log_json
from bot.queue.events import PrEvent
from bot.report.comment import CommentContext, head_of_comment
from bot.report.comment_texts import REPORT_MARKER
from workers.commands import HeardCommand, answer_help
from workers.datastore_history import (
    follow_up_allowed,
    queue_follow_up,
    record_checked,
    record_datastore_verdict,
)
from workers.datastore_index import (
    COMPARE_BUDGET,
    BlobHashes,
    Held,
    MainIndex,
    PrRecords,
    author_of,
    compare_open_prs,
    forget_pr,
    hash_index,
    head_time,
    is_record_path,
    main_index,
    remember_pr,
    stored_pr,
)
from workers.outcomes import Outcome
from workers.pr_lease import Lease
from workers.runtime import Runtime

log = logging.getLogger("evalbot.worker")


def datastore_policy(runtime: Runtime, repo_id: str) -> DatastorePolicy | None:
    """The repo's datastore settings; None: not a datastore (a benchmark, or anything else)."""
    return runtime.datastores.get(repo_id.lower())


def run_datastore_event(
    event: PrEvent,
    pr: PullRequest,
    command: HeardCommand | None,
    runtime: Runtime,
    lease: Lease,
    *,
    policy: DatastorePolicy,
    hub: HubDatastore,
    client: DatasetPrClient,
) -> Outcome:
    """One event on a datastore PR (read, at a head). Its Hub calls (the run's count,
    `bot.hub.budget`) are logged with the comparison's extent."""
    calls = current()
    run = _DatastoreRun(
        pr, command, runtime, lease=lease, policy=policy, hub=hub, client=client, calls=calls
    )
    outcome = run.outcome()
    log_json(
        log,
        logging.INFO,
        "datastore run",
        delivery=event.delivery_id,
        repo=event.repo_id,
        pr=event.pr_num,
        outcome=outcome,
        hub_calls=calls.made,
        compared=run.compared,
        not_compared=run.not_compared,
    )
    return outcome


class _DatastoreRun:
    """The steps of one run, in order (`outcome`); the comparison's extent is kept for the log."""

    def __init__(
        self,
        pr: PullRequest,
        command: HeardCommand | None,
        runtime: Runtime,
        *,
        lease: Lease,
        policy: DatastorePolicy,
        hub: HubDatastore,
        client: DatasetPrClient,
        calls: HubCalls,
    ) -> None:
        self.pr = pr
        self.command = command
        self.runtime = runtime
        self.lease = lease
        self.policy = policy
        self.hub = hub
        self.client = client
        self.calls = calls
        self.compared = 0
        self.not_compared: list[int] = []

    def outcome(self) -> Outcome:
        pr, runtime, hub, client = self.pr, self.runtime, self.hub, self.client
        assert pr.head_sha is not None
        if self.command is not None:
            heard = self._command(self.command)
            if heard is not None:
                return heard
        existing = pr.find_bot_comment(runtime.bot_name, REPORT_MARKER)
        if existing is not None and not pr.may_replace(head_of_comment(existing.raw), pr.head_sha):
            return Outcome.STALE
        head = pr.head_sha
        diff = list(pr.diff_files) if pr.has_diff else _tree_diff(hub, pr)
        changes = datastore_changes(diff)
        if not changes and existing is None:
            record_checked(runtime, pr, head)
            return Outcome.NO_RESULTS
        main_commit = hub.main(pr.repo_id)
        main = main_index(runtime.redis, hub, pr.repo_id, main_commit.sha)
        removed = {c.path for c in changes if c.kind == "removed"}
        now = runtime.clock()
        others = compare_open_prs(
            runtime.redis,
            hub,
            pr.repo_id,
            pr.num,
            details=lambda num: client.dataset_pull_request(pr.repo_id, num),
            changed=lambda other: (c.path for c in datastore_changes(other.diff_files)),
            calls=self.calls,
            limit=COMPARE_BUDGET,
            now=now,
        )
        self.compared, self.not_compared = len(others.prs), others.not_compared
        live = pr.status in (PrStatus.OPEN, PrStatus.DRAFT)
        follow_up = bool(others.not_compared) and live
        if follow_up:
            follow_up = follow_up_allowed(runtime, pr.repo_id, pr.num, head)
        previous = stored_pr(runtime.redis, pr.repo_id, pr.num)
        claims = Claims(
            pr.num,
            author_of(pr),
            head_time(pr, now),
            previous.since_of() if previous is not None else {},
        )
        files = HubDatastoreFiles(hub, pr.repo_id, head, changes, main)
        index = hash_index(main, removed, others)
        result = check_submission(changes, files, index, self.policy, pr=pr.num, claims=claims)
        body = render_submission(
            result,
            self.policy,
            CommentContext(
                repo_id=main_commit.repo_id,  # the Hub's spelling, whoever queued the run
                pr_num=pr.num,
                head_sha=head,
                bot_name=runtime.bot_name,
                pr_state=pr.status.value,
                hub_url=runtime.hub_url,
                repo_type="dataset",
                pages_url=runtime.public_url,
            ),
            not_compared=others.not_compared,
            beyond=others.beyond,
            follow_up=follow_up,
        )
        if live:
            _remember_own(runtime, pr, head, result, files=files, claims=claims)
        else:
            forget_pr(runtime.redis, pr.repo_id, pr.num)
        if existing is not None and existing.raw == body:
            outcome = Outcome.UNCHANGED
        else:
            self.lease.still_held()
            if existing is not None:
                client.edit_comment(pr.repo_id, pr.num, existing.id, body, repo_type="dataset")
                outcome = Outcome.EDITED
            else:
                client.post_comment(pr.repo_id, pr.num, body, repo_type="dataset")
                outcome = Outcome.POSTED
        if follow_up:
            queue_follow_up(runtime, pr.repo_id, pr.num, head)
        record_datastore_verdict(runtime, pr, head, result, outcome=outcome, main=main_commit)
        return outcome

    def _command(self, command: HeardCommand) -> Outcome | None:
        """A maintainer's `recheck` runs the check (None); `help` is answered; the rest is
        ignored."""
        if command.comment is None:
            return Outcome.COMMAND_IGNORED
        if command.word == "recheck":
            return None
        pr, client = self.pr, self.client
        return answer_help(
            pr,
            command.comment,
            self.runtime.bot_name,
            self.lease,
            lambda body: client.post_comment(pr.repo_id, pr.num, body, repo_type="dataset"),
        )


def _remember_own(
    runtime: Runtime,
    pr: PullRequest,
    head: str,
    result: SubmissionReport,
    *,
    files: HubDatastoreFiles,
    claims: Claims,
) -> None:
    """Keep this PR's records at datastore paths for the other PRs' runs (with when this PR
    first held each and its author), and each content's hash by its ids, so no run reads it
    again (`workers.datastore_index`)."""
    records = PrRecords(head, claims.author)
    learned: dict[str, str] = {}
    for path, digest in result.hashes.items():
        content = result.contents.get(path)
        if content is None or not is_record_path(path):
            continue
        records.held[path] = Held(digest, content, claims.since.get(digest, claims.at))
        value = f"{digest} {content}"
        learned[content] = value  # an LFS file's id is its content's sha256
        blob = files.blob_ids.get(path)
        if blob is not None:
            learned[blob] = value
    remember_pr(runtime.redis, pr.repo_id, pr.num, records)
    BlobHashes(runtime.redis, pr.repo_id).store(learned)


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
        #: The git blob id of each file read whole at the head (the Hub's id for it).
        self.blob_ids: dict[str, str] = {}

    def _revision(self, path: str) -> str:
        return self._head if path in self._at_head else self._main.sha

    def exists(self, path: str) -> bool:
        if path in self._at_head:
            return True
        return path in self._main.hashes and path not in self._removed

    def read(self, path: str) -> bytes:
        with _as_unreadable(path):
            content = self._hub.read(self._repo_id, path, self._revision(path))
        if path in self._at_head and len(content) <= MAX_RECORD_BYTES:
            self.blob_ids[path] = git_blob_id(content)
        return content

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
