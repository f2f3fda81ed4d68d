"""The pipeline's decisions, with a small recording fake of the Hub seam and a real Redis.

The end-to-end tests show the whole path; these pin each decision down on its own: post once,
never rewrite an unchanged report, never go back to an older head, answer `help` once, hear
only maintainers, one run per PR, and judge a token at the time it was first seen.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

import pytest
import redis

from bot.hub.client import DatasetRevision, OpenPullRequests, RepoCommit, Visibility
from bot.hub.errors import HubError, HubFileTooLarge, HubFileUnreadable, HubPermanentError
from bot.hub.pulls import PrComment, PrCommit, PrStatus, PullRequest
from bot.hub.sources import BenchmarkCache
from bot.queue.events import PrEvent
from bot.report.comment_texts import REPORT_MARKER
from bot.report.help_reply import render_help
from bot.store import keys
from bot.tokens.binding import MemoryJtiBinder
from bot.tokens.issuers import IssuerRegistry
from bot.validation.model import Dialect, EntryReport, FileReport, ResultEntry
from bot.validation.policy import DEFAULT_POLICY
from evalbot_dev.devstack.redis import RedisServer
from workers.outcomes import Outcome
from workers.pipeline import run_event
from workers.pr_lease import LeaseBusy
from workers.runtime import Runtime
from workers.token_times import TokenTimes

pytestmark = pytest.mark.integration  # a real redis-server holds leases and memos

REPO = "alice/model"
BOT = "evalbot"
HEAD = "a" * 40
OLDER = "b" * 40
EVAL_YAML = b"name: GPQA\ndescription: d\ntasks:\n  - id: diamond\n"
RESULTS = b"- dataset:\n    id: org/gpqa\n    task_id: diamond\n  value: 41.5\n"
OPENED_AT = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
RESULTS_PATH = ".eval_results/gpqa.yaml"


@dataclass
class FakeHub:
    """Records every call; answers from `pr` and a one-benchmark store."""

    pr: PullRequest
    calls: list[str] = field(default_factory=list)
    posted: list[str] = field(default_factory=list)
    edited: list[tuple[str, str]] = field(default_factory=list)
    unreadable: dict[str, HubError] = field(default_factory=dict)  # path -> what read_file raises

    def pull_request(self, repo_id: str, num: int) -> PullRequest:
        self.calls.append("pull_request")
        return self.pr

    def read_file(
        self,
        repo_id: str,
        path: str,
        revision: str,
        *,
        repo_type: str = "model",
        max_bytes: int = 1 << 20,
    ) -> bytes:
        self.calls.append(f"read_file:{repo_type}:{path}@{revision}")
        if repo_type == "dataset":
            return EVAL_YAML
        if path in self.unreadable:
            raise self.unreadable[path]
        if path.startswith(".eval_results/"):
            return RESULTS
        raise HubPermanentError("no such file", status=404)

    def dataset_revision(self, dataset_id: str, revision: str | None) -> DatasetRevision:
        self.calls.append("dataset_revision")
        return DatasetRevision("org/gpqa", "c" * 40)

    def list_commits(self, repo_id: str, revision: str) -> list[RepoCommit]:
        self.calls.append("list_commits")
        return []

    def open_pull_requests(self, repo_id: str, *, limit: int) -> OpenPullRequests:
        self.calls.append("open_pull_requests")
        return OpenPullRequests(prs=(), hub_calls=1)

    def post_comment(self, repo_id: str, num: int, body: str) -> str:
        self.calls.append("post_comment")
        self.posted.append(body)
        return f"c{len(self.posted)}"

    def edit_comment(self, repo_id: str, num: int, comment_id: str, body: str) -> None:
        self.calls.append("edit_comment")
        self.edited.append((comment_id, body))

    def repo_visibility(self, repo_id: str) -> Visibility:
        self.calls.append("repo_visibility")
        return "public"


def pull_request(**changes: object) -> PullRequest:
    base = PullRequest(
        repo_id=REPO,
        num=7,
        is_pull_request=True,
        status=PrStatus.OPEN,
        head_sha=HEAD,
        commits=(PrCommit(OLDER, OPENED_AT), PrCommit(HEAD, OPENED_AT + timedelta(minutes=5))),
        result_files=(".eval_results/gpqa.yaml",),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def event(kind: str = "opened", **changes: object) -> PrEvent:
    base = PrEvent(
        kind=kind,  # type: ignore[arg-type]
        repo_id=REPO,
        pr_num=7,
        delivery_id="d-1",
        received_at="2026-11-01T12:05:00Z",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.fixture
def client(redis_server: RedisServer) -> Iterator[redis.Redis]:
    connection = redis_server.client()
    yield connection
    connection.close()


def runtime_for(hub: FakeHub, client: redis.Redis) -> Runtime:
    return Runtime(
        bot_name=BOT,
        hub_url="https://huggingface.co",
        hub=hub,
        redis=client,
        registry=IssuerRegistry([]),
        binder=MemoryJtiBinder(),
        benchmark_cache=BenchmarkCache(),
        policy=DEFAULT_POLICY,
        maintainers=frozenset({"carol"}),
        lease_ttl_s=30,
        clock=lambda: OPENED_AT + timedelta(hours=1),
    )


def report_comment(body: str, comment_id: str = "c1", author: str = BOT) -> PrComment:
    return PrComment(id=comment_id, author=author, raw=body)


def test_first_run_posts_and_an_identical_rerun_writes_nothing(client: redis.Redis) -> None:
    hub = FakeHub(pull_request())
    assert run_event(event(), runtime_for(hub, client)) is Outcome.POSTED
    (body,) = hub.posted
    assert REPORT_MARKER in body
    assert f"evalbot:head={HEAD}" in body
    assert client.get(f"evalbot:verdict:{REPO}:7") == HEAD.encode()

    hub.pr = pull_request(comments=(report_comment(body),))
    assert run_event(event(), runtime_for(hub, client)) is Outcome.UNCHANGED
    assert hub.posted == [body]
    assert hub.edited == []


def test_the_payloads_head_sha_is_only_a_hint(client: redis.Redis) -> None:
    """docs/security.md#adversarial-inputs item 5: a delivery naming another head (forged, or from
    an older push) changes nothing: the PR is read from the Hub and reported at the Hub's head."""
    hub = FakeHub(pull_request())
    lying = event("updated", head_sha="f" * 40)
    assert run_event(lying, runtime_for(hub, client)) is Outcome.POSTED
    (body,) = hub.posted
    assert f"evalbot:head={HEAD}" in body
    assert "f" * 40 not in body
    assert f"read_file:model:.eval_results/gpqa.yaml@{HEAD}" in hub.calls


