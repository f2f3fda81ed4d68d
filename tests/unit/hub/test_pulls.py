from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.hub.client import HfHubClient
from bot.hub.errors import HubPermanentError
from bot.hub.pulls import PrStatus, parse_pull_request, parse_time
from tests.unit.hub.fake_hub import FakeHub, sample_details


def test_sample_details() -> None:
    pr = parse_pull_request("acme/model-7b", 3, sample_details())
    assert pr.head_sha == "b" * 40
    assert pr.author == "alice"
    assert pr.target_branch == "refs/heads/main"
    assert [c.author_id for c in pr.comments] == ["u1", "b1", "o1"]
    assert pr.comments[1].edited


def test_odd_events_are_tolerated() -> None:
    details = sample_details()
    details["events"] += [
        {"id": "x1", "type": "comment", "createdAt": "nonsense", "data": {"hidden": True}},
        {"id": "x2", "type": "pinning-change", "data": {"pinned": True}},
        {"type": "commit", "data": {}},  # no oid: not a commit the bot can use
        "not an event",
        {"id": "x3", "type": "comment", "author": None, "data": {"latest": {"raw": 42}}},
    ]
    pr = parse_pull_request("acme/model-7b", 3, details)
    hidden, anonymous = pr.comments[-2:]
    assert hidden.hidden
    assert hidden.raw == ""
    assert hidden.created_at is None
    assert anonymous.author == "deleted"
    assert anonymous.raw == ""
    assert pr.head_sha == "b" * 40  # the broken commit event did not become the head


def test_unknown_status_is_treated_as_open_and_draft_is_kept() -> None:
    details = sample_details()
    details["status"] = "frozen"
    assert parse_pull_request("a/b", 3, details).status is PrStatus.OPEN
    details["status"] = "draft"
    assert parse_pull_request("a/b", 3, details).status is PrStatus.DRAFT


def test_times() -> None:
    assert parse_time("2026-01-10T12:00:00.000Z") == datetime(2026, 1, 10, 12, tzinfo=UTC)
    assert parse_time("2026-01-10T12:00:00Z") == datetime(2026, 1, 10, 12, tzinfo=UTC)
    assert parse_time(None) is None
    assert parse_time("yesterday") is None


def test_not_details_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="discussion-details"):
        parse_pull_request("a/b", 1, ["not", "an", "object"])
    with pytest.raises(ValueError, match="discussion-details"):
        parse_pull_request("a/b", 1, {"num": 1})


def test_client_reports_unreadable_details_as_permanent(client: HfHubClient, hub: FakeHub) -> None:
    hub.details[("acme/model-7b", 3)] = {"error": "weird"}
    with pytest.raises(HubPermanentError, match="unreadable"):
        client.pull_request("acme/model-7b", 3)


json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "type",
                    "data",
                    "author",
                    "oid",
                    "latest",
                    "raw",
                    "hidden",
                    "createdAt",
                    "isOwner",
                    "parents",
                    "name",
                    "_id",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@given(
    st.fixed_dictionaries(
        {"isPullRequest": st.booleans()},
        optional={
            "events": st.lists(json_values, max_size=5),
            "status": json_values,
            "diff": json_values,
            "changes": json_values,
            "author": json_values,
        },
    )
)
@settings(max_examples=150)
def test_any_json_shape_parses_without_crashing(details: dict[str, Any]) -> None:
    pr = parse_pull_request("a/b", 1, details)
    assert pr.is_pull_request is details["isPullRequest"]


def test_who_may_command_the_bot() -> None:
    pr = parse_pull_request("acme/model-7b", 3, sample_details())
    author, bot, org_member = pr.comments
    assert org_member.by_maintainer("acme/model-7b")
    assert not author.by_maintainer("acme/model-7b")
    assert author.by_maintainer("acme/model-7b", allow_list=["Alice"])
    assert author.by_maintainer("ALICE/model-7b")  # her own namespace
    assert not bot.by_maintainer("acme/model-7b")
    owner = replace(author, is_owner=True)
    assert owner.by_maintainer("acme/model-7b")
    deleted = replace(author, author="deleted")
    assert not deleted.by_maintainer("deleted/x", allow_list=["deleted"])


def test_a_report_never_goes_back_in_time() -> None:
    pr = parse_pull_request("acme/model-7b", 3, sample_details())
    first, head = "a" * 40, "b" * 40
    assert pr.may_replace(None, head)
    assert pr.may_replace(first, head)
    assert pr.may_replace(head, head)  # a recheck
    assert not pr.may_replace(head, first)  # a late task for an older head
    assert pr.may_replace("f" * 40, head)  # the existing head is gone (force-push)
    assert not pr.may_replace(head, "f" * 40)
