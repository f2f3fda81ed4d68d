"""The records a datastore PR is compared with, in a real Redis against the emulator: main's
index built once, then brought up to date from what main's commits changed; other open PRs
read only at datastore paths, each content once, within the run's Hub budget."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import redis
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, set_client_factory
from huggingface_hub.utils._http import default_client_factory

from bot.eee.dedupe import normalized_hash
from bot.hub.budget import counting
from bot.hub.client import HfHubClient
from bot.hub.datastore import HubDatastore
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.pulls import PullRequest
from bot.hub.timeouts import use_hub_timeout
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.emulator.faults import RouteFault
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import client
from workers.datastore_index import Comparison, compare_open_prs, main_index

pytestmark = pytest.mark.integration

REPO = "alice/datastore"
SAMPLES = Path(__file__).parents[2] / "samples" / "real-world" / "every_eval_ever" / "datastore"
NOW = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _bounded_client() -> Iterator[None]:
    """The worker's Hub client (its requests are what a run's budget counts)."""
    use_hub_timeout(10.0)
    try:
        yield
    finally:
        set_client_factory(default_client_factory)  # the library's own, for the other tests


def record(n: int) -> bytes:
    (path,) = (SAMPLES / "pass").rglob("83f8f705-*.json")
    data = json.loads(path.read_bytes())
    data["evaluation_results"][0]["score_details"]["score"] = n / 100
    return json.dumps(data).encode()


def path(n: int) -> str:
    return f"data/c/d/m/{n:08x}-0000-4000-8000-000000000000.json"


class Bench:
    """The bot's view of the datastore (its Hub client and Redis) and a user opening PRs."""

    def __init__(self, hub: EmulatorServer, server: RedisServer) -> None:
        self.hub = hub
        api = client(hub, "evalbot")
        self.bot = HfHubClient(api)
        self.datastore = HubDatastore(self.bot, api)
        self.redis = redis.Redis.from_url(server.url)

    def open_pr(self, user: str, files: dict[str, bytes]) -> int:
        operations = [CommitOperationAdd(p, content) for p, content in files.items()]
        info: Any = client(self.hub, user).create_commit(
            REPO, operations, commit_message="Add", repo_type="dataset", create_pr=True
        )
        return int(info.pr_num)

    def push(self, user: str, num: int, files: dict[str, bytes]) -> None:
        client(self.hub, user).create_commit(
            REPO,
            [CommitOperationAdd(p, content) for p, content in files.items()],
            commit_message="One byte more",
            repo_type="dataset",
            revision=f"refs/pr/{num}",
        )

    def compare(self, this_pr: int, budget: int = 80) -> tuple[Comparison, int]:
        """One run's comparison; and the Hub calls it made, as the emulator counted them."""

        def details(num: int) -> PullRequest:
            return self.bot.dataset_pull_request(REPO, num)

        def changed(pr: PullRequest) -> list[str]:
            return [f.new_path for f in pr.diff_files if f.new_path]

        self.hub.faults.reset_counters()
        with counting() as calls:
            found = compare_open_prs(
                self.redis,
                self.datastore,
                REPO,
                this_pr,
                details=details,
                changed=changed,
                calls=calls,
                limit=budget,
                now=NOW,
            )
        made = sum(self.hub.counters().values())
        assert calls.made == made  # the run's count is the Hub's
        return found, made


@pytest.fixture
def bench(emulated_hub: EmulatorServer, redis_server: RedisServer) -> Bench:
    return Bench(emulated_hub, redis_server)


def test_main_index_reads_only_what_main_changed(bench: Bench) -> None:
    hub = bench.hub
    hub.state.seed_repo("dataset", REPO, {path(n): record(n) for n in range(20)})
    store, datastore = bench.redis, bench.datastore

    hub.faults.reset_counters()
    first = main_index(store, datastore, REPO, datastore.main_sha(REPO))
    assert first.hashes[path(3)] == normalized_hash(json.loads(record(3)))
    assert hub.counters().get("files.resolve") == 20

    hub.faults.reset_counters()
    assert main_index(store, datastore, REPO, datastore.main_sha(REPO)) == first
    assert sum(hub.counters().values()) == 1  # main unchanged: its commit, no file read

    client(hub, "alice").create_commit(
        REPO,
        [CommitOperationAdd(path(99), record(99)), CommitOperationDelete(path(0))],
        commit_message="One more, one less",
        repo_type="dataset",
    )
    hub.faults.reset_counters()
    moved = main_index(store, datastore, REPO, datastore.main_sha(REPO))
    assert hub.counters().get("files.resolve") == 1  # only the new record is read
    assert path(99) in moved.hashes
    assert path(0) not in moved.hashes
    assert moved.sha != first.sha


