from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.hub.client import HfHubClient
from bot.hub.sources import token_commit_time
from tests.unit.hub.fake_hub import FakeHub

REPO = "acme/model-7b"
PATH = ".eval_results/gpqa.yaml"
TOKEN = "eyJhbGciOiJFZERTQSJ9.eyJqdGkiOiIxIn0.c2ln"


def _commit(oid: str, when: str, parent: str) -> dict[str, Any]:
    return {
        "id": "e" + oid[:23],
        "type": "commit",
        "createdAt": when,
        "author": {"name": "alice"},
        "data": {"subject": "x", "oid": oid, "parents": [parent]},
    }


def test_single_commit_pr_costs_no_call(client: HfHubClient, hub: FakeHub) -> None:
    details = hub.details[(REPO, 3)]
    details["events"] = [e for e in details["events"] if e["data"].get("oid") != "b" * 40]
    pr = client.pull_request(REPO, 3)
    before = len(hub.calls)
    assert token_commit_time(client, pr, PATH, TOKEN) == datetime(2026, 1, 10, 12, 0, 1, tzinfo=UTC)
    assert len(hub.calls) == before


def test_multi_commit_pr_bisects_to_the_introducing_commit(
    client: HfHubClient, hub: FakeHub
) -> None:
    details = hub.details[(REPO, 3)]
    oids = [c * 40 for c in "123456"]
    parents = ["0" * 40, *oids[:-1]]
    details["events"] = [
        _commit(oid, f"2026-01-1{i}T00:00:00.000Z", parent)
        for i, (oid, parent) in enumerate(zip(oids, parents, strict=True))
    ]
    for index, oid in enumerate(oids):
        body = f"- value: {index}\n"
        if index >= 2:  # introduced by the third commit
            body += f"  verifyToken: {TOKEN}\n"
        if index >= 1:  # the file appears in the second commit
            hub.files[(REPO, oid, PATH)] = body.encode()
    pr = client.pull_request(REPO, 3)
    before = len(hub.calls)
    assert token_commit_time(client, pr, PATH, TOKEN) == datetime(2026, 1, 12, tzinfo=UTC)
    assert len(hub.calls) - before <= 4  # log2(6) reads + the head check


def test_token_folded_over_lines_is_found(client: HfHubClient, hub: FakeHub) -> None:
    details = hub.details[(REPO, 3)]
    details["diff"] = details["diff"].replace(
        f"verifyToken: {TOKEN}", f"verifyToken: >-\n+    {TOKEN[:20]}\n+    {TOKEN[20:]}"
    )
    hub.files[(REPO, "a" * 40, PATH)] = (
        f"verifyToken: >-\n  {TOKEN[:20]}\n  {TOKEN[20:]}\n".encode()
    )
    hub.files[(REPO, "b" * 40, PATH)] = hub.files[(REPO, "a" * 40, PATH)]
    pr = client.pull_request(REPO, 3)
    assert token_commit_time(client, pr, PATH, TOKEN) == datetime(2026, 1, 10, 12, 0, 1, tzinfo=UTC)


def test_token_from_the_base_branch_is_dated_from_its_history(
    client: HfHubClient, hub: FakeHub
) -> None:
    pr_path = ".eval_results/hle.yaml"  # modified by the PR, token line untouched
    base = "0" * 40
    history = [("9" * 40, "2026-01-09"), ("8" * 40, "2026-01-05"), ("7" * 40, "2026-01-01")]
    hub.commits[(REPO, base)] = [
        {
            "id": base,
            "title": "t",
            "message": "",
            "authors": [],
            "date": "2026-01-10T00:00:00.000Z",
        },
        *(
            {"id": oid, "title": "t", "message": "", "authors": [], "date": f"{day}T00:00:00.000Z"}
            for oid, day in history
        ),
    ]
    line = f"  verifyToken: {TOKEN}\n".encode()
    hub.files[(REPO, base, pr_path)] = line
    hub.files[(REPO, "9" * 40, pr_path)] = line
    hub.files[(REPO, "8" * 40, pr_path)] = line  # introduced here
    hub.files[(REPO, "7" * 40, pr_path)] = b"- value: 1\n"
    pr = client.pull_request(REPO, 3)
    assert token_commit_time(client, pr, pr_path, TOKEN) == datetime(2026, 1, 5, tzinfo=UTC)
    assert f"GET /api/models/{REPO}/commits/{base}" in hub.calls


def test_token_nowhere_gives_none(client: HfHubClient, hub: FakeHub) -> None:
    pr = client.pull_request(REPO, 3)
    hub.commits[(REPO, "0" * 40)] = []
    assert token_commit_time(client, pr, ".eval_results/hle.yaml", TOKEN) is None
    assert token_commit_time(client, pr, PATH, "") is None


def test_without_a_diff_the_pr_commits_are_searched_first(
    client: HfHubClient, hub: FakeHub
) -> None:
    """Tree comparison tells what changed, not which lines: the PR's own commits are bisected."""
    del hub.details[(REPO, 3)]["diff"]
    hub.trees[(REPO, "b" * 40)] = [{"type": "file", "path": PATH, "oid": "1", "size": 1}]
    line = f"  verifyToken: {TOKEN}\n".encode()
    hub.files[(REPO, "a" * 40, PATH)] = line
    hub.files[(REPO, "b" * 40, PATH)] = line
    pr = client.pull_request(REPO, 3)
    assert pr.result_files == (PATH,)
    assert pr.added_text(PATH) is None
    assert token_commit_time(client, pr, PATH, TOKEN) == datetime(2026, 1, 10, 12, 0, 1, tzinfo=UTC)
