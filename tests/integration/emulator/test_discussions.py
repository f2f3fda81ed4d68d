"""Discussions and pull requests, driven only through the public `huggingface_hub` API."""

from __future__ import annotations

import pytest
from huggingface_hub import CommitOperationAdd, CommitOperationDelete
from huggingface_hub.errors import HfHubHTTPError, RevisionNotFoundError

from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, ORG_MODEL, client

pytestmark = pytest.mark.integration
RESULT = b"- dataset:\n    id: emulator-samples/gpqa-mini\n    task_id: diamond\n  value: 61.2\n"


def open_pr(hub: EmulatorServer, user: str = "bob", repo: str = MODEL) -> int:
    info = client(hub, user).create_commit(
        repo,
        [CommitOperationAdd(".eval_results/gpqa.yaml", RESULT)],
        commit_message="Add GPQA results",
        commit_description="Scores from our run.",
        create_pr=True,
    )
    assert info.pr_num is not None
    assert info.pr_revision == f"refs/pr/{info.pr_num}"
    num: int = info.pr_num
    return num


def test_pr_details_carry_events_diff_and_author_flags(emulated_hub: EmulatorServer) -> None:
    num = open_pr(emulated_hub)
    alice = client(emulated_hub, "alice")
    alice.comment_discussion(MODEL, num, "Thanks, checking.")
    details = alice.get_discussion_details(MODEL, num)
    assert details.is_pull_request
    assert details.status == "open"
    assert details.title == "Add GPQA results"
    assert details.author == "bob"
    assert details.target_branch == "refs/heads/main"
    assert details.conflicting_files == []
    assert details.git_reference == f"refs/pr/{num}"
    assert details.merge_commit_oid is None
    assert details.diff is not None
    assert "+++ b/.eval_results/gpqa.yaml" in details.diff
    assert "+  value: 61.2" in details.diff
    kinds = [(e.type, e.author) for e in details.events]
    assert kinds == [("comment", "bob"), ("commit", "bob"), ("comment", "alice")]
    description, commit, _reply = details.events
    assert description.content == "Scores from our run."
    assert commit.summary == "Add GPQA results"
    flags = [
        (e._event["author"]["isOwner"], e._event["author"]["isOrgMember"]) for e in details.events
    ]
    assert flags == [(False, False), (False, False), (True, False)]
    assert details.created_at.tzinfo is not None


def test_org_member_flag_on_org_repo(emulated_hub: EmulatorServer) -> None:
    num = open_pr(emulated_hub, "bob", ORG_MODEL)
    client(emulated_hub, "dave").comment_discussion(ORG_MODEL, num, "/evalbot recheck")
    event = client(emulated_hub, None).get_discussion_details(ORG_MODEL, num).events[-1]
    assert event._event["author"]["name"] == "dave"
    assert event._event["author"]["isOrgMember"] is True
    assert event._event["author"]["isOwner"] is False


def test_push_to_pr_ref_adds_a_commit_event(emulated_hub: EmulatorServer) -> None:
    num = open_pr(emulated_hub)
    bob = client(emulated_hub, "bob")
    pushed = bob.create_commit(
        MODEL,
        [CommitOperationAdd(".eval_results/gpqa.yaml", RESULT.replace(b"61.2", b"62.0"))],
        commit_message="Fix value",
        revision=f"refs/pr/{num}",
    )
    assert bob.model_info(MODEL, revision=f"refs/pr/{num}").sha == pushed.oid
    details = bob.get_discussion_details(MODEL, num)
    assert [e.type for e in details.events] == ["comment", "commit", "commit"]
    assert details.events[-1].oid == pushed.oid
    assert "+  value: 62.0" in (details.diff or "")
    # A stranger may not push to somebody else's PR.
    with pytest.raises(HfHubHTTPError) as caught:
        client(emulated_hub, "carol").create_commit(
            MODEL,
            [CommitOperationDelete(".eval_results/gpqa.yaml")],
            commit_message="sabotage",
            revision=f"refs/pr/{num}",
        )
    assert caught.value.response.status_code == 403


def test_comment_edit_hide(emulated_hub: EmulatorServer) -> None:
    num = open_pr(emulated_hub)
    bot = client(emulated_hub, "evalbot")
    posted = bot.comment_discussion(MODEL, num, "<!-- evalbot:v1 -->\nchecking...")
    assert posted.author == "evalbot"
    assert posted.edited is False
    edited = bot.edit_discussion_comment(MODEL, num, posted.id, "<!-- evalbot:v1 -->\nall good")
    assert edited.id == posted.id
    assert edited.edited is True
    assert edited.content == "<!-- evalbot:v1 -->\nall good"
    assert edited.number_of_edits == 2
    # Only the author edits a comment.
    with pytest.raises(HfHubHTTPError) as caught:
        client(emulated_hub, "bob").edit_discussion_comment(MODEL, num, posted.id, "hijacked")
    assert caught.value.response.status_code == 403
    with pytest.warns(UserWarning, match="irreversible"):  # the client's own warning
        hidden = client(emulated_hub, "alice").hide_discussion_comment(MODEL, num, posted.id)
    assert hidden.hidden is True
    events = bot.get_discussion_details(MODEL, num).events
    assert [e.hidden for e in events if e.type == "comment"] == [False, True]


