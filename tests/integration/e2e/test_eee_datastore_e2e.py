"""An Every Eval Ever datastore, end to end: a dataset repo named in `config/bot.yaml` as a
datastore gets its PRs checked as submissions, in one comment edited in place.

The records are the real ones of `tests/samples/real-world/every_eval_ever/datastore/`
(PROVENANCE.md there); each PR changes them the way a contributor's mistake would.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd

from bot.report.comment_texts import REPORT_MARKER
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.server import CommentView
from evalbot_dev.emulator.state import FileChange
from tests.support.emulator import TOKENS
from tests.support.stackbot import BOT, Bot, running_bot
from tests.unit.eee.helpers import DATASTORE

pytestmark = pytest.mark.integration

REPO = "alice/eee-datastore"
DEMO = "data/demo-source/demo-org/demo-model/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40"
ON_MAIN = (
    "data/math_rephrased_full/RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000"
    "_epch_1_ot_1/83f8f705-bcf1-473c-9fd2-77d00dd856f9.json"
)
LEGACY = "data/MMLU-Pro/01-ai/yi-1.5-34b-chat/676f4465-ce78-411a-9f5a-c97b3d2eac4f.json"


def real(folder: str, path: str) -> bytes:
    return (DATASTORE / folder / path).read_bytes()


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    config = {"datastores": {REPO: {"versions": ["0.2.0", "0.2.2", "0.3.0"]}}}
    with running_bot(
        tmp_path_factory.mktemp("stack"), workers=1, concurrency=2, bot_config=config
    ) as running:
        running.stack.hub.state.seed_repo(
            "dataset", REPO, {ON_MAIN: real("pass", ON_MAIN), "README.md": b"# EEE\n"}
        )
        yield running


def open_pr(bot: Bot, files: Mapping[str, bytes], message: str = "Add records") -> int:
    operations = [CommitOperationAdd(path, content) for path, content in files.items()]
    info: Any = bot.api("alice").create_commit(
        REPO, operations, commit_message=message, repo_type="dataset", create_pr=True
    )
    return int(info.pr_num)


def report(bot: Bot, num: int, contains: str = "", timeout: float = 30) -> CommentView:
    def ready() -> CommentView | None:
        found = [
            c
            for c in bot.stack.hub.comments(REPO, num, "dataset")
            if c.author == BOT and REPORT_MARKER in c.content
        ]
        return found[-1] if found and contains in found[-1].content else None

    try:
        return wait_until(ready, timeout=timeout, what=f"the report on datastore PR #{num}")
    except AssertionError as error:
        latest = reports(bot, num)
        shown = latest[-1].content if latest else "(no report)"
        raise AssertionError(f"{error}\n{shown}\n{bot.stack.logs()}") from error


def reports(bot: Bot, num: int) -> list[CommentView]:
    return [
        c
        for c in bot.stack.hub.comments(REPO, num, "dataset")
        if c.author == BOT and REPORT_MARKER in c.content
    ]


def renamed(record: dict[str, Any]) -> dict[str, Any]:
    """The same evaluation, scraped again: a fresh id and timestamp."""
    return dict(record, evaluation_id=f"again-{uuid.uuid4()}", retrieved_timestamp="1900000000")


def test_a_valid_pair_is_ready_to_merge(bot: Bot) -> None:
    num = open_pr(
        bot,
        {
            f"{DEMO}.json": real("pass", f"{DEMO}.json"),
            f"{DEMO}_samples.jsonl": real("pass", f"{DEMO}_samples.jsonl"),
        },
    )
    text = report(bot, num).content
    assert "**✅ Ready to merge:** 2 files checked, no errors." in text
    assert "`data/demo-source/demo-org/demo-model` (2 files)" in text
    # Closed, so the next tests' PRs of the same record are not its duplicates.
    bot.api("alice").change_discussion_status(REPO, num, "closed", repo_type="dataset")


def test_a_wrong_checksum_then_its_fix_edits_the_one_comment(bot: Bot) -> None:
    record = json.loads(real("pass", f"{DEMO}.json"))
    record["detailed_evaluation_results"]["checksum"] = "0" * 64
    samples = real("pass", f"{DEMO}_samples.jsonl")
    num = open_pr(
        bot, {f"{DEMO}.json": json.dumps(record).encode(), f"{DEMO}_samples.jsonl": samples}
    )
    first = report(bot, num, "EEE-CHECKSUM")
    assert "**❌ Not ready to merge:** 1 error in 1 of 2 files" in first.content
    assert hashlib.sha256(samples).hexdigest() in first.content

    record["detailed_evaluation_results"]["checksum"] = hashlib.sha256(samples).hexdigest()
    bot.api("alice").upload_file(
        path_or_fileobj=json.dumps(record).encode(),
        path_in_repo=f"{DEMO}.json",
        repo_id=REPO,
        repo_type="dataset",
        revision=f"refs/pr/{num}",
    )
    fixed = report(bot, num, "Ready to merge")
    assert fixed.id == first.id
    assert len(reports(bot, num)) == 1


def test_a_wrong_path_is_named_with_where_it_must_go(bot: Bot) -> None:
    record = json.loads(real("pass", f"{DEMO}.json"))
    del record["detailed_evaluation_results"]
    num = open_pr(bot, {"data/demo-source/demo-model/results.json": json.dumps(record).encode()})
    text = report(bot, num, "EEE-PATH").content
    assert "Not ready to merge" in text
    assert "has 4 parts" in text


def test_a_legacy_record_is_judged_by_the_version_it_declares(bot: Bot) -> None:
    num = open_pr(bot, {LEGACY: real("legacy", LEGACY)})
    text = report(bot, num).content
    assert "**✅ Ready to merge:** 1 file checked, no errors." in text


def test_a_duplicate_of_a_record_on_main(bot: Bot) -> None:
    again = ON_MAIN.replace("83f8f705-bcf1-473c", "0c4d2b7e-5a1f-4c3d")
    content = json.dumps(renamed(json.loads(real("pass", ON_MAIN)))).encode()
    text = report(bot, open_pr(bot, {again: content}), "EEE-DUPLICATE").content
    assert "on main" in text
    assert "83f8f705-bcf1-473c-9fd2-77d00dd856f9&#46;json" in text or "83f8f705" in text


def test_a_duplicate_of_another_open_pr(bot: Bot) -> None:
    record = json.loads(real("legacy", LEGACY))
    record["evaluation_results"] = record["evaluation_results"][:1]  # a distinct evaluation
    first_path = LEGACY.replace("676f4465-ce78-411a", "1a2b3c4d-5e6f-4a7b")
    first = open_pr(bot, {first_path: json.dumps(record).encode()})
    report(bot, first)
    second_path = LEGACY.replace("676f4465-ce78-411a", "2b3c4d5e-6f7a-4b8c")
    second = open_pr(bot, {second_path: json.dumps(renamed(record)).encode()})
    text = report(bot, second, "EEE-DUPLICATE").content
    assert f"in open PR \\#{first}" in text or f"in open PR #{first}" in text


def test_a_500_file_upload_gets_one_capped_comment(bot: Bot) -> None:
    base = json.loads(real("pass", f"{DEMO}.json"))
    del base["detailed_evaluation_results"]
    files: dict[str, bytes] = {}
    for index in range(500):
        record = json.loads(json.dumps(base))
        record["evaluation_results"][0]["score_details"]["score"] = index / 1000
        folder = f"data/demo-source/demo-org/model-{index % 25}"
        record["model_info"]["id"] = f"demo-org/model-{index % 25}"
        files[f"{folder}/{uuid.UUID(int=index + 1, version=4)}.json"] = json.dumps(record).encode()
    started = time.monotonic()
    num = open_pr(bot, files, "A batch upload")
    text = report(bot, num, timeout=60).content
    elapsed = time.monotonic() - started
    assert "**✅ Ready to merge:** 500 files checked, no errors." in text
    assert "more files" in text
    assert len(text) < 60_000
    print(f"500-file PR: comment after {elapsed:.1f} s")


def test_a_samples_file_in_lfs_is_streamed_through_the_cdn(bot: Bot) -> None:
    state = bot.stack.hub.state
    record = json.loads(real("pass", f"{DEMO}.json"))
    record["model_info"]["id"] = "demo-org/lfs-model"
    folder = "data/demo-source/demo-org/lfs-model"
    name = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
    samples = real("pass", f"{DEMO}_samples.jsonl").replace(
        b'"model_id": "demo-org/demo-model"', b'"model_id": "demo-org/lfs-model"'
    )
    detail = record["detailed_evaluation_results"]
    detail["file_path"] = f"{folder}/{name}_samples.jsonl"
    detail["checksum"] = hashlib.sha256(samples).hexdigest()
    outcome = state.commit(
        state.tokens[TOKENS["alice"]],
        state.find_repo("dataset", REPO),
        "main",
        [
            FileChange(f"{folder}/{name}.json", json.dumps(record).encode()),
            FileChange(f"{folder}/{name}_samples.jsonl", samples, lfs=True),
        ],
        summary="Add an LFS samples file",
        description="",
        create_pr=True,
    )
    assert outcome.pr_num is not None
    text = report(bot, outcome.pr_num).content
    assert "**✅ Ready to merge:** 2 files checked, no errors." in text, text
    fetched = [r for r in bot.stack.hub.cdn_requests() if r.method == "GET" and r.status == 200]
    assert fetched
    assert not any(r.authorization for r in fetched)


def test_help_and_recheck_from_the_datastores_owner(bot: Bot) -> None:
    num = open_pr(bot, {LEGACY: real("legacy", LEGACY)})
    first = report(bot, num)
    before = bot.stats()
    bot.api("alice").comment_discussion(REPO, num, "@evalbot help", repo_type="dataset")
    wait_until(
        lambda: any(
            c.author == BOT and "commands" in c.content and REPORT_MARKER not in c.content
            for c in bot.stack.hub.comments(REPO, num, "dataset")
        ),
        timeout=30,
        what="the help reply",
    )
    bot.api("alice").comment_discussion(REPO, num, "@evalbot recheck", repo_type="dataset")
    bot.wait_for_outcome("unchanged", before)  # the same head: the report stands as it is
    bot.api("bob").comment_discussion(REPO, num, "@evalbot recheck", repo_type="dataset")
    bot.wait_for_outcome("command-ignored", before)  # not a maintainer of alice's repo
    assert [c.id for c in reports(bot, num)] == [first.id]


def test_a_merged_record_is_a_duplicate_on_main_for_the_next_pr(bot: Bot) -> None:
    """Main's index follows main's commits: after a merge, the merged record is on main."""
    record = json.loads(real("legacy", LEGACY))
    record["evaluation_results"] = record["evaluation_results"][1:2]
    merged_path = LEGACY.replace("676f4465-ce78-411a", "3c4d5e6f-7a8b-4c9d")
    num = open_pr(bot, {merged_path: json.dumps(record).encode()})
    report(bot, num, "Ready to merge")
    bot.api("alice").merge_pull_request(REPO, num, repo_type="dataset")
    again = LEGACY.replace("676f4465-ce78-411a", "4d5e6f7a-8b9c-4d0e")
    text = report(bot, open_pr(bot, {again: json.dumps(renamed(record)).encode()}), "EEE-").content
    assert "EEE-DUPLICATE" in text
    assert "on main" in text


def open_as(bot: Bot, user: str, files: Mapping[str, bytes]) -> tuple[int, str]:
    operations = [CommitOperationAdd(path, content) for path, content in files.items()]
    info: Any = bot.api(user).create_commit(
        REPO, operations, commit_message="Add records", repo_type="dataset", create_pr=True
    )
    return int(info.pr_num), str(info.oid)


def push_as(bot: Bot, user: str, num: int, files: Mapping[str, bytes]) -> str:
    operations = [CommitOperationAdd(path, content) for path, content in files.items()]
    info: Any = bot.api(user).create_commit(
        REPO, operations, commit_message="More", repo_type="dataset", revision=f"refs/pr/{num}"
    )
    return str(info.oid)


def head_report(bot: Bot, num: int, head: str, contains: str) -> str:
    """The report's text once it speaks of `head` and holds `contains`."""

    def ready() -> str | None:
        found = reports(bot, num)
        text = found[-1].content if found else ""
        return text if f"evalbot:head={head}" in text and contains in text else None

    try:
        return wait_until(ready, timeout=60, what=f"the report on {head[:7]} of #{num}")
    except AssertionError as error:
        latest = reports(bot, num)
        shown = latest[-1].content if latest else "(no report)"
        raise AssertionError(f"{error}\n{shown}\n{bot.stack.logs()}") from error


