"""An Every Eval Ever datastore's PRs on the pages, like a model repo's: the bot checks a
datastore PR, and its verdict is in the history (`/history/datasets/<repo>`), on the PR's
details page, in the badge and in the JSON API; a private datastore's is nowhere, through
either port."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from huggingface_hub import CommitOperationAdd

from bot.report.comment_texts import REPORT_MARKER
from evalbot_dev.devstack.waiting import wait_until
from tests.integration.web.conftest import DATASTORE, PAGES_URL, PRIVATE_DATASTORE
from tests.support.stackbot import BOT, Bot
from tests.unit.eee.helpers import DATASTORE as SAMPLES

pytestmark = pytest.mark.integration

DEMO = "data/demo-source/demo-org/demo-model/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"
UNKNOWN = "datasets/alice/no-such-store"


def record(score: float, nan: bool = False) -> bytes:
    data = json.loads((SAMPLES / "pass" / DEMO).read_bytes())
    del data["detailed_evaluation_results"]
    data["evaluation_results"][0]["score_details"]["score"] = score
    body = json.dumps(data).encode()
    return body.replace(f'"score": {score}'.encode(), b'"score": NaN') if nan else body


def open_store_pr(bot: Bot, repo_id: str, files: dict[str, bytes]) -> int:
    operations = [CommitOperationAdd(path, content) for path, content in files.items()]
    info: Any = bot.api("alice").create_commit(
        repo_id, operations, commit_message="Add records", repo_type="dataset", create_pr=True
    )
    return int(info.pr_num)


def report(bot: Bot, repo_id: str, num: int) -> str:
    def ready() -> str | None:
        found = [
            c.content
            for c in bot.stack.hub.comments(repo_id, num, "dataset")
            if c.author == BOT and REPORT_MARKER in c.content
        ]
        return found[-1] if found else None

    return wait_until(ready, timeout=60, what=f"the report on {repo_id}#{num}")


def test_a_datastore_prs_verdicts_are_on_every_page(web_bot: Bot) -> None:
    state = web_bot.stack.hub.state
    state.seed_repo("dataset", DATASTORE, {"README.md": b"# EEE\n"})
    good = open_store_pr(web_bot, DATASTORE, {DEMO: record(0.61)})
    bad = open_store_pr(
        web_bot, DATASTORE, {DEMO.replace("f3a1c0de", "0a1b2c3d"): record(0.62, True)}
    )
    text = report(web_bot, DATASTORE, good)
    assert f"{PAGES_URL}/pr/datasets/{DATASTORE}/{good}" in text  # the footer's details link
    assert "Not ready" in report(web_bot, DATASTORE, bad)
    web_bot.wait_until_quiet()
    shown = f"datasets/{DATASTORE}"

    for base in (web_bot.stack.receiver_url, web_bot.stack.web_url):
        with httpx2.Client(base_url=base, timeout=30) as visitor:
            index = visitor.get("/history").text
            assert f'href="/history/{shown}"' in index
            page = visitor.get(f"/history/{shown}")
            assert page.status_code == 200
            assert f"PR #{good}" in page.text
            assert f"PR #{bad}" in page.text
            assert "EEE-JSON" in page.text  # the broken PR's first error
            assert f"/datasets/{DATASTORE}/discussions/{good}" in page.text  # the Hub's PR
            details = visitor.get(f"/pr/{shown}/{bad}")
            assert details.status_code == 200
            assert "EEE-JSON" in details.text
            assert "1 file checked" in details.text
            badge = visitor.get(f"/badge/{shown}.svg")
            assert badge.status_code == 200
            assert "1 ready · 1 not ready" in badge.text
            listed = visitor.get(f"/api/v1/repos/{shown}/prs").json()
            assert listed["repo"] == shown
            assert {pr["num"] for pr in listed["prs"]} == {good, bad}
            one = visitor.get(f"/api/v1/repos/{shown}/prs/{bad}").json()
            assert one["verdicts"][0]["ok"] is False
            assert one["verdicts"][0]["kind"] == "records"
            assert one["verdicts"][0]["problems"][0]["code"] == "EEE-JSON"
            pasted = f"https://hf.co/datasets/{DATASTORE}/discussions/{bad}"
            typed = visitor.get("/history", params={"repo": pasted})
            assert typed.status_code == 303
            assert typed.headers["location"] == f"/pr/{shown}/{bad}"


def test_a_private_datastore_reads_as_unknown_on_every_page(web_bot: Bot) -> None:
    state = web_bot.stack.hub.state
    with state.locked():
        state.members["evals-org"]["evalbot"] = "read"  # the bot may read the org's repos
    state.seed_repo("dataset", PRIVATE_DATASTORE, {"README.md": b"# EEE\n"}, private=True)
    num = open_store_pr(web_bot, PRIVATE_DATASTORE, {DEMO: record(0.63)})
    assert "Ready to merge" in report(web_bot, PRIVATE_DATASTORE, num)  # judged all the same
    web_bot.wait_until_quiet()
    hidden = f"datasets/{PRIVATE_DATASTORE}"
    for base in (web_bot.stack.receiver_url, web_bot.stack.web_url):
        with httpx2.Client(base_url=base, timeout=30) as visitor:
            assert PRIVATE_DATASTORE not in visitor.get("/history").text
            shown = visitor.get(f"/history/{hidden}")
            missing = visitor.get(f"/history/{UNKNOWN}")
            assert shown.status_code == missing.status_code == 200
            assert shown.text.replace(hidden, UNKNOWN) == missing.text
            assert visitor.get(f"/pr/{hidden}/{num}").status_code == 404
            assert visitor.get(f"/badge/{hidden}.svg").status_code == 404
            assert visitor.get(f"/api/v1/repos/{hidden}/prs").status_code == 404
            assert visitor.get(f"/api/v1/repos/{hidden}/prs/{num}").status_code == 404
