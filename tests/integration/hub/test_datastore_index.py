"""Main's hash index of a datastore, in a real Redis against the emulator: built once, then
brought up to date from what main's commits changed, never re-read whole per PR."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis
from huggingface_hub import CommitOperationAdd, CommitOperationDelete

from bot.eee.dedupe import normalized_hash
from bot.hub.client import HfHubClient
from bot.hub.datastore import HubDatastore
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.pulls import PullRequest
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.emulator.faults import RouteFault
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import client
from workers.datastore_index import main_index, open_pr_hashes

pytestmark = pytest.mark.integration

REPO = "alice/datastore"
SAMPLES = Path(__file__).parents[2] / "samples" / "real-world" / "every_eval_ever" / "datastore"


def record(n: int) -> bytes:
    (path,) = (SAMPLES / "pass").rglob("83f8f705-*.json")
    data = json.loads(path.read_bytes())
    data["evaluation_results"][0]["score_details"]["score"] = n / 100
    return json.dumps(data).encode()


def path(n: int) -> str:
    return f"data/c/d/m/{n:08x}-0000-4000-8000-000000000000.json"


def test_main_index_reads_only_what_main_changed(
    emulated_hub: EmulatorServer, redis_server: RedisServer
) -> None:
    emulated_hub.state.seed_repo("dataset", REPO, {path(n): record(n) for n in range(20)})
    api = client(emulated_hub, "evalbot")
    hub = HubDatastore(HfHubClient(api), api)
    store = redis.Redis.from_url(redis_server.url)

    emulated_hub.faults.reset_counters()
    first = main_index(store, hub, REPO)
    assert first.hashes[path(3)] == normalized_hash(json.loads(record(3)))
    assert emulated_hub.counters().get("files.resolve") == 20

    emulated_hub.faults.reset_counters()
    assert main_index(store, hub, REPO) == first  # main unchanged: one call, no file read
    assert sum(emulated_hub.counters().values()) == 1

    client(emulated_hub, "alice").create_commit(
        REPO,
        [CommitOperationAdd(path(99), record(99)), CommitOperationDelete(path(0))],
        commit_message="One more, one less",
        repo_type="dataset",
    )
    emulated_hub.faults.reset_counters()
    moved = main_index(store, hub, REPO)
    assert emulated_hub.counters().get("files.resolve") == 1  # only the new record is read
    assert path(99) in moved.hashes
    assert path(0) not in moved.hashes
    assert moved.sha != first.sha


def test_other_open_prs_are_read_once_per_head(
    emulated_hub: EmulatorServer, redis_server: RedisServer
) -> None:
    emulated_hub.state.seed_repo("dataset", REPO, {path(0): record(0)})
    alice = client(emulated_hub, "alice")
    info = alice.create_commit(
        REPO,
        [CommitOperationAdd(path(n), record(n)) for n in (1, 2)],
        commit_message="Two records",
        repo_type="dataset",
        create_pr=True,
    )
    other = int(info.pr_num)
    api = client(emulated_hub, "evalbot")
    bot = HfHubClient(api)
    hub = HubDatastore(bot, api)
    store = redis.Redis.from_url(redis_server.url)

    def details(num: int) -> PullRequest:
        return bot.dataset_pull_request(REPO, num)

    def changed(pr: PullRequest) -> list[str]:
        return [f.new_path for f in pr.diff_files if f.new_path]

    emulated_hub.faults.reset_counters()
    found, unread = open_pr_hashes(store, hub, REPO, 999, details=details, changed=changed)
    assert unread == 0
    assert found == {other: {path(n): normalized_hash(json.loads(record(n))) for n in (1, 2)}}
    assert emulated_hub.counters().get("files.resolve") == 2

    emulated_hub.faults.reset_counters()
    again, _ = open_pr_hashes(store, hub, REPO, 999, details=details, changed=changed)
    assert again == found
    assert sum(emulated_hub.counters().values()) == 2  # the listing and the refs, no more


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
        main_index(store, hub, REPO)
    index = main_index(store, hub, REPO)
    assert all(index.hashes[path(n)] == normalized_hash(json.loads(record(n))) for n in range(3))
