from __future__ import annotations

from datetime import UTC, datetime

import httpx2
import pytest

from bot.hub.client import HfHubClient
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.pulls import PrStatus
from tests.unit.hub.fake_hub import FakeHub

REPO = "acme/model-7b"
HEAD = "b" * 40
MARKER = "<!-- evalbot:pr-report -->"


def test_one_details_call_gives_status_head_files_and_comments(
    client: HfHubClient, hub: FakeHub
) -> None:
    pr = client.pull_request(REPO, 3)

    assert hub.calls == [f"GET /api/models/{REPO}/discussions/3"]
    assert hub.requests[0].url.params["diff"] == "1"
    assert pr.is_pull_request
    assert pr.status is PrStatus.OPEN
    assert pr.head_sha == HEAD  # the last commit event, not the first
    assert pr.result_files == (".eval_results/gpqa.yaml", ".eval_results/hle.yaml")
    assert pr.removed_result_files == (".eval_results/old.yaml",)
    assert pr.misplaced_files == (".eval_results/mmlu.yml",)
    assert [c.oid for c in pr.commits] == ["a" * 40, HEAD]
    assert pr.commits[0].created_at == datetime(2026, 1, 10, 12, 0, 1, tzinfo=UTC)
    assert pr.commits[1].parents == ("a" * 40,)


def test_author_flags_and_case_insensitive_comment_ids(client: HfHubClient) -> None:
    pr = client.pull_request(REPO, 3)
    maintainer = pr.comment("65f000000000000000000005")  # the Hub sent it upper-cased
    assert maintainer is not None
    assert maintainer.author == "acme-admin"
    assert maintainer.is_org_member
    assert not maintainer.is_owner
    assert maintainer.raw == "@evalbot recheck"


def test_bot_comment_needs_both_author_and_marker(client: HfHubClient) -> None:
    pr = client.pull_request(REPO, 3)
    # alice pasted the marker into her description: not the bot's comment
    found = pr.find_bot_comment("evalbot", MARKER)
    assert found is not None
    assert found.id == "65f000000000000000000003"
    assert pr.find_bot_comment("otherbot", MARKER) is None


def test_merged_status_is_read(client: HfHubClient, hub: FakeHub) -> None:
    hub.details[(REPO, 3)]["status"] = "merged"
    hub.details[(REPO, 3)]["changes"]["mergeCommitId"] = "c" * 40
    assert client.pull_request(REPO, 3).status is PrStatus.MERGED


def test_discussion_is_not_a_pr(client: HfHubClient, hub: FakeHub) -> None:
    details = hub.details[(REPO, 3)]
    details["isPullRequest"] = False
    pr = client.pull_request(REPO, 3)
    assert not pr.is_pull_request
    assert pr.head_sha is None
    assert not pr.touches_results


def test_pr_without_commit_events_resolves_the_ref(client: HfHubClient, hub: FakeHub) -> None:
    details = hub.details[(REPO, 3)]
    details["events"] = [e for e in details["events"] if e["type"] != "commit"]
    details["diff"] = ""
    pr = client.pull_request(REPO, 3)
    assert pr.head_sha == "f" * 40
    assert hub.calls[1] == f"GET /api/models/{REPO}/revision/refs/pr/3"
    assert not pr.touches_results


def test_without_diff_the_trees_at_base_and_head_are_compared(
    client: HfHubClient, hub: FakeHub
) -> None:
    del hub.details[(REPO, 3)]["diff"]
    base = "0" * 40

    def entry(path: str, oid: str) -> dict[str, object]:
        return {"type": "file", "path": path, "oid": oid, "size": 10}

    hub.trees[(REPO, base)] = [
        entry(".eval_results/hle.yaml", "1"),
        entry(".eval_results/old.yaml", "2"),
        entry(".eval_results/same.yaml", "3"),
    ]
    hub.trees[(REPO, HEAD)] = [
        entry(".eval_results/hle.yaml", "9"),
        entry(".eval_results/same.yaml", "3"),
        entry(".eval_results/gpqa.yaml", "4"),
    ]
    pr = client.pull_request(REPO, 3)
    assert pr.result_files == (".eval_results/gpqa.yaml", ".eval_results/hle.yaml")
    assert pr.removed_result_files == (".eval_results/old.yaml",)
    assert len(hub.calls) == 3


