"""Source-checked results, end to end: a PR whose entries link Every Eval Ever records of the
trusted datastore (a dataset repo on the emulator holding the real records) gets one comment
that says which sources were checked and which disagree; a later push reads none of those
records again (the emulator counts the requests); two PRs that claim different values for the
same result name each other, each with its source.

The records and the honest entry are real (tests/samples/real-world/every_eval_ever/
community_evals/PROVENANCE.md): `converter_output.yaml` is what EEE's converter wrote.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd

from evalbot_dev.devstack.waiting import wait_until
from tests.support.sources_world import (
    COMMIT,
    DATASTORE,
    LLAMA_PRO,
    MODEL,
    SAMPLES,
    YI,
    seed_sources_world,
)
from tests.support.stackbot import Bot, running_bot

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    with running_bot(
        tmp_path_factory.mktemp("sources"),
        workers=1,
        concurrency=2,
        bot_config={"cross_pr_checks": True},
    ) as running:
        seed_sources_world(running)
        yield running


def record_url(bot: Bot, path: str) -> str:
    return f"{bot.stack.hub.url}/datasets/{DATASTORE}/blob/{COMMIT}/{path}"


def honest(bot: Bot) -> str:
    """EEE's converter's own output, its link pointed at the emulator's datastore commit."""
    text = (SAMPLES / "converter_output.yaml").read_text()
    return text.replace(
        f"https://huggingface.co/datasets/{DATASTORE}/blob/main/{YI}", record_url(bot, YI)
    )


def open_pr(bot: Bot, files: dict[str, str]) -> tuple[int, str]:
    operations = [CommitOperationAdd(path, text.encode()) for path, text in files.items()]
    info: Any = bot.api("alice").create_commit(
        MODEL, operations, commit_message="Add EvalEval results", create_pr=True
    )
    return int(info.pr_num), str(info.oid)


def push(bot: Bot, num: int, path: str, text: str) -> str:
    info: Any = bot.api("alice").upload_file(
        path_or_fileobj=text.encode(), path_in_repo=path, repo_id=MODEL, revision=f"refs/pr/{num}"
    )
    return str(info.oid)


def test_one_comment_says_which_sources_were_checked_and_which_disagree(bot: Bot) -> None:
    tampered_value = honest(bot).replace("value: 52.29", "value: 96.8")
    tampered_value = tampered_value.replace("  source:", "  notes: run-2\n  source:")
    other_models_record = (
        "- dataset:\n    id: Idavidrein/gpqa\n    task_id: diamond\n  value: 27.43\n"
        f"  source:\n    url: {record_url(bot, LLAMA_PRO)}\n    name: EvalEval\n"
        "- dataset:\n    id: Idavidrein/gpqa\n    task_id: main\n  value: 30\n"
        "  source:\n    url: https://arxiv.org/abs/2311.12022\n"
    )
    files = {
        ".eval_results/mmlu_pro.yaml": honest(bot) + tampered_value,
        ".eval_results/gpqa.yaml": other_models_record,
    }
    num, head = open_pr(bot, files)
    report = bot.wait_for_report(num, head=head, repo_id=MODEL).content
    assert (
        "**Sources:** 1 checked against its Every Eval Ever record ✔️; 2 disagree with their "
        "records ❌; 1 linked only (not a public datastore's record: not checked)." in report
    ), report
    honest_row = next(line for line in report.splitlines() if "52.29" in line)
    assert "🔗 source ✔️ checked" in honest_row
    assert (
        "source checked against record mmlu-pro/01-ai\\_yi-1.5-34b-chat/tiger-lab/"
        f"1777613486.918081 at {COMMIT[:12]}" in honest_row
    )
    assert "`ENTRY-SOURCE-MISMATCH`: \\[1\\]&#46;value: value disagrees" in report
    model = next(line for line in report.splitlines() if "model disagrees" in line)
    assert "`ENTRY-SOURCE-MISMATCH`: \\[0\\]&#46;source&#46;url: model disagrees" in model, model
    assert "says TencentARC/LLaMA-Pro-8B-Instruct" in report
    linked_row = next(line for line in report.splitlines() if "| main |" in line)
    assert "🔗 source |" in linked_row or "🔗 source " in linked_row
    assert "checked" not in linked_row
    assert len(bot.bot_comments(num, MODEL)) == 1

    # A second push re-reads no record: only the PR's files and the usual calls.
    bot.wait_until_quiet()
    bot.stack.hub.faults.reset_counters()
    head = push(bot, num, ".eval_results/gpqa.yaml", other_models_record + "\n")
    again = bot.wait_for_report(num, head=head, repo_id=MODEL).content
    assert "1 checked against its Every Eval Ever record" in again
    bot.wait_until_quiet()
    counters = bot.stack.hub.counters()
    # the two results files at the new head, nothing from the datastore
    assert counters.get("files.resolve", 0) == 2, counters


def test_two_prs_with_different_values_name_each_other_with_their_sources(bot: Bot) -> None:
    first, head1 = open_pr(
        bot,
        {".eval_results/mmlu_pro.yaml": honest(bot).replace("  source:", "  notes: x\n  source:")},
    )
    bot.wait_for_report(first, head=head1, repo_id=MODEL)
    bot.wait_until_quiet()
    claimed = "- dataset:\n    id: TIGER-Lab/MMLU-Pro\n    task_id: mmlu_pro\n  value: 61.0\n"
    second, head2 = open_pr(bot, {".eval_results/mmlu_pro_2.yaml": claimed + "  notes: x\n"})
    later = bot.wait_for_report(second, head=head2, repo_id=MODEL).content
    assert f"also proposed in [PR #{first}]" in later
    assert "Source here: none; there: [the record](" in later
    assert "✔️ agrees with its record" in later

    def named_in_first() -> str | None:
        content = bot.wait_for_report(first, head=head1, repo_id=MODEL).content
        return content if f"PR #{second}" in content else None

    earlier = wait_until(named_in_first, timeout=60, what="PR 1's comment naming PR 2")
    assert "Source here: [the record](" in earlier
    assert "there: none." in earlier
