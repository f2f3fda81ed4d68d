"""Never a stale verdict (docs/reliability.md, "A head that was not checked"), end to end.

A PR is first reported ready; then a push adds a broken file while the Hub refuses something
the run needs. The living comment must then speak of the new head: the refused file as a
finding on that file, or, when the run itself is parked, "not checked" with the reason, never
the earlier head's ✅ left standing. On the model-repo and the datastore paths alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd

from bot.report.comment_texts import REPORT_MARKER
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.faults import RouteFault
from evalbot_dev.emulator.server import CommentView
from tests.faults.conftest import GPQA_PATH, fault_bot, results
from tests.support.stackbot import BOT, Bot, open_pr, push
from tests.unit.eee.helpers import DATASTORE

pytestmark = pytest.mark.integration

STORE = "alice/eee-store"
DEMO = "data/demo-source/demo-org/demo-model/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with fault_bot(
        tmp_path_factory, "unchecked", workers=1, bot_config={"datastores": {STORE: {}}}
    ) as running:
        running.stack.hub.state.seed_repo("dataset", STORE, {"README.md": b"# EEE\n"})
        yield running


@pytest.fixture(autouse=True)
def _no_faults(bot: Bot) -> Iterator[None]:
    yield
    bot.stack.hub.faults.clear()


def record(score: float) -> bytes:
    data = json.loads((DATASTORE / "pass" / DEMO).read_bytes())
    del data["detailed_evaluation_results"]
    data["evaluation_results"][0]["score_details"]["score"] = score
    return json.dumps(data).encode()


def store_reports(bot: Bot, num: int) -> list[CommentView]:
    return [
        c
        for c in bot.stack.hub.comments(STORE, num, "dataset")
        if c.author == BOT and REPORT_MARKER in c.content
    ]


def store_report(bot: Bot, num: int, head: str, contains: str) -> CommentView:
    """The datastore PR's one report once it speaks of `head` and holds `contains`."""

    def ready() -> CommentView | None:
        found = store_reports(bot, num)
        latest = found[-1] if found else None
        if latest is None or f"evalbot:head={head}" not in latest.content:
            return None
        return latest if contains in latest.content else None

    try:
        return wait_until(ready, timeout=60, what=f"the report on {head[:7]} of #{num}")
    except AssertionError as error:
        shown = [c.content for c in store_reports(bot, num)]
        raise AssertionError(f"{error}\n{shown}\n{bot.stack.logs()}") from error


def open_store_pr(bot: Bot, files: Mapping[str, bytes]) -> tuple[int, str]:
    operations = [CommitOperationAdd(path, content) for path, content in files.items()]
    info: Any = bot.api("alice").create_commit(
        STORE, operations, commit_message="Add records", repo_type="dataset", create_pr=True
    )
    return int(info.pr_num), str(info.oid)


def push_store(bot: Bot, num: int, files: Mapping[str, bytes]) -> str:
    operations = [CommitOperationAdd(path, content) for path, content in files.items()]
    info: Any = bot.api("alice").create_commit(
        STORE, operations, commit_message="More", repo_type="dataset", revision=f"refs/pr/{num}"
    )
    return str(info.oid)


def nan_record() -> bytes:
    """A record whose score is `NaN`: not strict JSON, never ready to merge."""
    return record(0.5).replace(b'"score": 0.5', b'"score": NaN')


def test_a_datastore_file_the_hub_refuses_is_a_finding_not_a_parked_run(bot: Bot) -> None:
    num, head = open_store_pr(bot, {DEMO: record(0.42)})
    store_report(bot, num, head, "Ready to merge")
    broken = DEMO.replace("f3a1c0de-4b2e", "0b1c2d3e-4f5a")
    head = push_store(bot, num, {broken: nan_record(), "notes//pad.json": b"{}"})
    text = store_report(bot, num, head, "Not ready to merge").content
    assert "FILE-UNREADABLE" in text  # the refused path, with the reason
    assert "empty" in text
    assert "EEE-JSON" in text  # and the NaN record beside it is still checked
    assert "Ready to merge:**" not in text
    assert [p for p in bot.parked() if p["event"]["pr_num"] == num] == []
    assert len(store_reports(bot, num)) == 1


def test_a_parked_datastore_run_says_its_head_is_not_checked(bot: Bot) -> None:
    num, head = open_store_pr(bot, {DEMO.replace("f3a1c0de", "1c2d3e4f"): record(0.43)})
    first = store_report(bot, num, head, "Ready to merge")
    # Main's commit cannot be read: the run cannot check anything, and is parked.
    bot.stack.hub.faults.add_rule(RouteFault("repos.info_at_revision", status=403))
    head = push_store(bot, num, {DEMO.replace("f3a1c0de", "2d3e4f5a"): nan_record()})
    text = store_report(bot, num, head, "Not checked").content
    assert "HTTP 403" in text
    assert "Ready to merge" not in text
    assert [c.id for c in store_reports(bot, num)] == [first.id]
    parked = [p for p in bot.parked() if p["event"]["pr_num"] == num]
    assert [p["reason"] for p in parked] == ["hub-refused"]


def test_a_parked_model_run_says_its_head_is_not_checked(bot: Bot) -> None:
    num, head = open_pr(bot, results(51.5))
    first = bot.wait_for_report(num, head=head)
    assert "0 with errors" in first.content
    # The Hub refuses the run's read of the PR once: the run is parked (a refusal is not
    # retried); the PR itself is readable again a moment later.
    bot.stack.hub.faults.add_rule(RouteFault("discussions.details", status=403, times=1))
    head = push(bot, num, GPQA_PATH, "- dataset:\n    id: emulator-samples/gpqa-mini\n")
    latest = bot.wait_for_report(num, head=head, timeout=60)
    assert "Not checked" in latest.content, latest.content
    assert "HTTP 403" in latest.content
    assert latest.id == first.id
    assert "0 with errors" not in latest.content  # the earlier head's verdict is gone
    parked = [p for p in bot.parked() if p["event"]["pr_num"] == num]
    assert [p["reason"] for p in parked] == ["hub-refused"]
