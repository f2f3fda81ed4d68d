"""Routing real-shaped Hub payloads (tests/samples/webhooks) to events or ignore reasons."""

from __future__ import annotations

import copy
import json
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.queue.events import PrEvent, parse_command
from bot.receiver.events import IGNORE_REASONS, Ignored, Routed, RoutingContext, route_delivery
from tests.support.samples import webhook, webhook_names

BOT = "evalbot-ci"
BOT_ID = "6640ffee00112233445566bb"
NOW = "2026-11-22T08:00:00.000Z"


def route(payload: object, webhook_id: str | None = None) -> Routed | Ignored:
    context = RoutingContext(
        bot_name=BOT, received_at=NOW, webhook_id=webhook_id, bot_user_id=BOT_ID
    )
    return route_delivery(payload, context)


def routed(name: str, webhook_id: str | None = None) -> Routed:
    outcome = route(webhook(name), webhook_id)
    assert isinstance(outcome, Routed), outcome
    return outcome


@pytest.mark.parametrize(
    ("name", "kind", "num", "head"),
    [
        ("pr_opened.discussion_create", "opened", 7, None),
        ("pr_opened_draft.discussion_create", "opened", 8, None),
        (
            "pr_opened.repo_content_new_ref",
            "opened",
            7,
            "a3c5e7f9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1",
        ),
        (
            "pr_push.repo_content_update",
            "updated",
            7,
            "b4d6f8a0c2e4a6b8d0f2c4e6a8b0d2f4c6e8a0b2",
        ),
        (
            "private_repo_push_with_unknown_fields.repo_content_update",
            "updated",
            7,
            "b4d6f8a0c2e4a6b8d0f2c4e6a8b0d2f4c6e8a0b2",
        ),
        ("pr_merged.discussion_update", "merged", 7, None),
        ("pr_closed.discussion_update", "closed", 7, None),
        ("pr_reopened.discussion_update", "reopened", 7, None),
    ],
)
def test_pr_lifecycle_events_become_work(name: str, kind: str, num: int, head: str | None) -> None:
    event = routed(name).event
    assert (event.kind, event.repo_id, event.pr_num, event.head_sha) == (
        kind,
        "acme-labs/tiny-llm",
        num,
        head,
    )
    assert event.command is None
    assert event.received_at == NOW


def test_a_pr_on_a_dataset_repo_is_work_for_the_benchmark_check() -> None:
    event = routed("dataset_pr_opened.discussion_create").event
    assert (event.kind, event.repo_id, event.pr_num, event.repo_type) == (
        "opened",
        "acme-labs/gpqa-mini",
        2,
        "dataset",
    )
    assert routed("dataset_pr_opened.discussion_create").dedupe.key == (
        "opened:datasets/acme-labs/gpqa-mini:2"
    )
    assert PrEvent.from_json(event.to_json()) == event
    legacy = {k: v for k, v in event.to_json().items() if k != "repo_type"}
    assert PrEvent.from_json(legacy).repo_type == "model"


@pytest.mark.parametrize(
    ("name", "command", "author"),
    [
        (
            "comment_mention_recheck.discussion_comment_create",
            "recheck",
            "6650a0aa0b1c2d3e4f567890",
        ),
        ("comment_slash_recheck.discussion_comment_create", "recheck", "6650a0aa0b1c2d3e4f567890"),
        ("comment_help.discussion_comment_create", "help", "6651aa11bb22cc33dd44ee55"),
    ],
)
def test_commands_carry_comment_and_author(name: str, command: str, author: str) -> None:
    payload = webhook(name)
    event = routed(name).event
    assert event.kind == "command"
    assert event.command == command
    assert event.comment_id == payload["comment"]["id"]
    assert event.comment_author_id == author


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("comment_plain.discussion_comment_create", "not-a-command"),
        ("comment_unknown_command.discussion_comment_create", "unknown-command"),
        ("comment_by_bot.discussion_comment_create", "own-comment"),
        ("comment_edited.discussion_comment_update", "comment-edited"),
        ("comment_hidden.discussion_comment_update", "comment-hidden"),
        ("comment_on_discussion.discussion_comment_create", "not-a-pull-request"),
        ("discussion_opened.discussion_create", "not-a-pull-request"),
        ("main_push.repo_content_update", "not-a-pr-ref"),
        ("pr_ref_deleted.repo_content_update", "ref-deleted"),
        ("space_new_pr_ref.repo_content_update", "not-a-model-repo"),
        ("repo_config_update", "unknown-scope"),
        ("unknown_subscope.repo_config_dois", "unknown-scope"),
        ("unknown_action.discussion_move", "unknown-action"),
        ("version_4.discussion_create", "unsupported-version"),
        ("pr_draft_title_change.discussion_update", "status-unchanged"),
    ],
)
def test_irrelevant_deliveries_are_ignored_with_a_reason(name: str, reason: str) -> None:
    outcome = route(webhook(name))
    assert outcome == Ignored(reason) or (isinstance(outcome, Ignored) and outcome.reason == reason)
    assert reason in IGNORE_REASONS