def test_read_file_reads_once_at_the_sha(client: HfHubClient, hub: FakeHub) -> None:
    hub.files[(REPO, HEAD, ".eval_results/gpqa.yaml")] = b"- value: 1\n"
    assert client.read_file(REPO, ".eval_results/gpqa.yaml", HEAD) == b"- value: 1\n"
    assert hub.calls == [f"GET /{REPO}/resolve/{HEAD}/.eval_results/gpqa.yaml"]
    assert hub.requests[0].headers["authorization"] == "Bearer hf_test_token"


def test_read_file_stops_one_byte_past_the_cap(client: HfHubClient, hub: FakeHub) -> None:
    hub.files[(REPO, HEAD, "big.yaml")] = b"x" * 5000
    assert client.read_file(REPO, "big.yaml", HEAD, max_bytes=100) == b"x" * 101


def test_dataset_file_and_missing_file(client: HfHubClient, hub: FakeHub) -> None:
    hub.files[("cais/hle", "d" * 40, "eval.yaml")] = b"name: HLE\n"
    assert client.read_file("cais/hle", "eval.yaml", "d" * 40, repo_type="dataset") == (
        b"name: HLE\n"
    )
    assert hub.calls == [f"GET /datasets/cais/hle/resolve/{'d' * 40}/eval.yaml"]
    with pytest.raises(HubPermanentError) as caught:
        client.read_file(REPO, ".eval_results/none.yaml", HEAD)
    assert caught.value.not_found
    assert caught.value.code == "EntryNotFound"


@pytest.mark.parametrize(
    "path", [".eval_results/../secrets.yaml", "../x.yaml", ".eval_results//a.yaml", "./a.yaml"]
)
def test_path_with_dot_segments_is_never_fetched(
    client: HfHubClient, hub: FakeHub, path: str
) -> None:
    with pytest.raises(HubPermanentError):
        client.read_file(REPO, path, HEAD)
    assert hub.calls == []


def test_dataset_revision_gives_canonical_id_and_sha(client: HfHubClient, hub: FakeHub) -> None:
    hub.datasets["idavidrein/gpqa"] = {
        "id": "Idavidrein/gpqa",
        "sha": "e" * 40,
        "tags": ["benchmark:official"],
    }
    revision = client.dataset_revision("idavidrein/GPQA", None)
    assert revision.repo_id == "Idavidrein/gpqa"
    assert revision.sha == "e" * 40
    assert revision.tags == ("benchmark:official",)
    assert hub.calls == ["GET /api/datasets/idavidrein/GPQA"]


def test_post_then_edit_comment(client: HfHubClient, hub: FakeHub) -> None:
    comment_id = client.post_comment(REPO, 3, "hello")
    client.edit_comment(REPO, 3, "65F000000000000000000003", "edited")
    assert comment_id == "c0ffee" + "0" * 18
    assert hub.posted == [
        (f"/api/models/{REPO}/discussions/3/comment", "hello"),
        (f"/api/models/{REPO}/discussions/3/comment/65f000000000000000000003/edit", "edited"),
    ]


def test_rate_limited_details_call_is_transient_with_the_reset_time(
    client: HfHubClient, hub: FakeHub
) -> None:
    hub.faults.append(
        httpx2.Response(
            429,
            json={"error": "rate limited"},
            headers={
                "RateLimit": '"api";r=0;t=55',
                "RateLimit-Policy": '"fixed window";"api";q=500;w=300',
            },
        )
    )
    with pytest.raises(HubTransientError) as caught:
        client.pull_request(REPO, 3)
    assert caught.value.retry_after == 55
    assert caught.value.status == 429
    assert client.pull_request(REPO, 3).head_sha == HEAD  # the next try succeeds


def test_server_error_on_comment_is_transient(client: HfHubClient, hub: FakeHub) -> None:
    hub.faults.append(httpx2.Response(502, text="bad gateway"))
    with pytest.raises(HubTransientError) as caught:
        client.post_comment(REPO, 3, "x")
    assert caught.value.retry_after is None


def test_forbidden_edit_is_permanent(client: HfHubClient, hub: FakeHub) -> None:
    hub.faults.append(httpx2.Response(403, json={"error": "no"}, headers={"X-Error-Message": "no"}))
    with pytest.raises(HubPermanentError) as caught:
        client.edit_comment(REPO, 3, "abc", "x")
    assert caught.value.status == 403


def test_missing_repo_is_permanent(client: HfHubClient) -> None:
    with pytest.raises(HubPermanentError) as caught:
        client.pull_request("acme/none", 1)
    assert caught.value.not_found