def test_a_changed_verdict_edits_the_same_comment(client: redis.Redis) -> None:
    stale_body = f"{REPORT_MARKER}\n<!-- evalbot:head={OLDER} -->\nold"
    hub = FakeHub(pull_request(comments=(report_comment(stale_body, "c9"),)))
    assert run_event(event("updated"), runtime_for(hub, client)) is Outcome.EDITED
    assert [comment_id for comment_id, _ in hub.edited] == ["c9"]
    assert hub.posted == []


def test_a_report_for_a_newer_head_is_never_replaced(client: redis.Redis) -> None:
    newer = f"{REPORT_MARKER}\n<!-- evalbot:head={HEAD} -->\nnewer"
    hub = FakeHub(pull_request(head_sha=OLDER, comments=(report_comment(newer),)))
    assert run_event(event("updated"), runtime_for(hub, client)) is Outcome.STALE
    assert hub.posted == []
    assert hub.edited == []
    assert not any(call.startswith("read_file") for call in hub.calls)  # decided before reading


def test_someone_pasting_the_marker_does_not_capture_the_report(client: redis.Redis) -> None:
    forged = report_comment(f"{REPORT_MARKER}\n<!-- evalbot:head={HEAD} -->", "x1", "mallory")
    hub = FakeHub(pull_request(comments=(forged,)))
    assert run_event(event(), runtime_for(hub, client)) is Outcome.POSTED


