"""`HfHubClient.open_pull_requests`: open PRs with their heads, for reconciliation, in 2 calls."""

from __future__ import annotations

import pytest

from bot.hub.client import HfHubClient, OpenPullRequest
from evalbot_dev.emulator.server import EmulatorServer
from tests.integration.hub.conftest import GPQA_ENTRY, open_pr, push_to_pr
from tests.support.emulator import MODEL, client

pytestmark = pytest.mark.integration


def pr_head(hub: EmulatorServer, num: int) -> str:
    refs = client(hub, "alice").list_repo_refs(MODEL, include_pull_requests=True)
    return str(next(r.target_commit for r in refs.pull_requests if r.ref == f"refs/pr/{num}"))


def test_lists_open_prs_with_heads_and_skips_closed_ones(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    bob = client(emulated_hub, "bob")
    first = open_pr(bob, {".eval_results/a.yaml": GPQA_ENTRY})
    second = open_pr(bob, {".eval_results/b.yaml": GPQA_ENTRY})
    closed = open_pr(bob, {".eval_results/c.yaml": GPQA_ENTRY})
    client(emulated_hub, "alice").change_discussion_status(MODEL, closed, "closed")
    pushed = push_to_pr(bob, second, ".eval_results/b.yaml", GPQA_ENTRY + b"# more\n")
    bob.create_discussion(MODEL, "a plain discussion, not a PR")

    emulated_hub.faults.reset_counters()
    listing = bot.open_pull_requests(MODEL, limit=100)
    assert emulated_hub.counters() == {"discussions.list": 1, "repos.refs": 1}

    assert listing.prs == (
        OpenPullRequest(first, pr_head(emulated_hub, first)),
        OpenPullRequest(second, pushed),
    )
    assert listing.hub_calls == 2


def test_limit_and_an_empty_repo(emulated_hub: EmulatorServer, bot: HfHubClient) -> None:
    bob = client(emulated_hub, "bob")
    emulated_hub.faults.reset_counters()
    empty = bot.open_pull_requests(MODEL, limit=10)
    assert empty.prs == ()
    assert empty.hub_calls == 1
    assert emulated_hub.counters() == {"discussions.list": 1}

    nums = [open_pr(bob, {f".eval_results/{i}.yaml": GPQA_ENTRY}) for i in range(3)]
    limited = bot.open_pull_requests(MODEL, limit=2)
    assert len(limited.prs) == 2
    assert {pr.num for pr in limited.prs} <= set(nums)
    assert all(pr.head_sha for pr in limited.prs)
