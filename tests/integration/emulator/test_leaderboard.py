"""`HfApi.get_dataset_leaderboard` against the emulator: main's results and open PRs' ones."""

from __future__ import annotations

import pytest
from huggingface_hub import CommitOperationAdd

from evalbot_dev.devstack.workload import hle_entry
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, client

pytestmark = pytest.mark.integration


def test_the_leaderboard_ranks_main_and_open_pr_results(emulated_hub: EmulatorServer) -> None:
    bob = client(emulated_hub, "bob")
    info = bob.create_commit(
        MODEL,
        [CommitOperationAdd(".eval_results/hle.yaml", hle_entry("12.5").encode())],
        commit_message="HLE",
        create_pr=True,
    )
    rows = client(emulated_hub, None).get_dataset_leaderboard(
        "emulator-samples/hle-mini", base_model_only=False
    )
    assert [(r.rank, r.model_id, r.value, r.filename, r.pull_request) for r in rows] == [
        (1, MODEL, 12.5, ".eval_results/hle.yaml", info.pr_num)
    ]
    assert rows[0].author.username == "alice"
    gpqa = client(emulated_hub, None).get_dataset_leaderboard("emulator-samples/gpqa-mini")
    assert [(r.rank, r.value, r.filename, r.pull_request) for r in gpqa] == [
        (1, 41.5, ".eval_results/gpqa-mini.yaml", None)
    ]
    assert gpqa[0].source == {
        "url": "https://example.org/alice/model/logs",
        "name": "Eval logs",
        "isExternal": True,
    }


def test_an_unknown_dataset_is_a_404(emulated_hub: EmulatorServer) -> None:
    from huggingface_hub.errors import RepositoryNotFoundError

    with pytest.raises(RepositoryNotFoundError):
        client(emulated_hub, None).get_dataset_leaderboard("emulator-samples/nope")