def test_a_file_the_hub_will_not_serve_is_an_error_of_that_file_only(
    client: redis.Redis,
) -> None:
    """A redirect loop (or a `file:` target) and an LFS file declared over the cap: each is
    reported on its file, the other file is still checked, and nothing is retried."""
    loop, huge, good = ".eval_results/a_loop.yaml", ".eval_results/b_huge.yaml", RESULTS_PATH
    hub = FakeHub(pull_request(result_files=(loop, huge, good)))
    hub.unreadable[loop] = HubFileUnreadable("the Hub redirected more than 5 times")
    hub.unreadable[huge] = HubFileTooLarge("too large", size=52_428_800, limit=1_048_576)
    assert run_event(event(), runtime_for(hub, client)) is Outcome.POSTED
    (body,) = hub.posted
    assert "FILE-UNREADABLE" in body
    assert "redirected more than 5 times" in body
    assert "YAML-TOO-LARGE" in body
    assert "52428800" in body
    assert "👥 community" in body  # the readable file was validated as usual
    # Files in path order, as always (names are escaped for markdown).
    assert body.index("a\\_loop") < body.index("b\\_huge") < body.index("gpqa")


def test_a_pr_without_result_files_gets_nothing(client: redis.Redis) -> None:
    hub = FakeHub(pull_request(result_files=()))
    assert run_event(event(), runtime_for(hub, client)) is Outcome.NO_RESULTS
    assert hub.calls == ["pull_request"]


def test_a_discussion_is_not_a_pr(client: redis.Redis) -> None:
    hub = FakeHub(pull_request(is_pull_request=False))
    assert run_event(event(), runtime_for(hub, client)) is Outcome.NOT_A_PR


@pytest.mark.parametrize(
    ("author", "org_member", "expected"),
    [
        ("bob", False, Outcome.COMMAND_IGNORED),  # a stranger
        (BOT, False, Outcome.COMMAND_IGNORED),  # the bot itself
        ("alice", False, Outcome.POSTED),  # the namespace owner
        ("dave", True, Outcome.POSTED),  # a member of the owning org
        ("carol", False, Outcome.POSTED),  # on the allow-list
    ],
)
def test_recheck_is_heard_from_maintainers_only(
    client: redis.Redis, author: str, org_member: bool, expected: Outcome
) -> None:
    command = PrComment(id="k1", author=author, raw=f"@{BOT} recheck", is_org_member=org_member)
    hub = FakeHub(pull_request(comments=(command,)))
    recheck = event("command", command="recheck", comment_id="k1")
    assert run_event(recheck, runtime_for(hub, client)) is expected


def test_help_is_answered_once(client: redis.Redis) -> None:
    ask = PrComment(id="k2", author="alice", raw=f"@{BOT} help")
    hub = FakeHub(pull_request(comments=(ask,)))
    help_event = event("command", command="help", comment_id="k2")
    assert run_event(help_event, runtime_for(hub, client)) is Outcome.HELP_SENT
    (reply,) = hub.posted
    assert reply == render_help(BOT, reply_to="k2")

    # The task runs again (a retry after the Hub accepted the reply): the reply is found.
    hub.pr = pull_request(comments=(ask, PrComment(id="r1", author=BOT, raw=reply)))
    assert run_event(help_event, runtime_for(hub, client)) is Outcome.HELP_ALREADY_SENT
    assert len(hub.posted) == 1


def test_a_pr_held_by_another_run_is_busy(client: redis.Redis) -> None:
    client.set(keys.lease(REPO, 7), "someone-else", px=30_000)
    hub = FakeHub(pull_request())
    with pytest.raises(LeaseBusy):
        run_event(event(), runtime_for(hub, client))
    assert hub.calls == []


def test_a_token_is_judged_at_the_time_it_was_first_seen(client: redis.Redis) -> None:
    """The first sighting records the commit time; later runs reuse it, whatever the head."""
    entry = ResultEntry(index=0, line=1, data={}, dialect=Dialect.LIVE, token="t.o.k")
    reports = (FileReport(".eval_results/gpqa.yaml", "results"), EntryReport(entry))
    hub = FakeHub(pull_request(commits=(PrCommit(HEAD, OPENED_AT),)))
    first = TokenTimes(hub.pr, runtime_for(hub, client)).reference_time(*reports)
    assert first == OPENED_AT  # a single-commit PR: its commit introduced the token

    later = pull_request(commits=(PrCommit(HEAD, OPENED_AT + timedelta(days=7)),))
    again = TokenTimes(later, runtime_for(FakeHub(later), client)).reference_time(*reports)
    assert again == OPENED_AT
