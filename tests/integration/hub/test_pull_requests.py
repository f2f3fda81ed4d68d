"""`HfHubClient.pull_request` and friends against PRs opened on the emulator by the real client."""

from __future__ import annotations

import pytest

from bot.hub.client import HfHubClient
from bot.hub.pulls import PrStatus
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.server import EmulatorServer
from tests.integration.hub.conftest import GPQA_ENTRY, open_pr, push_to_pr
from tests.support.emulator import MODEL, RecordingReceiver, client

pytestmark = pytest.mark.integration

RESULTS = ".eval_results/gpqa.yaml"
SEEDED = ".eval_results/gpqa-mini.yaml"


def pr_ref_sha(hub: EmulatorServer, num: int) -> str:
    refs = client(hub, "alice").list_repo_refs(MODEL, include_pull_requests=True)
    return str(next(r.target_commit for r in refs.pull_requests if r.ref == f"refs/pr/{num}"))


def test_open_pr_head_files_and_comment_flags(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    num = open_pr(client(emulated_hub, "bob"), {RESULTS: GPQA_ENTRY})
    client(emulated_hub, "alice").comment_discussion(MODEL, num, "/evalbot recheck")
    client(emulated_hub, "carol").comment_discussion(MODEL, num, "a stranger here")

    pr = bot.pull_request(MODEL, num)

    assert pr.is_pull_request
    assert pr.status is PrStatus.OPEN
    assert pr.head_sha == pr_ref_sha(emulated_hub, num)
    assert pr.target_branch == "refs/heads/main"
    assert pr.author == "bob"
    assert pr.result_files == (RESULTS,)
    assert pr.removed_result_files == ()
    assert pr.misplaced_files == ()
    assert len(pr.commits) == 1
    assert pr.commits[0].created_at is not None
    by_author = {c.author: c for c in pr.comments}
    assert by_author["alice"].is_owner
    assert not by_author["alice"].is_org_member
    assert not by_author["bob"].is_owner
    assert not by_author["bob"].is_org_member
    assert not by_author["carol"].is_owner  # carol is in evals-org, which does not own alice/model
    assert by_author["alice"].by_maintainer(MODEL)
    assert not by_author["bob"].by_maintainer(MODEL)
    assert all(c.author_id for c in pr.comments)
    assert bot.read_file(MODEL, RESULTS, pr.head_sha) == GPQA_ENTRY


def test_org_member_flag_on_an_org_repo(emulated_hub: EmulatorServer, bot: HfHubClient) -> None:
    from huggingface_hub import CommitOperationAdd

    org_model = "evals-org/team-model"
    info = client(emulated_hub, "bob").create_commit(
        org_model, [CommitOperationAdd(RESULTS, GPQA_ENTRY)], commit_message="r", create_pr=True
    )
    client(emulated_hub, "carol").comment_discussion(org_model, int(info.pr_num), "lgtm")
    pr = bot.pull_request(org_model, int(info.pr_num))
    carol = next(c for c in pr.comments if c.author == "carol")
    bob = next(c for c in pr.comments if c.author == "bob")
    assert carol.is_org_member
    assert not carol.is_owner
    assert carol.by_maintainer(org_model)
    assert not bob.is_org_member
    assert not bob.by_maintainer(org_model)


def test_second_push_moves_the_head_and_the_diff_keeps_the_file(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    bob = client(emulated_hub, "bob")
    num = open_pr(bob, {RESULTS: GPQA_ENTRY})
    first = bot.pull_request(MODEL, num)
    changed = GPQA_ENTRY.replace(b"0.42", b"0.43")

    second_sha = push_to_pr(bob, num, RESULTS, changed)
    second = bot.pull_request(MODEL, num)

    assert second.head_sha == second_sha == pr_ref_sha(emulated_hub, num)
    assert second.head_sha != first.head_sha
    assert [c.oid for c in second.commits] == [first.head_sha, second_sha]
    assert second.commits[1].parents == (first.head_sha,)
    assert second.result_files == (RESULTS,)
    assert bot.read_file(MODEL, RESULTS, second_sha) == changed
    assert first.head_sha is not None
    assert bot.read_file(MODEL, RESULTS, first.head_sha) == GPQA_ENTRY  # files by SHA stay put


def test_removed_and_misplaced_files(emulated_hub: EmulatorServer, bot: HfHubClient) -> None:
    num = open_pr(
        client(emulated_hub, "alice"),
        {
            SEEDED: None,
            ".eval_results/hle.yml": GPQA_ENTRY,
            ".eval_results/HLE.yaml": GPQA_ENTRY,
            ".eval_results/mmlu.YAML": GPQA_ENTRY,
            ".eval_results/old/gpqa.yaml": GPQA_ENTRY,
            ".EVAL_RESULTS/x.yaml": GPQA_ENTRY,
            "notes/readme.md": b"unrelated\n",
        },
    )
    pr = bot.pull_request(MODEL, num)
    assert pr.removed_result_files == (SEEDED,)
    assert pr.result_files == (".eval_results/HLE.yaml",)  # only the suffix is case-sensitive
    assert pr.misplaced_files == (
        ".EVAL_RESULTS/x.yaml",
        ".eval_results/hle.yml",
        ".eval_results/mmlu.YAML",
        ".eval_results/old/gpqa.yaml",
    )


def test_merged_and_closed_prs_report_their_status(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    alice = client(emulated_hub, "alice")
    merged = open_pr(client(emulated_hub, "bob"), {RESULTS: GPQA_ENTRY})
    closed = open_pr(client(emulated_hub, "bob"), {".eval_results/other.yaml": GPQA_ENTRY})
    head = bot.pull_request(MODEL, merged).head_sha
    alice.merge_pull_request(MODEL, merged)
    alice.change_discussion_status(MODEL, closed, "closed")

    after_merge = bot.pull_request(MODEL, merged)
    assert after_merge.status is PrStatus.MERGED
    assert after_merge.head_sha == head
    assert after_merge.result_files == (RESULTS,)
    after_close = bot.pull_request(MODEL, closed)
    assert after_close.status is PrStatus.CLOSED
    assert after_close.result_files == (".eval_results/other.yaml",)


def test_a_discussion_is_not_a_pull_request(emulated_hub: EmulatorServer, bot: HfHubClient) -> None:
    made = client(emulated_hub, "bob").create_discussion(MODEL, title="Question", description="hi")
    pr = bot.pull_request(MODEL, made.num)
    assert not pr.is_pull_request
    assert pr.head_sha is None
    assert pr.result_files == ()
    assert not pr.touches_results
    assert [c.raw for c in pr.comments] == ["hi"]


def test_post_and_edit_a_comment_read_back(emulated_hub: EmulatorServer, bot: HfHubClient) -> None:
    num = open_pr(client(emulated_hub, "bob"), {RESULTS: GPQA_ENTRY})
    comment_id = bot.post_comment(MODEL, num, "<!-- evalbot -->\nchecking…")
    bot.edit_comment(MODEL, num, comment_id, "<!-- evalbot -->\nall good")

    pr = bot.pull_request(MODEL, num)
    mine = pr.find_bot_comment("evalbot", "<!-- evalbot -->")
    assert mine is not None
    assert mine.id == comment_id
    assert mine.raw == "<!-- evalbot -->\nall good"
    assert mine.edited
    assert pr.comment(comment_id.upper()) == mine
    assert [c.content for c in emulated_hub.comments(MODEL, num) if c.author == "evalbot"] == [
        "<!-- evalbot -->\nall good"
    ]


def test_an_empty_draft_pr_resolves_its_head_from_the_ref(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    bob = client(emulated_hub, "bob")
    draft = bob.create_pull_request(MODEL, title="Scores soon", description="empty for now")
    emulated_hub.faults.reset_counters()

    pr = bot.pull_request(MODEL, draft.num)
    calls = emulated_hub.counters()

    assert pr.status is PrStatus.DRAFT
    assert pr.commits == ()
    assert pr.head_sha == pr_ref_sha(emulated_hub, draft.num)
    assert not pr.touches_results
    assert calls == {"discussions.details": 1, "repos.info_at_revision": 1}
    pushed = push_to_pr(bob, draft.num, RESULTS, GPQA_ENTRY)
    after = bot.pull_request(MODEL, draft.num)
    assert after.head_sha == pushed
    assert after.result_files == (RESULTS,)


def test_without_a_diff_the_files_come_from_tree_listings(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    """A closed PR whose ref was deleted: the Hub has no head to diff; the timeline still does."""
    num = open_pr(client(emulated_hub, "bob"), {RESULTS: GPQA_ENTRY, SEEDED: None})
    head = bot.pull_request(MODEL, num).head_sha
    client(emulated_hub, "alice").change_discussion_status(MODEL, num, "closed")
    with emulated_hub.state.locked() as state:
        state.delete_pr_ref(state.find_repo("model", MODEL), num)
    emulated_hub.faults.reset_counters()

    pr = bot.pull_request(MODEL, num)

    assert not pr.has_diff
    assert pr.status is PrStatus.CLOSED
    assert pr.head_sha == head
    assert pr.result_files == (RESULTS,)
    assert pr.removed_result_files == (SEEDED,)
    assert emulated_hub.counters() == {"discussions.details": 1, "repos.tree": 2}


def test_webhook_comment_ids_find_the_comment_and_its_flags(
    emulated_hub: EmulatorServer, bot: HfHubClient, webhook_receiver: RecordingReceiver
) -> None:
    """The receiver knows a commenter only by ids (docs/hub-api.md#maintainers): they must match the
    details."""
    emulated_hub.state.add_webhook(
        "evalbot",
        webhook_receiver.url,
        [{"type": "model", "name": MODEL}],
        ["repo", "discussion"],
        "s3cret",
    )
    num = open_pr(client(emulated_hub, "bob"), {RESULTS: GPQA_ENTRY})
    client(emulated_hub, "alice").comment_discussion(MODEL, num, "/evalbot recheck")
    payloads = wait_until(
        lambda: (
            [
                body
                for body in webhook_receiver.bodies()
                if body["event"]["scope"] in ("discussion", "discussion.comment")
            ]
            if len(webhook_receiver.bodies("discussion.comment")) == 1
            and len(webhook_receiver.bodies("discussion")) == 1
            else None
        ),
        what="the PR and the comment webhooks",
    )
    pr = bot.pull_request(MODEL, num)
    for payload in payloads:
        found = pr.comment(payload["comment"]["id"])
        assert found is not None
        assert found.author_id == payload["comment"]["author"]["id"]
        assert found.raw == payload["comment"]["content"]
    pushed = wait_until(lambda: webhook_receiver.bodies("repo.content"), what="the ref webhook")
    assert pushed[0]["updatedRefs"] == [
        {"ref": f"refs/pr/{num}", "oldSha": None, "newSha": pr.head_sha}
    ]
    command = pr.comment(webhook_receiver.bodies("discussion.comment")[0]["comment"]["id"])
    assert command is not None
    assert command.author == "alice"
    assert command.by_maintainer(MODEL)


def test_unusual_file_names_are_read_back_exactly(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    """Git quotes these in the PR diff; the bot unquotes them and fetches each by its real name."""
    names = [
        '.eval_results/a"q.yaml',
        ".eval_results/my résults.yaml",
        ".eval_results/sp ace.yaml",
        ".eval_results/tab\there.yaml",
    ]
    contents = {
        name: GPQA_ENTRY + f"  notes: {index}\n".encode() for index, name in enumerate(names)
    }
    num = open_pr(client(emulated_hub, "bob"), dict(contents))
    pr = bot.pull_request(MODEL, num)
    assert pr.result_files == tuple(sorted(names))
    assert pr.head_sha is not None
    for name in names:
        assert bot.read_file(MODEL, name, pr.head_sha) == contents[name]


def test_dataset_revision_gives_the_canonical_id_and_sha(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    from tests.support.emulator import BENCHMARKS

    info = client(emulated_hub, "alice").dataset_info(BENCHMARKS[0])
    found = bot.dataset_revision(BENCHMARKS[0].upper(), None)
    assert found.repo_id == BENCHMARKS[0]
    assert found.sha == info.sha
    assert emulated_hub.state.benchmark_tag in found.tags
    assert bot.dataset_revision(BENCHMARKS[0], info.sha).sha == info.sha
    assert bot.dataset_revision(BENCHMARKS[0], info.sha[:12]).sha == info.sha
