"""Source records read through the Hub seam (`bot.hub.records`) from the emulator, counted on the
wire: only what a public datastore merged, once per record at a commit, a branch resolved once,
within the run's share of requests (an LFS record costs its CDN hop too); a failed read is
unreadable, only the Hub's 404 is missing."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence

import pytest
from huggingface_hub import set_client_factory
from huggingface_hub.utils._http import default_client_factory

from bot.eee.links import RecordLink
from bot.eee.sourcecheck import RecordMissing, RecordNotMerged, RecordNotPublic, RecordUnreadable
from bot.hub.budget import counting
from bot.hub.client import HfHubClient
from bot.hub.datastore import HubDatastore
from bot.hub.records import HubRecordReader, MemoryRecordCache
from bot.hub.timeouts import use_hub_timeout
from evalbot_dev.emulator.server import EmulatorServer
from evalbot_dev.emulator.state import FileChange
from tests.conftest import REAL_WORLD
from tests.support.emulator import TOKENS, client

pytestmark = pytest.mark.integration

DATASTORE = "evaleval/EEE_datastore"
COMMIT = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
YI = "flat/objects/67/6f/676f4465-ce78-411a-9f5a-c97b3d2eac4f.json"
RECORD = (REAL_WORLD / "every_eval_ever" / "community_evals" / "datastore" / YI).read_bytes()
FORGED = "flat/objects/11/11/11111111-2222-4333-8444-555555555555.json"


@pytest.fixture(autouse=True)
def _bounded_client() -> Iterator[None]:
    """The worker's Hub client (its requests are what a run's share counts)."""
    use_hub_timeout(10.0)
    try:
        yield
    finally:
        set_client_factory(default_client_factory)  # the library's own, for the other tests


@pytest.fixture
def hub(emulated_hub: EmulatorServer) -> EmulatorServer:
    emulated_hub.state.add_org("evaleval", {"alice": "admin"})  # alice maintains the datastore
    emulated_hub.state.seed_repo("dataset", DATASTORE, {YI: RECORD}, sha=COMMIT)
    emulated_hub.faults.reset_counters()
    return emulated_hub


def link(revision: str, path: str = YI, repo_id: str = DATASTORE) -> RecordLink:
    return RecordLink(url="u", repo_id=repo_id, revision=revision, path=path)


def reader(hub: EmulatorServer, limit: int = 10, user: str = "evalbot") -> HubRecordReader:
    api = client(hub, user)
    return HubRecordReader(HubDatastore(HfHubClient(api), api), MemoryRecordCache(), limit=limit)


def calls(hub: EmulatorServer) -> int:
    """Every request the emulator served: its API and resolve routes, and its CDN."""
    return sum(hub.counters().values()) + len(hub.cdn_requests())


def commit(hub: EmulatorServer, user: str, changes: Sequence[FileChange], *, pr: bool) -> str:
    """A commit on the datastore's main (`pr` False) or a new PR (True), as `user`; its SHA."""
    state = hub.state
    outcome = state.commit(
        state.tokens[TOKENS[user]],
        state.find_repo("dataset", DATASTORE),
        "main",
        list(changes),
        summary="records",
        description="",
        create_pr=pr,
    )
    return outcome.commit.sha


def test_a_record_at_mains_commit_is_read_once(hub: EmulatorServer) -> None:
    records = reader(hub)
    with counting():
        assert records.read(link(COMMIT)) == RECORD
        assert calls(hub) == 2  # main's commit and visibility, the record
        assert records.read(link(COMMIT)) == RECORD  # a later run, the same cache
        assert records.read(link("main")) == RECORD  # main is that commit
    assert calls(hub) == 2
    assert records.spent == 2


