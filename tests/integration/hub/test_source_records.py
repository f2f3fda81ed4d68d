"""Source records read through the Hub seam (`bot.hub.records`) from the emulator, counted on the
wire: once per record at a commit, a branch resolved once, within the run's budget; a failed
read is unreadable, only the Hub's 404 is missing."""

from __future__ import annotations

import pytest

from bot.eee.links import RecordLink
from bot.eee.sourcecheck import RecordMissing, RecordUnreadable
from bot.hub.client import HfHubClient
from bot.hub.records import HubRecordReader, MemoryRecordCache, ReadBudget
from evalbot_dev.emulator.server import EmulatorServer
from tests.conftest import REAL_WORLD
from tests.support.emulator import client

pytestmark = pytest.mark.integration

DATASTORE = "evaleval/EEE_datastore"
COMMIT = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
YI = "flat/objects/67/6f/676f4465-ce78-411a-9f5a-c97b3d2eac4f.json"
RECORD = (REAL_WORLD / "every_eval_ever" / "community_evals" / "datastore" / YI).read_bytes()


@pytest.fixture
def hub(emulated_hub: EmulatorServer) -> EmulatorServer:
    emulated_hub.state.seed_repo("dataset", DATASTORE, {YI: RECORD}, sha=COMMIT)
    emulated_hub.faults.reset_counters()
    return emulated_hub


def link(revision: str, path: str = YI) -> RecordLink:
    return RecordLink(url="u", repo_id=DATASTORE, revision=revision, path=path)


def calls(hub: EmulatorServer) -> int:
    return sum(hub.counters().values())


def test_a_record_at_a_commit_is_read_once(hub: EmulatorServer) -> None:
    cache = MemoryRecordCache()
    budget = ReadBudget(10)
    reader = HubRecordReader(HfHubClient(client(hub, "evalbot")), budget, cache)
    assert reader.read(link(COMMIT)) == RECORD
    assert calls(hub) == 1
    assert reader.read(link(COMMIT)) == RECORD  # a later run, the same cache
    assert calls(hub) == 1
    assert budget.spent == 1


def test_a_branch_is_resolved_to_its_commit_then_read_by_it(hub: EmulatorServer) -> None:
    cache = MemoryRecordCache()
    reader = HubRecordReader(HfHubClient(client(hub, "evalbot")), ReadBudget(10), cache)
    assert reader.read(link("main")) == RECORD
    assert calls(hub) == 2  # the revision, the record
    assert reader.read(link(COMMIT)) == RECORD  # the same record by its commit: kept
    assert reader.read(link("main")) == RECORD  # the branch's commit: kept for a while
    assert calls(hub) == 2


def test_past_the_budget_a_record_is_not_read(hub: EmulatorServer) -> None:
    reader = HubRecordReader(
        HfHubClient(client(hub, "evalbot")), ReadBudget(1), MemoryRecordCache()
    )
    with pytest.raises(RecordUnreadable, match="budget for source records"):
        reader.read(link("main"))  # the revision takes the one call
    assert calls(hub) == 1


def test_only_the_hubs_404_is_missing(hub: EmulatorServer) -> None:
    reader = HubRecordReader(
        HfHubClient(client(hub, "evalbot")), ReadBudget(10), MemoryRecordCache()
    )
    with pytest.raises(RecordMissing):
        reader.read(link(COMMIT, "flat/objects/00/00/00000000-0000-4000-8000-000000000000.json"))
    with pytest.raises(RecordMissing):
        reader.read(link("no-such-branch"))


def test_an_unreachable_hub_is_unreadable_never_missing() -> None:
    from huggingface_hub import HfApi

    offline = HubRecordReader(
        HfHubClient(HfApi(endpoint="http://127.0.0.1:9", token="hf_x")),
        ReadBudget(10),
        MemoryRecordCache(),
    )
    with pytest.raises(RecordUnreadable):
        offline.read(link(COMMIT))