def test_every_sample_is_covered_by_a_test() -> None:
    # A new sample file must come with an expectation above, not sit unused.
    source = Path(__file__).read_text(encoding="utf-8")
    assert [name for name in webhook_names() if f'"{name}"' not in source] == []


def test_unknown_command_reports_the_word_for_metrics() -> None:
    outcome = route(webhook("comment_unknown_command.discussion_comment_create"))
    assert outcome == Ignored("unknown-command", command="merge")


def test_own_comment_is_only_recognised_when_the_bot_id_is_configured() -> None:
    payload = webhook("comment_by_bot.discussion_comment_create")
    payload["comment"]["content"] = "@evalbot-ci help"
    without_id = route_delivery(payload, RoutingContext(bot_name=BOT, received_at=NOW))
    assert isinstance(without_id, Routed)
    assert route(payload) == Ignored("own-comment")


# --- dedupe keys -----------------------------------------------------------------------------


def test_both_webhooks_of_one_pr_open_share_a_dedupe_key() -> None:
    created = routed("pr_opened.discussion_create", webhook_id="wh-1")
    new_ref = routed("pr_opened.repo_content_new_ref", webhook_id="wh-2")
    assert created.dedupe == new_ref.dedupe
    assert created.dedupe.key == "opened:acme-labs/tiny-llm:7"
    assert (created.event.delivery_id, new_ref.event.delivery_id) == ("wh-1", "wh-2")


def test_webhook_id_is_the_key_when_present() -> None:
    first = routed("pr_push.repo_content_update", webhook_id="6651f00dcafe")
    again = routed("pr_push.repo_content_update", webhook_id="6651f00dcafe")
    other = routed("pr_push.repo_content_update", webhook_id="6651f00dbeef")
    assert first.dedupe == again.dedupe
    assert first.dedupe.key == "wid:6651f00dcafe"
    assert first.dedupe.ttl_s == 86400
    assert other.dedupe != first.dedupe


def test_without_webhook_id_the_digest_of_identifying_fields_is_the_key() -> None:
    push = webhook("pr_push.repo_content_update")
    same = copy.deepcopy(push)
    same["repo"]["futureField"] = "irrelevant"  # not an identifying field
    later = copy.deepcopy(push)
    later["updatedRefs"][0]["newSha"] = "d" * 40
    keys = [routed_payload(p).dedupe.key for p in (push, same, later)]
    assert keys[0] == keys[1] != keys[2]
    assert keys[0].startswith("d:")
    assert routed_payload(push).event.delivery_id == "d-" + keys[0][2:34]


def test_two_commands_in_one_pr_are_two_events() -> None:
    first = webhook("comment_slash_recheck.discussion_comment_create")
    second = copy.deepcopy(first)
    second["comment"]["id"] = "6651e1f2a3b4c5d6e7f80999"
    assert routed_payload(first).dedupe != routed_payload(second).dedupe


def test_close_and_reopen_without_webhook_id_use_the_short_window() -> None:
    assert routed("pr_closed.discussion_update").dedupe.ttl_s == 120
    assert routed("pr_reopened.discussion_update").dedupe.ttl_s == 120
    assert routed("pr_merged.discussion_update").dedupe.ttl_s == 86400
    assert routed("pr_closed.discussion_update", webhook_id="abc").dedupe.ttl_s == 86400


def test_an_unusable_webhook_id_header_falls_back_to_the_digest() -> None:
    outcome = routed("pr_push.repo_content_update", webhook_id="has space\x00" + "x" * 300)
    assert outcome.dedupe.key.startswith("d:")


def routed_payload(payload: dict[str, Any]) -> Routed:
    outcome = route(payload)
    assert isinstance(outcome, Routed), outcome
    return outcome


# --- leniency --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        "text",
        {},
        {"webhook": {"version": 3}},
        {"webhook": {"version": True}, "event": {"scope": "discussion", "action": "create"}},
        {"webhook": {"version": "3"}, "event": {"scope": "discussion", "action": "create"}},
        {"webhook": {"version": 3}, "event": "discussion", "repo": {"name": "a/b"}},
        {"webhook": {"version": 3}, "event": {"scope": 1, "action": []}, "repo": None},
    ],
)
def test_odd_payloads_are_ignored_not_raised(payload: object) -> None:
    assert isinstance(route(payload), Ignored)


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    [
        (("discussion", "num"), "7", "malformed"),
        (("discussion", "num"), True, "malformed"),
        (("discussion", "num"), 0, "malformed"),
        (("discussion", "num"), 10**12, "malformed"),
        (("discussion", "isPullRequest"), "true", "not-a-pull-request"),
        (("repo", "name"), "../../etc/passwd", "malformed"),
        (("repo", "name"), "a" * 300, "malformed"),
        (("repo", "type"), "MODEL", "not-a-model-repo"),
    ],
)
def test_wrongly_typed_fields_do_not_pass(
    path: tuple[str, str], value: object, reason: str
) -> None:
    payload = webhook("pr_opened.discussion_create")
    payload[path[0]][path[1]] = value
    outcome = route(payload)
    assert isinstance(outcome, Ignored)
    assert outcome.reason == reason