def test_other_open_prs_are_read_once_per_head(bench: Bench) -> None:
    bench.hub.state.seed_repo("dataset", REPO, {path(0): record(0)})
    other = bench.open_pr("alice", {path(n): record(n) for n in (1, 2)})

    found, made = bench.compare(999)
    assert found.not_compared == []
    held = found.prs[other].held
    assert {p: h.digest for p, h in held.items()} == {
        path(n): normalized_hash(json.loads(record(n))) for n in (1, 2)
    }
    assert bench.hub.counters().get("files.resolve") == 2

    again, made = bench.compare(999)
    assert {p: h.digest for p, h in again.prs[other].held.items()} == {
        p: h.digest for p, h in held.items()
    }
    assert made == 2  # the listing and the refs, no more


def test_a_strangers_files_outside_data_are_never_read(bench: Bench) -> None:
    """200 `.json` files at no datastore path, then a one-byte push: the PR's details, and
    nothing else, whatever the files hold."""
    bench.hub.state.seed_repo("dataset", REPO, {"README.md": b"# EEE\n"})
    junk = {f"junk/{i}.json": record(i) for i in range(200)}
    stranger = bench.open_pr("bob", junk)
    found, made = bench.compare(999)
    assert found.prs[stranger].held == {}
    assert bench.hub.counters().get("files.resolve", 0) == 0
    assert made == 3  # the listing, the refs, its details

    bench.push("bob", stranger, {"junk/0.json": record(0) + b" "})
    found, made = bench.compare(999)
    assert bench.hub.counters().get("files.resolve", 0) == 0
    assert made == 3


def test_records_whose_contents_did_not_change_are_not_read_again(bench: Bench) -> None:
    """200 records at datastore paths; a one-byte push to one of them: the PR's details, the
    content ids of its records (1 call), and that one record."""
    bench.hub.state.seed_repo("dataset", REPO, {"README.md": b"# EEE\n"})
    stranger = bench.open_pr("bob", {path(n): record(n) for n in range(200)})
    found, made = bench.compare(999, budget=1000)
    assert len(found.prs[stranger].held) == 200
    assert made == 3 + 1 + 200  # listing, refs, details; paths-info; each record once

    bench.push("bob", stranger, {path(7): record(7) + b" "})
    found, made = bench.compare(999)
    assert made == 3 + 1 + 1
    assert bench.hub.counters().get("files.resolve") == 1
    assert len(found.prs[stranger].held) == 200


def test_past_its_budget_a_run_names_the_prs_it_did_not_compare_and_the_next_goes_on(
    bench: Bench,
) -> None:
    bench.hub.state.seed_repo("dataset", REPO, {"README.md": b"# EEE\n"})
    first = bench.open_pr("bob", {path(n): record(n) for n in range(30)})
    second = bench.open_pr("carol", {path(100 + n): record(100 + n) for n in range(30)})
    found, made = bench.compare(999, budget=40)
    assert made <= 2 + 40
    assert found.not_compared == [second]  # the first fitted, the second did not
    assert len(found.prs[first].held) == 30

    found, made = bench.compare(999, budget=40)
    assert found.not_compared == []  # what was read is not read again: the rest fits now
    assert len(found.prs[second].held) == 30
    assert made <= 2 + 40


@pytest.mark.parametrize("status", [403, 404])
def test_a_record_main_could_not_serve_is_not_indexed_as_no_record(
    emulated_hub: EmulatorServer, redis_server: RedisServer, status: int
) -> None:
    """A refused or vanished read of a record of main was kept as "" (no record anyone can
    duplicate) until its blob changed: duplicates of it passed every later PR. It stops the
    run now (a refusal; a vanished file is retried), and the next run indexes it."""
    emulated_hub.state.seed_repo("dataset", REPO, {path(n): record(n) for n in range(3)})
    api = client(emulated_hub, "evalbot")
    hub = HubDatastore(HfHubClient(api), api)
    store = redis.Redis.from_url(redis_server.url)
    emulated_hub.faults.add_rule(RouteFault(pattern="files.resolve", status=status, times=1))
    expected = HubTransientError if status == 404 else HubPermanentError
    with pytest.raises(expected):
        main_index(store, hub, REPO, hub.main_sha(REPO))
    index = main_index(store, hub, REPO, hub.main_sha(REPO))
    assert all(index.hashes[path(n)] == normalized_hash(json.loads(record(n))) for n in range(3))
