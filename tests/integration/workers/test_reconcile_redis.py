"""`reconcile_once` against a real Redis, with a Hub client that records the calls it gets.

The Hub side is a small recording fake (a fake here, the emulator for the end-to-end test in
`tests/integration/e2e/test_reconcile_e2e.py`); Redis is real, so the lock, the
dedupe keys, the queued Celery messages and the counters are the ones production uses.
"""

from __future__ import annotations

import pytest
import redis
from huggingface_hub import HfApi

from bot.botconfig.sections import ReconcileLimits
from bot.hub.client import (
    DatasetRevision,
    HfHubClient,
    OpenPullRequest,
    OpenPullRequests,
    RepoCommit,
    Visibility,
)
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.pulls import PullRequest
from bot.queue.events import PrEvent
from bot.store import keys
from bot.store.history import HISTORY_REPOS, public_repos, record_verdict, repo_history_key
from bot.store.verdicts import Verdict
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, emulated_hub, hub_env
from tests.support.queued import ledger_in_order
from tests.support.runtime import make_runtime, stats
from workers.hub_pause import HubPause
from workers.pr_lease import as_text
from workers.reconcile import reconcile_once

pytestmark = pytest.mark.integration
__all__ = ["emulated_hub", "hub_env"]  # fixtures

SHA = [f"{n:040x}" for n in range(1, 10)]
VERDICT = Verdict(
    head=SHA[0],
    at="2026-01-01T00:00:00+00:00",
    outcome="posted",
    state="open",
    results=1,
    verified=0,
    community=1,
    invalid=0,
    errors=0,
    warnings=0,
)


class RecordingHub:
    """Open PRs per repo; an exception instead, for repos listed in `fails`."""

    def __init__(self, repos: dict[str, list[OpenPullRequest]]) -> None:
        self.repos = repos
        self.fails: dict[str, Exception] = {}
        self.listed: list[str] = []

    def open_pull_requests(self, repo_id: str, *, limit: int) -> OpenPullRequests:
        self.listed.append(repo_id)
        if repo_id in self.fails:
            raise self.fails[repo_id]
        return OpenPullRequests(tuple(self.repos.get(repo_id, [])[:limit]), 2)

    def pull_request(self, repo_id: str, num: int) -> PullRequest:
        raise AssertionError("reconciliation reads no PR details")

    def repo_visibility(self, repo_id: str) -> Visibility:
        raise AssertionError("reconciliation reads no repo's visibility")

    def read_file(
        self,
        repo_id: str,
        path: str,
        revision: str,
        *,
        repo_type: str = "model",
        max_bytes: int = 0,
    ) -> bytes:
        raise AssertionError("reconciliation reads no files")

    def dataset_revision(self, dataset_id: str, revision: str | None) -> DatasetRevision:
        raise AssertionError("reconciliation reads no datasets")

    def list_commits(self, repo_id: str, revision: str) -> list[RepoCommit]:
        raise AssertionError("reconciliation lists no commits")

    def post_comment(self, repo_id: str, num: int, body: str) -> str:
        raise AssertionError("reconciliation never writes to the Hub")

    def edit_comment(self, repo_id: str, num: int, comment_id: str, body: str) -> None:
        raise AssertionError("reconciliation never writes to the Hub")


def queued_events(client: redis.Redis, queue: str = "evalbot") -> list[PrEvent]:
    """What is accepted and not yet sent: the ledger's events, in the order the sweep sends."""
    return [PrEvent.from_json(raw) for raw in ledger_in_order(client)]


def test_queues_only_prs_whose_head_has_no_verdict(client: redis.Redis) -> None:
    hub = RecordingHub(
        {
            "org/model": [
                OpenPullRequest(1, SHA[1]),
                OpenPullRequest(2, SHA[2]),
                OpenPullRequest(3, SHA[3]),
            ],
            "known/repo": [OpenPullRequest(9, SHA[4])],
        }
    )
    client.set(keys.verdict("org/model", 1), SHA[1])  # caught up
    client.set(keys.verdict("org/model", 2), SHA[0])  # a push was missed
    client.set(keys.checked("org/model", 3), SHA[3])  # no result files at this head
    client.sadd(keys.VERDICT_REPOS, "known/repo")
    runtime = make_runtime(client, hub, watched=("org/model",))

    report = reconcile_once(runtime)

    assert report.result == "completed"
    assert (report.repos, report.hub_calls, report.queued) == (2, 4, 2)
    assert hub.listed == ["org/model", "known/repo"]
    events = queued_events(client)
    assert [(e.repo_id, e.pr_num, e.head_sha, e.kind) for e in events] == [
        ("org/model", 2, SHA[2], "updated"),
        ("known/repo", 9, SHA[4], "updated"),
    ]
    assert events[0].delivery_id == f"reconcile:org/model:2:{SHA[2]}"
    assert stats(client) == {
        "reconcile-run:completed": 1,
        "reconcile-repo:ok": 2,
        "catchup:queued": 2,
    }
    assert client.get(keys.RECONCILE_LOCK) is None  # released


