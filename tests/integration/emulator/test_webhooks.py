"""Webhooks: registered through the settings API, delivered in the Hub's v3 shapes, retried."""

from __future__ import annotations

import time
from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd, WebhookInfo

from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.delivery import DeliverySettings
from evalbot_dev.emulator.faults import WebhookFaults
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, RecordingReceiver, client, running_emulator

pytestmark = pytest.mark.integration
SECRET = "s3cret-for-tests"


def register(
    hub: EmulatorServer, receiver: RecordingReceiver, domains: list[str] | None = None
) -> WebhookInfo:
    hook: WebhookInfo = client(hub, "evalbot").create_webhook(
        url=receiver.url,
        watched=[{"type": "user", "name": "alice"}],
        domains=domains or ["repo", "discussion"],
        secret=SECRET,
    )
    return hook


def open_pr(hub: EmulatorServer) -> int:
    info = client(hub, "bob").create_commit(
        MODEL,
        [CommitOperationAdd(".eval_results/gpqa.yaml", b"- value: 1\n")],
        commit_message="Add results",
        commit_description="Please merge",
        create_pr=True,
    )
    assert info.pr_num is not None
    num: int = info.pr_num
    return num


def arrived(receiver: RecordingReceiver, count: int) -> list[dict[str, Any]]:
    wait_until(lambda: len(receiver.received) >= count, what=f"{count} deliveries")
    return receiver.bodies()


def check_repo_part(body: dict[str, Any], hub: EmulatorServer, *, with_head: bool) -> None:
    repo = body["repo"]
    assert repo["type"] == "model"
    assert repo["name"] == MODEL
    assert repo["private"] is False
    assert repo["url"] == {"web": f"{hub.url}/{MODEL}", "api": f"{hub.url}/api/models/{MODEL}"}
    assert repo["owner"]["id"] == hub.state.accounts["alice"].id
    assert len(repo["id"]) == 24
    assert ("headSha" in repo) is with_head
    assert body["webhook"]["version"] == 3