def test_status_title_and_listing(emulated_hub: EmulatorServer) -> None:
    num = open_pr(emulated_hub)
    alice = client(emulated_hub, "alice")
    discussion = alice.create_discussion(MODEL, title="A question", description="Why?")
    assert discussion.is_pull_request is False
    closed = alice.change_discussion_status(MODEL, num, "closed", comment="Disputed score")
    assert closed.new_status == "closed"
    renamed = alice.rename_discussion(MODEL, num, "Add GPQA results (disputed)")
    assert (renamed.old_title, renamed.new_title) == (
        "Add GPQA results",
        "Add GPQA results (disputed)",
    )
    with pytest.raises(HfHubHTTPError) as caught:
        client(emulated_hub, "carol").change_discussion_status(MODEL, num, "open")
    assert caught.value.response.status_code == 403
    reopened = client(emulated_hub, "bob").change_discussion_status(MODEL, num, "open")
    assert reopened.new_status == "open"
    listed = {(d.num, d.is_pull_request, d.status) for d in alice.get_repo_discussions(MODEL)}
    assert listed == {(num, True, "open"), (discussion.num, False, "open")}
    prs = [d.num for d in alice.get_repo_discussions(MODEL, discussion_type="pull_request")]
    assert prs == [num]
    by_bob = [d.num for d in alice.get_repo_discussions(MODEL, author="bob")]
    assert by_bob == [num]


def test_created_pull_request_is_a_draft(emulated_hub: EmulatorServer) -> None:
    pr = client(emulated_hub, "bob").create_pull_request(MODEL, title="Empty PR")
    assert pr.status == "draft"
    assert pr.is_pull_request is True
    refs = client(emulated_hub, "bob").list_repo_refs(MODEL, include_pull_requests=True)
    assert [p.ref for p in refs.pull_requests or []] == [f"refs/pr/{pr.num}"]


def test_merge_applies_the_pr_to_main(emulated_hub: EmulatorServer) -> None:
    num = open_pr(emulated_hub)
    with pytest.raises(HfHubHTTPError) as caught:
        client(emulated_hub, "bob").merge_pull_request(MODEL, num)
    assert caught.value.response.status_code == 403
    alice = client(emulated_hub, "alice")
    alice.merge_pull_request(MODEL, num, comment="Merging, thanks!")
    details = alice.get_discussion_details(MODEL, num)
    assert details.status == "merged"
    main = alice.model_info(MODEL)
    assert details.merge_commit_oid == main.sha
    assert ".eval_results/gpqa.yaml" in [s.rfilename for s in main.siblings or []]
    assert [e.type for e in details.events][-2:] == ["comment", "status-change"]
    assert details.events[-1].new_status == "merged"
    with pytest.raises(HfHubHTTPError):
        alice.merge_pull_request(MODEL, num)


def test_conflicting_prs_report_files_and_refuse_to_merge(emulated_hub: EmulatorServer) -> None:
    first, second = open_pr(emulated_hub, "bob"), open_pr(emulated_hub, "carol")
    alice = client(emulated_hub, "alice")
    alice.merge_pull_request(MODEL, first)
    assert alice.get_discussion_details(MODEL, second).conflicting_files == []  # same content
    third = client(emulated_hub, "carol").create_commit(
        MODEL,
        [CommitOperationAdd(".eval_results/gpqa.yaml", b"- value: 1\n")],
        commit_message="Other value",
        create_pr=True,
        parent_commit=alice.list_repo_commits(MODEL)[1].commit_id,
    )
    assert third.pr_num is not None
    assert alice.get_discussion_details(MODEL, third.pr_num).conflicting_files == [
        ".eval_results/gpqa.yaml"
    ]
    with pytest.raises(HfHubHTTPError) as caught:
        alice.merge_pull_request(MODEL, third.pr_num)
    assert caught.value.response.status_code == 409


def test_deleted_pr_ref_is_a_missing_revision(emulated_hub: EmulatorServer) -> None:
    num = open_pr(emulated_hub)
    repo = emulated_hub.state.get_repo(None, "model", MODEL)
    emulated_hub.state.delete_pr_ref(repo, num)
    with pytest.raises(RevisionNotFoundError):
        client(emulated_hub, "alice").model_info(MODEL, revision=f"refs/pr/{num}")