def test_a_second_run_in_the_interval_queues_nothing_again(client: redis.Redis) -> None:
    hub = RecordingHub({"org/model": [OpenPullRequest(1, SHA[1])]})
    runtime = make_runtime(client, hub, watched=("org/model",), interval_s=300)
    assert reconcile_once(runtime).queued == 1
    second = reconcile_once(runtime)
    assert (second.queued, second.duplicates) == (0, 1)
    assert len(queued_events(client)) == 1
    assert 295 <= client.ttl(f"evalbot:dedupe:reconcile:org/model:1:{SHA[1]}") <= 300
    # A new head is a new catch-up, at once.
    hub.repos["org/model"] = [OpenPullRequest(1, SHA[2])]
    assert reconcile_once(runtime).queued == 1
    assert [e.head_sha for e in queued_events(client)] == [SHA[1], SHA[2]]


def test_nothing_missing_queues_nothing(client: redis.Redis) -> None:
    hub = RecordingHub({"org/model": [OpenPullRequest(1, SHA[1]), OpenPullRequest(2, None)]})
    client.set(keys.verdict("org/model", 1), SHA[1])
    report = reconcile_once(make_runtime(client, hub, watched=("org/model",)))
    assert (report.result, report.missing, report.queued) == ("completed", 0, 0)
    assert queued_events(client) == []
    assert "catchup:queued" not in stats(client)


def test_budget_bounds_a_run_and_the_next_run_continues(client: redis.Redis) -> None:
    repos = {f"org/m{i}": [OpenPullRequest(1, SHA[i])] for i in range(5)}
    hub = RecordingHub(repos)
    limits = ReconcileLimits(max_repos=5, max_hub_calls=5)  # 2 repos at 2 calls each
    runtime = make_runtime(client, hub, watched=tuple(repos), limits=limits)

    first = reconcile_once(runtime)
    assert (first.result, first.repos, first.hub_calls) == ("budget-exhausted", 2, 4)
    second = reconcile_once(runtime)
    third = reconcile_once(runtime)
    assert (second.repos, third.repos) == (2, 2)
    assert hub.listed == ["org/m0", "org/m1", "org/m2", "org/m3", "org/m4", "org/m0"]
    assert {e.repo_id for e in queued_events(client)} == set(repos)


def test_max_queued_bounds_the_catch_ups_of_a_run(client: redis.Redis) -> None:
    hub = RecordingHub({"org/model": [OpenPullRequest(n, SHA[n]) for n in range(1, 6)]})
    limits = ReconcileLimits(max_queued=3)
    report = reconcile_once(make_runtime(client, hub, watched=("org/model",), limits=limits))
    assert (report.result, report.missing, report.queued) == ("budget-exhausted", 5, 3)
    assert [e.pr_num for e in queued_events(client)] == [1, 2, 3]


def test_hub_errors_skip_a_repo_and_a_rate_limit_stops_the_run(client: redis.Redis) -> None:
    hub = RecordingHub({"ok/one": [OpenPullRequest(1, SHA[1])]})
    hub.fails["gone/repo"] = HubPermanentError("404", status=404)
    hub.fails["flaky/repo"] = HubTransientError("502", status=502)
    runtime = make_runtime(client, hub, watched=("gone/repo", "flaky/repo", "ok/one"))
    report = reconcile_once(runtime)
    assert (report.result, report.hub_errors, report.queued) == ("completed", 2, 1)

    hub.fails["ok/one"] = HubTransientError("429", status=429, retry_after=30)
    report = reconcile_once(runtime)
    assert report.result == "rate-limited"
    assert stats(client)["reconcile-repo:hub-error"] == 5
    assert stats(client)["reconcile-run:rate-limited"] == 1
    # The 429 paused every worker (workers.hub_pause); the next run calls nothing while it lasts.
    assert HubPause(client).remaining_now() > 30
    listed = len(hub.listed)
    assert reconcile_once(runtime).result == "skipped-paused"
    assert len(hub.listed) == listed
    client.delete(keys.HUB_PAUSE)
    assert reconcile_once(runtime).result == "rate-limited"


def test_a_503_that_asks_for_quiet_stops_the_run_too(client: redis.Redis) -> None:
    """A 503 with `Retry-After` pauses the workers; listing the other repos meanwhile would
    spend the quiet the Hub asked for."""
    hub = RecordingHub({"ok/one": [OpenPullRequest(1, SHA[1])], "ok/two": []})
    hub.fails["busy/repo"] = HubTransientError("503", status=503, retry_after=20)
    runtime = make_runtime(client, hub, watched=("busy/repo", "ok/one", "ok/two"))
    report = reconcile_once(runtime)
    assert report.result == "rate-limited"
    assert hub.listed == ["busy/repo"]
    assert HubPause(client).remaining_now() > 20