def distinct(n: int) -> tuple[str, bytes]:
    """A record of an evaluation of its own (a score no other record has), at a fresh path."""
    record = json.loads(real("legacy", LEGACY))
    record["evaluation_results"] = record["evaluation_results"][:1]
    record["evaluation_results"][0]["score_details"]["score"] = 0.1 + n / 10_000
    folder = LEGACY.rsplit("/", 1)[0]
    return f"{folder}/{uuid.UUID(int=0xE1E0 << 64 | n, version=4)}.json", json.dumps(
        record
    ).encode()


def test_a_strangers_byte_for_byte_copy_leaves_the_first_pr_ready(bot: Bot) -> None:
    """bob copies alice's pending record byte for byte, at the same path, in a PR of his own:
    alice's PR stays ready on her next push; bob's is the duplicate, named as a copy."""
    path, content = distinct(1)
    alice, head = open_as(bot, "alice", {path: content})
    head_report(bot, alice, head, "Ready to merge")
    bob, bob_head = open_as(bot, "bob", {path: content})
    text = head_report(bot, bob, bob_head, "EEE-DUPLICATE")
    assert f"open PR #{alice}" in text or f"open PR \\#{alice}" in text
    assert "by another account" in text
    assert "byte-for-byte copy" in text
    extra, more = distinct(2)
    head = push_as(bot, "alice", alice, {extra: more})
    text = head_report(bot, alice, head, "Ready to merge")
    assert "EEE-DUPLICATE" not in text


def test_an_older_pr_cannot_claim_a_record_it_copied_later(bot: Bot) -> None:
    """bob opens a PR first, then copies alice's record into it: his lower PR number does not
    make him first; the record was alice's before it was his."""
    placeholder, filler = distinct(3)
    bob, _ = open_as(bot, "bob", {placeholder: filler})
    path, content = distinct(4)
    alice, head = open_as(bot, "alice", {path: content})
    assert bob < alice
    head_report(bot, alice, head, "Ready to merge")
    bob_head = push_as(bot, "bob", bob, {path: content})
    text = head_report(bot, bob, bob_head, "EEE-DUPLICATE")
    assert "by another account" in text
    extra, more = distinct(5)
    head = push_as(bot, "alice", alice, {extra: more})
    text = head_report(bot, alice, head, "Ready to merge")
    assert "EEE-DUPLICATE" not in text
