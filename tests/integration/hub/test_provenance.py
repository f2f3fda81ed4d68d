"""`token_commit_time` on PRs built commit by commit on the emulator with the real client."""

from __future__ import annotations

import pytest

from bot.hub.client import HfHubClient
from bot.hub.sources import token_commit_time
from evalbot_dev.emulator.server import EmulatorServer
from tests.integration.hub.conftest import GPQA_ENTRY, open_pr, push_to_pr
from tests.support.emulator import MODEL, client

pytestmark = pytest.mark.integration

RESULTS = ".eval_results/gpqa.yaml"
TOKEN = "eyJhbGciOiJFZERTQSJ9.eyJqdGkiOiJ0LTEifQ.c2lnbmF0dXJl"
WITH_TOKEN = GPQA_ENTRY + f"  verifyToken: {TOKEN}\n".encode()


def test_single_commit_pr_costs_no_call(emulated_hub: EmulatorServer, bot: HfHubClient) -> None:
    num = open_pr(client(emulated_hub, "bob"), {RESULTS: WITH_TOKEN})
    pr = bot.pull_request(MODEL, num)
    emulated_hub.faults.reset_counters()

    when = token_commit_time(bot, pr, RESULTS, TOKEN)

    assert emulated_hub.counters() == {}
    assert when is not None
    assert when == pr.commits[0].created_at


def test_token_added_by_the_second_of_three_commits(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    bob = client(emulated_hub, "bob")
    num = open_pr(bob, {RESULTS: GPQA_ENTRY})
    second = push_to_pr(bob, num, RESULTS, WITH_TOKEN, "Add the token")
    third = push_to_pr(bob, num, RESULTS, WITH_TOKEN + b"  notes: rerun\n", "Add notes")
    pr = bot.pull_request(MODEL, num)
    assert [c.oid for c in pr.commits][1:] == [second, third]
    emulated_hub.faults.reset_counters()

    when = token_commit_time(bot, pr, RESULTS, TOKEN)
    calls = emulated_hub.counters()

    times = [c.created_at for c in pr.commits if c.created_at is not None]
    assert len(set(times)) == 3
    assert times == sorted(times)
    assert when is not None
    assert when == pr.commits[1].created_at
    # the head, then bisecting: the middle (holds it), the first (does not)
    assert calls == {"files.resolve": 3}
    listed = {c.commit_id: c.created_at for c in bob.list_repo_commits(MODEL, revision=third)}
    assert abs((listed[second] - when).total_seconds()) < 1  # the Hub's time of that commit


def test_token_not_in_the_pr_is_looked_up_in_the_base_history(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    from huggingface_hub import CommitOperationAdd

    alice = client(emulated_hub, "alice")
    on_main = alice.create_commit(
        MODEL, [CommitOperationAdd(RESULTS, WITH_TOKEN)], commit_message="token on main"
    )
    num = open_pr(alice, {RESULTS: WITH_TOKEN + b"  notes: later\n"})
    pr = bot.pull_request(MODEL, num)

    when = token_commit_time(bot, pr, RESULTS, TOKEN)

    listed = {c.commit_id: c.created_at for c in alice.list_repo_commits(MODEL)}
    assert when == listed[on_main.oid]