def test_a_known_repo_gone_from_the_hub_is_forgotten_a_configured_one_is_not(
    client: redis.Redis,
) -> None:
    hub = RecordingHub({})
    hub.fails["gone/known"] = HubPermanentError("404", status=404)
    hub.fails["gone/configured"] = HubPermanentError("404", status=404)
    hub.fails["forbidden/known"] = HubPermanentError("403", status=403)
    client.sadd(keys.VERDICT_REPOS, "gone/known", "forbidden/known")
    runtime = make_runtime(client, hub, watched=("gone/configured",))
    assert reconcile_once(runtime).hub_errors == 3
    assert {as_text(r) for r in client.smembers(keys.VERDICT_REPOS)} == {"forbidden/known"}


def test_overlapping_runs_and_a_backlog_skip(client: redis.Redis) -> None:
    hub = RecordingHub({"org/model": [OpenPullRequest(1, SHA[1])]})
    runtime = make_runtime(
        client, hub, watched=("org/model",), limits=ReconcileLimits(max_backlog=2)
    )
    client.set(keys.RECONCILE_LOCK, "another run")
    assert reconcile_once(runtime).result == "skipped-busy"
    assert client.get(keys.RECONCILE_LOCK) == b"another run"  # not ours to release
    client.delete(keys.RECONCILE_LOCK)
    client.rpush("evalbot", "a", "b", "c")
    assert reconcile_once(runtime).result == "skipped-backlog"
    assert hub.listed == []
    assert stats(client) == {"reconcile-run:skipped-busy": 1, "reconcile-run:skipped-backlog": 1}


def test_a_known_repo_the_hub_no_longer_shows_leaves_the_pages(client: redis.Redis) -> None:
    # A public repo turned private or deleted (the bot refused) gets no more verdicts: without this
    # its history would stay on the pages, read as public, until it expires.
    for repo_id in ("gone/known", "forbidden/known", "gone/configured", "fine/known"):
        record_verdict(client, repo_id, 1, VERDICT, visibility="public")
    hub = RecordingHub({})
    hub.fails["gone/known"] = HubPermanentError("404", status=404)
    hub.fails["forbidden/known"] = HubPermanentError("403", status=403)
    hub.fails["gone/configured"] = HubPermanentError("404", status=404)
    client.sadd(keys.VERDICT_REPOS, "gone/known", "forbidden/known", "fine/known")
    runtime = make_runtime(client, hub, watched=("gone/configured",))
    reconcile_once(runtime)
    everyone = ["gone/known", "forbidden/known", "gone/configured", "fine/known"]
    assert public_repos(client, everyone) == ["fine/known"]
    assert client.zrange(HISTORY_REPOS, 0, -1) == [b"fine/known"]
    assert client.exists(repo_history_key("gone/known")) == 0


def test_a_rejected_bot_token_hides_no_repo(client: redis.Redis) -> None:
    """The Hub's 401 to a revoked bot token (no `RepoNotFound`: the emulator's and the Hub's
    "Invalid credentials") is about the token, not the repos: it took every repo's history off
    the pages and deleted it. A 401 `RepoNotFound` (a repo the caller may not see) still hides."""
    for repo_id in ("any/known", "private/known"):
        record_verdict(client, repo_id, 1, VERDICT, visibility="public")
    hub = RecordingHub({})
    hub.fails["any/known"] = HubPermanentError("401 Invalid credentials", status=401)
    hub.fails["private/known"] = HubPermanentError("401", status=401, code="RepoNotFound")
    client.sadd(keys.VERDICT_REPOS, "any/known", "private/known")
    runtime = make_runtime(client, hub)
    assert reconcile_once(runtime).hub_errors == 2
    assert public_repos(client, ["any/known", "private/known"]) == ["any/known"]
    assert client.exists(repo_history_key("any/known")) == 1
    assert client.exists(repo_history_key("private/known")) == 0
    assert client.sismember(keys.VERDICT_REPOS, "any/known")


def test_a_revoked_bot_token_on_the_emulator_keeps_the_history(
    client: redis.Redis, emulated_hub: EmulatorServer
) -> None:
    """The same through the real client: what the Hub answers a revoked token is no verdict on
    the repo."""
    record_verdict(client, MODEL, 1, VERDICT, visibility="public")
    client.sadd(keys.VERDICT_REPOS, MODEL)
    revoked = HfHubClient(HfApi(endpoint=emulated_hub.url, token="hf_revoked"))
    assert reconcile_once(make_runtime(client, revoked)).hub_errors == 1
    assert public_repos(client, [MODEL]) == [MODEL]
    assert client.exists(repo_history_key(MODEL)) == 1
