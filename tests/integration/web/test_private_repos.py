"""Nothing about a repo a visitor could not see on the Hub: the bot reports on PRs of a private
and of a gated model repo (it is a member of their org), and the pages, through either port
and to a signed-in operator or not, answer for them exactly as for a repo that does not exist.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from bot.store.history import visibility_key
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


def test_another_spelling_of_a_hidden_repo_is_not_redirected_to_its_own(web_bot: Bot) -> None:
    """The Hub treats `Org/Name` and `org/name` as one repo, and the pages redirect a visitor
    who typed another spelling to the recorded one, but only for a repo they may see. A repo
    whose history is kept while its visibility is not known to be public (the last run could
    not read it: `unknown`) answers a stranger as a repo that does not exist, its recorded
    spelling included."""
    hidden = f"{ORG}/Quiet-Model"
    state = web_bot.stack.hub.state
    with state.locked():
        state.members[ORG]["evalbot"] = "read"
    state.seed_repo("model", hidden, {"README.md": b"# quiet\n"})
    num = open_results_pr(web_bot, hidden)
    web_bot.wait_for_report(num, repo_id=hidden)
    public = open_results_pr(web_bot, MODEL)
    web_bot.wait_for_report(public)
    web_bot.wait_until_quiet()
    with httpx2.Client(base_url=web_bot.stack.web_url, timeout=30) as visitor:
        assert visitor.get(f"/history/{hidden.lower()}").headers["location"].endswith(hidden)
    with state.locked():
        state.find_repo("model", hidden).private = True
    # what a run records when the Hub does not answer the visibility read: history kept, the
    # repo no longer shown (bot.store.history.add_verdict)
    web_bot.redis.set(visibility_key(hidden), "unknown")
    typed, unknown = hidden.lower(), UNKNOWN.upper()
    for base in (web_bot.stack.receiver_url, web_bot.stack.web_url):
        with (
            httpx2.Client(base_url=base, timeout=30) as stranger,
            httpx2.Client(base_url=base, timeout=30) as other,
        ):
            for path in ("/history/{}", f"/pr/{{}}/{num}", "/history?repo={}"):
                asked = stranger.get(path.format(typed))
                missing = other.get(path.format(unknown))
                assert asked.status_code == missing.status_code, path
                assert hidden not in asked.headers.get("location", ""), path
                assert hidden not in asked.text, path
                assert asked.text.replace(typed, unknown) == missing.text, path
            # a public repo's other spelling still leads to its recorded one
            moved = stranger.get(f"/history/{MODEL.upper()}")
            assert moved.status_code == 308
            assert moved.headers["location"] == f"/history/{MODEL}"


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