def test_webhook_management_through_the_client(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    api = client(emulated_hub, "evalbot")
    hook = register(emulated_hub, webhook_receiver)
    assert hook.secret == SECRET
    assert hook.disabled is False
    assert [w.id for w in api.list_webhooks()] == [hook.id]
    assert api.get_webhook(hook.id).url == webhook_receiver.url
    assert api.disable_webhook(hook.id).disabled is True
    assert api.enable_webhook(hook.id).disabled is False
    updated = api.update_webhook(hook.id, domains=["discussion"])
    assert updated.domains == ["discussion"]
    assert client(emulated_hub, "bob").list_webhooks() == []
    api.delete_webhook(hook.id)
    assert api.list_webhooks() == []


def test_pr_opened_fires_discussion_create_and_repo_content(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    register(emulated_hub, webhook_receiver)
    num = open_pr(emulated_hub)
    bodies = arrived(webhook_receiver, 2)
    by_scope = {b["event"]["scope"]: b for b in bodies}
    assert set(by_scope) == {"discussion", "repo.content"}

    created = by_scope["discussion"]
    assert created["event"] == {"action": "create", "scope": "discussion"}
    check_repo_part(created, emulated_hub, with_head=False)
    discussion = created["discussion"]
    assert discussion["num"] == num
    assert discussion["isPullRequest"] is True
    assert discussion["status"] == "open"
    assert discussion["title"] == "Add results"
    assert discussion["author"] == {"id": emulated_hub.state.accounts["bob"].id}
    assert discussion["changes"] == {"base": "refs/heads/main"}
    assert discussion["url"]["api"] == f"{emulated_hub.url}/api/models/{MODEL}/discussions/{num}"
    comment = created["comment"]
    assert comment["content"] == "Please merge"
    assert comment["hidden"] is False
    assert comment["url"]["web"] == f"{discussion['url']['web']}#{comment['id']}"

    pushed = by_scope["repo.content"]
    assert pushed["event"] == {"action": "update", "scope": "repo.content"}
    check_repo_part(pushed, emulated_hub, with_head=True)
    head = client(emulated_hub, "alice").model_info(MODEL, revision=f"refs/pr/{num}").sha
    assert pushed["updatedRefs"] == [{"ref": f"refs/pr/{num}", "oldSha": None, "newSha": head}]
    assert pushed["repo"]["headSha"] == client(emulated_hub, "alice").model_info(MODEL).sha
    assert "discussion" not in pushed

    for delivery in webhook_receiver.received:
        assert delivery.headers["X-Webhook-Secret"] == SECRET
        assert delivery.headers["Content-Type"] == "application/json"
        assert len(delivery.headers["Webhook-Id"]) == 24
    assert len({d.headers["Webhook-Id"] for d in webhook_receiver.received}) == 2


def test_push_comment_edit_hide_status_merge(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    num = open_pr(emulated_hub)
    register(emulated_hub, webhook_receiver)
    bob, alice = client(emulated_hub, "bob"), client(emulated_hub, "alice")
    old = bob.model_info(MODEL, revision=f"refs/pr/{num}").sha
    new = bob.create_commit(
        MODEL, [CommitOperationAdd("x.txt", b"x")], commit_message="more", revision=f"refs/pr/{num}"
    ).oid
    push = arrived(webhook_receiver, 1)[0]
    assert push["event"]["scope"] == "repo.content"
    assert push["updatedRefs"] == [{"ref": f"refs/pr/{num}", "oldSha": old, "newSha": new}]

    posted = alice.comment_discussion(MODEL, num, "/evalbot recheck")
    alice.edit_discussion_comment(MODEL, num, posted.id, "/evalbot help")
    with pytest.warns(UserWarning, match="irreversible"):
        alice.hide_discussion_comment(MODEL, num, posted.id)
    comments = arrived(webhook_receiver, 4)[1:4]
    assert [(c["event"]["scope"], c["event"]["action"]) for c in comments] == [
        ("discussion.comment", "create"),
        ("discussion.comment", "update"),
        ("discussion.comment", "update"),
    ]
    assert [c["comment"].get("content") for c in comments] == [
        "/evalbot recheck",
        "/evalbot help",
        None,
    ]
    assert [c["comment"]["hidden"] for c in comments] == [False, False, True]
    assert {c["comment"]["id"] for c in comments} == {posted.id}
    assert comments[0]["comment"]["author"] == {"id": emulated_hub.state.accounts["alice"].id}
    assert "headSha" not in comments[0]["repo"]

    alice.change_discussion_status(MODEL, num, "closed")
    alice.change_discussion_status(MODEL, num, "open")
    alice.merge_pull_request(MODEL, num)
    bodies = arrived(webhook_receiver, 8)[4:]
    statuses = [
        (b["event"]["scope"], b["discussion"]["status"])
        for b in bodies
        if b["event"]["scope"] == "discussion"
    ]
    assert statuses == [("discussion", "closed"), ("discussion", "open"), ("discussion", "merged")]
    merged = [b for b in bodies if b["event"]["scope"] == "discussion"][-1]
    main = alice.model_info(MODEL).sha
    assert merged["discussion"]["changes"] == {"base": "refs/heads/main", "mergeCommitId": main}
    main_push = [b for b in bodies if b["event"]["scope"] == "repo.content"]
    assert main_push[0]["updatedRefs"][0]["ref"] == "refs/heads/main"
    assert main_push[0]["updatedRefs"][0]["newSha"] == main


def test_non_2xx_is_retried_with_the_same_webhook_id(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    register(emulated_hub, webhook_receiver, domains=["discussion"])
    webhook_receiver.statuses = [503, 500]
    client(emulated_hub, "bob").create_discussion(MODEL, title="Hello", description="hi")
    arrived(webhook_receiver, 3)
    assert len({d.headers["Webhook-Id"] for d in webhook_receiver.received}) == 1
    wait_until(
        lambda: emulated_hub.dispatcher.log()[-1].outcome == "delivered", what="final delivery"
    )
    log = emulated_hub.dispatcher.log()
    assert [(r.attempt, r.outcome, r.status) for r in log] == [
        (1, "retrying", 503),
        (2, "retrying", 500),
        (3, "delivered", 200),
    ]


def test_gives_up_after_max_attempts(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    register(emulated_hub, webhook_receiver, domains=["discussion"])
    webhook_receiver.statuses = [500] * 10
    client(emulated_hub, "bob").create_discussion(MODEL, title="Hello", description="hi")
    wait_until(
        lambda: emulated_hub.dispatcher.idle() and emulated_hub.dispatcher.log(), what="idle"
    )
    wait_until(emulated_hub.dispatcher.idle, what="idle")
    outcomes = [r.outcome for r in emulated_hub.dispatcher.log()]
    assert outcomes == ["retrying", "retrying", "retrying", "failed"]


def test_faults_drop_duplicate_reorder(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    register(emulated_hub, webhook_receiver)
    emulated_hub.dispatcher.set_faults(WebhookFaults(drop_next=1, duplicate_next=1))
    open_pr(emulated_hub)  # discussion/create dropped, repo.content duplicated
    arrived(webhook_receiver, 2)
    wait_until(emulated_hub.dispatcher.idle, what="idle")
    scopes = [b["event"]["scope"] for b in webhook_receiver.bodies()]
    assert scopes == ["repo.content", "repo.content"]
    assert len({d.headers["Webhook-Id"] for d in webhook_receiver.received}) == 1
    assert emulated_hub.dispatcher.log()[0].outcome == "dropped"


def test_reorder_and_delay(hub_env: object, webhook_receiver: RecordingReceiver) -> None:
    with running_emulator(delivery=DeliverySettings(backoff_s=0.05)) as hub:
        register(hub, webhook_receiver, domains=["discussion"])
        num = client(hub, "bob").create_discussion(MODEL, title="t", description="d").num
        arrived(webhook_receiver, 1)
        webhook_receiver.received.clear()
        hub.dispatcher.set_faults(WebhookFaults(reorder_window=3))
        alice = client(hub, "alice")
        for text in ("one", "two", "three"):
            alice.comment_discussion(MODEL, num, text)
        arrived(webhook_receiver, 3)
        assert [b["comment"]["content"] for b in webhook_receiver.bodies()] == [
            "three",
            "two",
            "one",
        ]

        webhook_receiver.received.clear()
        hub.dispatcher.set_faults(WebhookFaults(delay_s=0.4))
        started = time.monotonic()
        alice.comment_discussion(MODEL, num, "late")
        arrived(webhook_receiver, 1)
        assert time.monotonic() - started >= 0.4


def test_disabled_and_unwatched_webhooks_get_nothing(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    api = client(emulated_hub, "evalbot")
    hook = register(emulated_hub, webhook_receiver)
    api.disable_webhook(hook.id)
    other = api.create_webhook(
        url=webhook_receiver.url,
        watched=[{"type": "model", "name": "evals-org/team-model"}],
        domains=["repo"],
    )
    open_pr(emulated_hub)
    client(emulated_hub, "bob").create_discussion(
        "evals-org/team-model", title="t", description="d"
    )
    wait_until(emulated_hub.dispatcher.idle, what="idle")
    assert webhook_receiver.received == []
    assert other.secret is None


def test_a_replay_resends_with_the_same_id_to_the_current_secret(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    hook = register(emulated_hub, webhook_receiver, domains=["discussion"])
    webhook_receiver.statuses = [403]
    client(emulated_hub, "bob").create_discussion(MODEL, title="Hello", description="hi")
    first = arrived(webhook_receiver, 1)
    wait_until(emulated_hub.dispatcher.idle, what="idle")
    (refused, accepted) = emulated_hub.dispatcher.log()  # retried with the old secret, accepted
    assert (refused.status, accepted.status) == (403, 200)
    client(emulated_hub, "evalbot").update_webhook(
        hook.id,
        url=webhook_receiver.url,
        watched=[{"type": "user", "name": "alice"}],
        domains=["discussion"],
        secret="rotated-secret",
    )
    emulated_hub.dispatcher.replay(refused.delivery_id)
    replayed = arrived(webhook_receiver, 3)[2]
    assert replayed == first[0]
    headers = [d.headers for d in webhook_receiver.received]
    assert [h["X-Webhook-Secret"] for h in headers] == [SECRET, SECRET, "rotated-secret"]
    assert len({h["Webhook-Id"] for h in headers}) == 1
    with pytest.raises(KeyError):
        emulated_hub.dispatcher.replay("no-such-delivery")