def test_a_record_in_an_unmerged_pull_request_is_not_merged(hub: EmulatorServer) -> None:
    forged = json.loads(RECORD)
    forged["evaluation_id"] = "forged/1"
    head = commit(hub, "bob", [FileChange(FORGED, json.dumps(forged).encode())], pr=True)
    edited = commit(hub, "bob", [FileChange(YI, RECORD.replace(b"0.5229", b"0.968"))], pr=True)
    records = reader(hub)
    with counting():
        records.prepare([link(head, FORGED), link(edited)])
        with pytest.raises(RecordNotMerged, match="not the one on evaleval/EEE_datastore's main"):
            records.read(link(head, FORGED))  # a path main does not hold
        with pytest.raises(RecordNotMerged, match="link the merged record"):
            records.read(link(edited))  # main holds another content at that path


def test_a_record_at_an_older_commit_of_main_counts_while_main_holds_it(
    hub: EmulatorServer,
) -> None:
    other = "flat/objects/22/22/22222222-2222-4222-8222-222222222222.json"
    commit(hub, "alice", [FileChange(other, b"{}")], pr=False)
    records = reader(hub)
    with counting():
        records.prepare([link(COMMIT)])
        assert records.read(link(COMMIT)) == RECORD  # main's commit moved; the record did not
    commit(hub, "alice", [FileChange(YI, RECORD.replace(b"0.5229", b"0.01"))], pr=False)
    with counting(), pytest.raises(RecordNotMerged, match="changed since"):
        reader(hub).read(link(COMMIT))  # main has changed the record since


@pytest.mark.parametrize(
    ("private", "gated"), [(False, "manual"), (False, "auto"), (True, False)], ids=str
)
def test_a_datastore_that_is_not_public_is_never_read(
    emulated_hub: EmulatorServer, private: bool, gated: str | bool
) -> None:
    emulated_hub.state.seed_repo(
        "dataset",
        "evaleval/closed",
        {YI: RECORD},
        private=private,
        gated=gated,  # type: ignore[arg-type]
        granted=["evalbot"],
    )
    emulated_hub.faults.reset_counters()
    records = reader(emulated_hub)
    with counting():
        for _ in range(3):
            with pytest.raises(RecordNotPublic):
                records.read(link("main", repo_id="evaleval/closed"))
    assert calls(emulated_hub) == 1  # its visibility, once; not a byte of it
    assert "files.resolve" not in emulated_hub.counters()


def test_past_the_budget_a_record_is_not_read(hub: EmulatorServer) -> None:
    records = reader(hub, limit=2)
    with counting(), pytest.raises(RecordUnreadable, match="budget for source records"):
        records.read(link("main"))  # main's commit takes 1; a read may take 2
    assert calls(hub) == 1


def test_lfs_records_are_counted_by_the_requests_they_cost(hub: EmulatorServer) -> None:
    paths = [f"flat/objects/33/33/{uuid.UUID(int=i, version=4)}.json" for i in range(300)]
    sha = commit(hub, "alice", [FileChange(p, RECORD, lfs=True) for p in paths], pr=False)
    hub.faults.reset_counters()
    cdn_before = len(hub.cdn_requests())
    records = reader(hub, limit=200)
    links = [link(sha, path) for path in paths]
    read = unread = 0
    with counting() as run:
        records.prepare(links)
        for each in links:
            try:
                records.read(each)
                read += 1
            except RecordUnreadable:
                unread += 1
    made = sum(hub.counters().values()) + len(hub.cdn_requests()) - cdn_before
    assert made == run.made == records.spent  # the share counts what went out
    assert made <= 200
    assert read == 99  # main (1), its content ids (1), then 2 requests per LFS record
    assert unread == 201


def test_only_the_hubs_404_is_missing(hub: EmulatorServer) -> None:
    records = reader(hub)
    with counting():
        with pytest.raises(RecordMissing):
            records.read(
                link(COMMIT, "flat/objects/00/00/00000000-0000-4000-8000-000000000000.json")
            )
        with pytest.raises(RecordMissing):
            records.read(link("no-such-branch"))


def test_an_unreachable_hub_is_unreadable_never_missing() -> None:
    from huggingface_hub import HfApi

    api = HfApi(endpoint="http://127.0.0.1:9", token="hf_x")
    offline = HubRecordReader(HubDatastore(HfHubClient(api), api), MemoryRecordCache())
    with counting(), pytest.raises(RecordUnreadable):
        offline.read(link(COMMIT))