def test_a_non_hex_head_sha_is_dropped_but_the_push_still_counts() -> None:
    payload = webhook("pr_push.repo_content_update")
    payload["updatedRefs"][0]["newSha"] = "not-a-sha"
    event = routed_payload(payload).event
    assert (event.kind, event.head_sha) == ("updated", None)


def test_first_pr_ref_of_a_multi_ref_push_is_used() -> None:
    payload = webhook("pr_push.repo_content_update")
    payload["updatedRefs"].insert(
        0, {"ref": "refs/heads/main", "oldSha": "a" * 40, "newSha": "b" * 40}
    )
    assert routed_payload(payload).event.pr_num == 7


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSONISH)
def test_route_never_raises_on_any_json(payload: object) -> None:
    outcome = route(payload)
    assert isinstance(outcome, Routed) or outcome.reason in IGNORE_REASONS


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(webhook_names()),
    st.lists(st.sampled_from(["event", "repo", "discussion", "comment", "updatedRefs", "webhook"])),
    JSONISH,
)
def test_route_never_raises_on_mutated_samples(name: str, fields: list[str], junk: object) -> None:
    payload = webhook(name)
    for field in fields:
        payload[field] = junk
    outcome = route(payload)
    if isinstance(outcome, Ignored):
        assert outcome.reason in IGNORE_REASONS  # a metrics label: the vocabulary is closed
    else:
        # Whatever got through is a well-formed, JSON-round-trippable event.
        assert PrEvent.from_json(json.loads(json.dumps(outcome.event.to_json()))) == outcome.event


# --- commands --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "word"),
    [
        ("@evalbot-ci recheck", "recheck"),
        ("  @EvalBot-CI   RECHECK  \nplease", "recheck"),
        ("/evalbot recheck", "recheck"),
        ("/evalbot help\r\n", "help"),
        ("\ufeff@evalbot-ci help", "help"),
        ("@evalbot-ci frobnicate", "frobnicate"),
        ("@someone-else recheck", None),
        ("@evalbot-ci recheck now please", None),
        ("please @evalbot-ci recheck", None),
        ("@evalbot-ci", None),
        ("/evalbotrecheck", None),
        ("", None),
        ("\n@evalbot-ci recheck", None),  # the first line is empty
    ],
)
def test_parse_command(content: str, word: str | None) -> None:
    assert parse_command(content, BOT) == word


# --- PrEvent JSON ----------------------------------------------------------------------------


def test_event_json_has_every_field() -> None:
    event = routed("pr_push.repo_content_update").event
    assert set(event.to_json()) == {field.name for field in fields(PrEvent)}


def test_event_json_round_trip() -> None:
    event = routed("comment_mention_recheck.discussion_comment_create", webhook_id="w1").event
    data = json.loads(json.dumps(event.to_json()))
    assert PrEvent.from_json(data) == event
    assert data["command"] == "recheck"
    assert data["delivery_id"] == "w1"


@pytest.mark.parametrize(
    "change",
    [
        {"kind": "deleted"},
        {"pr_num": "7"},
        {"pr_num": 0},
        {"command": "merge"},
        {"kind": "command"},
        {"repo_id": ""},
        {"head_sha": 5},
    ],
)
def test_event_from_json_rejects_bad_data(change: dict[str, Any]) -> None:
    data = routed("pr_push.repo_content_update").event.to_json() | change
    with pytest.raises(ValueError):  # noqa: PT011 - the messages vary by field
        PrEvent.from_json(data)


def test_an_event_knows_how_long_it_waited_for_a_worker() -> None:
    """The worker logs `queued_ms` from this: the receiver's millisecond stamp to the run."""
    event = PrEvent(kind="opened", repo_id="a/b", pr_num=1, delivery_id="d", received_at=NOW)
    received = datetime(2026, 11, 22, 8, 0, tzinfo=UTC)
    assert event.waited_s(received + timedelta(milliseconds=1250)) == 1.25
    assert event.waited_s(received - timedelta(seconds=2)) == -2.0  # clocks of two machines


@pytest.mark.parametrize("stamp", ["yesterday", "2026-11-22T08:00:00"])
def test_an_event_without_a_usable_time_has_no_wait(stamp: str) -> None:
    event = PrEvent(kind="opened", repo_id="a/b", pr_num=1, delivery_id="d", received_at=stamp)
    assert event.waited_s(datetime.now(UTC)) is None
