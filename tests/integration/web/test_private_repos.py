"""Nothing about a repo a visitor could not see on the Hub: the bot reports on PRs of a private
and of a gated model repo (it is a member of their org), and the pages, through either port
and to a signed-in operator or not, answer for them exactly as for a repo that does not exist.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from tests.integration.web.conftest import OPERATOR_TOKEN
from tests.support.emulator import GPQA_FIXED, MODEL, ORG
from tests.support.stackbot import Bot

pytestmark = pytest.mark.integration

PRIVATE = f"{ORG}/secret-model"
GATED = f"{ORG}/gated-model"
UNKNOWN = f"{ORG}/no-such-model"


def open_results_pr(bot: Bot, repo_id: str) -> int:
    from huggingface_hub import CommitOperationAdd

    info: Any = bot.api("carol").create_commit(
        repo_id=repo_id,
        operations=[
            CommitOperationAdd(
                path_in_repo=".eval_results/gpqa-mini.yaml", path_or_fileobj=GPQA_FIXED.encode()
            )
        ],
        commit_message="Add results",
        create_pr=True,
    )
    return int(info.pr_num)


def page(client: httpx2.Client, path: str) -> tuple[int, str]:
    answer = client.get(path)
    return answer.status_code, answer.text


def test_private_and_gated_repos_read_as_unknown_on_every_page(web_bot: Bot) -> None:
    state = web_bot.stack.hub.state
    with state.locked():
        state.members[ORG]["evalbot"] = "read"  # the bot may read the org's private repos
    state.seed_repo("model", PRIVATE, {"README.md": b"# secret\n"}, private=True)
    state.seed_repo(
        "model", GATED, {"README.md": b"# gated\n"}, gated="manual", granted=["evalbot"]
    )
    for repo_id in (PRIVATE, GATED):
        num = open_results_pr(web_bot, repo_id)
        web_bot.wait_for_report(num, repo_id=repo_id)  # the bot did see and judge it
    public = open_results_pr(web_bot, MODEL)  # and a public one, which the pages show
    web_bot.wait_for_report(public)
    web_bot.wait_until_quiet()

    for base in (web_bot.stack.receiver_url, web_bot.stack.web_url):
        with (
            httpx2.Client(base_url=base, timeout=30) as visitor,
            httpx2.Client(base_url=base, timeout=30) as operator,
        ):
            signed_in = operator.post(
                "/status/login", data={"token": OPERATOR_TOKEN}, headers={"origin": base}
            )
            assert signed_in.status_code == 303
            for client in (visitor, operator):
                status, index = page(client, "/history")
                assert status == 200
                assert MODEL in index
                for hidden in (PRIVATE, GATED):
                    assert hidden not in index
                    assert "secret-model" not in index
                    assert "gated-model" not in index
                    shown = page(client, f"/history/{hidden}")
                    unknown = page(client, f"/history/{UNKNOWN}")
                    assert shown[0] == unknown[0] == 200
                    assert shown[1].replace(hidden, UNKNOWN) == unknown[1]
                    standing = page(client, f"/collections/mini-gate?model={hidden}")
                    missing = page(client, f"/collections/mini-gate?model={UNKNOWN}")
                    assert standing[0] == missing[0]
                    assert standing[1].replace(hidden, UNKNOWN) == missing[1]


def test_a_repo_turned_private_leaves_the_pages_at_its_next_verdict(web_bot: Bot) -> None:
    repo_id = f"{ORG}/team-model"  # public, seeded by the standard cast
    state = web_bot.stack.hub.state
    with state.locked():
        state.members[ORG]["evalbot"] = "read"
    num = open_results_pr(web_bot, repo_id)
    web_bot.wait_for_report(num, repo_id=repo_id)
    web_bot.wait_until_quiet()
    with httpx2.Client(base_url=web_bot.stack.web_url, timeout=30) as visitor:
        assert repo_id in page(visitor, "/history")[1]
        with state.locked():
            state.find_repo("model", repo_id).private = True
        second = open_results_pr(web_bot, repo_id)
        web_bot.wait_for_report(second, repo_id=repo_id)
        web_bot.wait_until_quiet()
        assert repo_id not in page(visitor, "/history")[1]
        assert (
            page(visitor, f"/history/{repo_id}")[1].replace(repo_id, UNKNOWN)
            == (page(visitor, f"/history/{UNKNOWN}")[1])
        )


PRIVATE_BENCH = f"{ORG}/private-bench"
UNKNOWN_BENCH = f"{ORG}/no-such-bench"
SECRET_TASK = "zqxsecrettask"


def playground(client: httpx2.Client, benchmark: str) -> str:
    entry = f"- dataset:\n    id: {benchmark}\n    task_id: {SECRET_TASK}\n  value: 1\n"
    answer = client.post(
        "/playground",
        data={"kind": "results", "content": entry, "benchmark": benchmark},
        headers={"origin": str(client.base_url).rstrip("/")},
    )
    assert answer.status_code == 200, answer.text[:300]
    return answer.text


def test_the_playground_reads_no_benchmark_a_visitor_could_not(web_bot: Bot) -> None:
    """A private benchmark dataset the bot can read (a member of its org) is, to a visitor,
    a benchmark that does not exist: no task, no existence, not offered to the next visitor."""
    state = web_bot.stack.hub.state
    with state.locked():
        state.members[ORG]["evalbot"] = "read"
    eval_yaml = f"name: Private\ndescription: Private.\ntasks:\n  - id: {SECRET_TASK}\n"
    state.seed_repo(
        "dataset",
        PRIVATE_BENCH,
        {"eval.yaml": eval_yaml.encode()},
        private=True,
        tags=[state.benchmark_tag],
    )
    for base in (web_bot.stack.receiver_url, web_bot.stack.web_url):
        with httpx2.Client(base_url=base, timeout=30) as visitor:
            shown = playground(visitor, PRIVATE_BENCH)
            unknown = playground(visitor, UNKNOWN_BENCH)
            as_unknown = shown.replace(PRIVATE_BENCH, UNKNOWN_BENCH)
            assert as_unknown.replace("private_bench", "no_such_bench") == unknown
            assert "Private." not in shown
        with httpx2.Client(base_url=base, timeout=30) as next_visitor:
            assert PRIVATE_BENCH not in next_visitor.get("/playground").text
