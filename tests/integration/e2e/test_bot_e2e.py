"""The bot end to end: the emulator's webhooks reach `evalbot serve`, Redis queues them, a
Celery worker reads the PR from the Hub and keeps one comment on it up to date."""

from __future__ import annotations

import pytest

from evalbot_dev.devstack.workload import OPENER_ROUTES, hle_entry
from evalbot_dev.emulator.faults import RouteFault, WebhookFaults
from tests.integration.e2e.conftest import BOT, SAMPLE_BENCHMARKS, Bot
from tests.support.emulator import GPQA_FIXED, GPQA_TYPO, MODEL, open_state_pr
from tests.support.stackbot import open_pr, push

pytestmark = pytest.mark.integration

HLE_PATH = ".eval_results/hle_mini.yaml"
HLE_ENTRY = hle_entry("20.90", calibration_error="12.5", source_url="https://example.org/runs/42")
GPQA_PATH = ".eval_results/gpqa_mini.yaml"


def signed_hle(bot: Bot) -> str:
    token = bot.issuer.token_for(HLE_ENTRY, 0, model_repo=MODEL, benchmarks=SAMPLE_BENCHMARKS)
    return HLE_ENTRY + f"  verify_token: {token}\n"


def test_pr_opened_gets_one_comment_with_the_right_badges(bot: Bot) -> None:
    num, head = open_pr(bot, {HLE_PATH: signed_hle(bot)})
    report = bot.wait_for_report(num, head=head)
    assert "✅ verified" in report.content
    assert "🏆 leaderboard" in report.content
    assert "🔗 source" in report.content
    assert "1 verified" in report.content
    bot.wait_for_deliveries()
    assert len(bot.bot_comments(num)) == 1


def test_a_push_that_fixes_an_error_edits_the_same_comment(bot: Bot) -> None:
    num, head = open_pr(bot, {GPQA_PATH: GPQA_TYPO})
    broken = bot.wait_for_report(num, head=head)
    assert "ENTRY-TASK-UNKNOWN" in broken.content
    assert "diamond" in broken.content  # the "did you mean" hint
    fixed_head = push(bot, num, GPQA_PATH, GPQA_FIXED)
    fixed = bot.wait_for_report(num, head=fixed_head)
    assert fixed.id == broken.id
    assert "ENTRY-TASK-UNKNOWN" not in fixed.content
    assert "👥 community" in fixed.content
    assert len(bot.bot_comments(num)) == 1


def test_maintainer_recheck_reruns_and_strangers_are_ignored(bot: Bot) -> None:
    num, head = open_pr(bot, {GPQA_PATH: GPQA_FIXED})
    bot.wait_for_report(num, head=head)
    bot.wait_for_deliveries()

    before = bot.stats()
    bot.api("bob").comment_discussion(MODEL, num, f"@{BOT} recheck")
    bot.wait_for_outcome("command-ignored", before)

    before = bot.stats()
    bot.api("alice").comment_discussion(
        MODEL, num, f"@{BOT} recheck\nThe benchmark was updated, please look again."
    )
    bot.wait_for_outcome("edited", before)  # re-ran; same verdict, the footer names alice

    before = bot.stats()
    bot.api("alice").comment_discussion(MODEL, num, "/evalbot help")
    bot.wait_for_outcome("help-sent", before)
    bot.wait_for_deliveries()
    replies = [c for c in bot.stack.hub.comments(MODEL, num) if "evalbot:help-for=" in c.content]
    assert len(replies) == 1
    assert len(bot.bot_comments(num)) == 1
    # The bot's own comments (report, help) never started a run of their own.
    after = bot.stats()
    runs = sum(v for k, v in after.items() if k.startswith("outcome:"))
    assert runs - sum(v for k, v in before.items() if k.startswith("outcome:")) == 1


def test_the_same_delivery_three_times_runs_once(bot: Bot) -> None:
    before = bot.stats()
    bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults(duplicate_next=6))
    try:
        num, head = open_pr(bot, {GPQA_PATH: GPQA_FIXED})
        bot.wait_for_report(num, head=head)
        # The worker counts the run after the comment is visible: wait for the count too.
        bot.wait_for_outcome("posted", before)
        bot.wait_for_deliveries()
    finally:
        bot.stack.hub.emulator.dispatcher.set_faults(WebhookFaults())
    after = bot.stats()
    assert after.get("outcome:posted", 0) - before.get("outcome:posted", 0) == 1
    runs = sum(after.get(k, 0) - before.get(k, 0) for k in after if k.startswith("outcome:"))
    assert runs == 1
    assert len(bot.bot_comments(num)) == 1


def test_two_quick_pushes_end_on_the_latest_head(bot: Bot) -> None:
    num, _ = open_pr(bot, {GPQA_PATH: GPQA_TYPO})
    push(bot, num, GPQA_PATH, GPQA_FIXED)
    latest = push(bot, num, GPQA_PATH, GPQA_FIXED.replace("43.1", "44.0"))
    report = bot.wait_for_report(num, head=latest)
    assert "44" in report.content
    bot.wait_for_deliveries()
    assert len(bot.bot_comments(num)) == 1


def test_a_pr_without_result_files_gets_no_comment(bot: Bot) -> None:
    before = bot.stats()
    num, _ = open_pr(bot, {"config.json": '{"hidden_size": 4096}\n'})
    bot.wait_for_outcome("no-results", before)
    bot.wait_for_deliveries()
    assert bot.bot_comments(num) == []
    assert [c for c in bot.stack.hub.comments(MODEL, num) if c.author == BOT] == []


def test_hub_rate_limits_and_errors_are_retried(bot: Bot) -> None:
    faults = bot.stack.hub.emulator.faults
    faults.add_rule(RouteFault("discussions.details", status=429, times=2, reset_s=1))
    faults.add_rule(RouteFault("discussions.comment", status=503, times=1))
    try:
        num, head = open_pr(bot, {GPQA_PATH: GPQA_FIXED})
        report = bot.wait_for_report(num, head=head, timeout=60)
    finally:
        faults.clear()
    assert "👥 community" in report.content
    bot.wait_for_deliveries()
    assert len(bot.bot_comments(num)) == 1


def test_merging_the_pr_updates_the_comment(bot: Bot) -> None:
    num, head = open_pr(bot, {GPQA_PATH: GPQA_FIXED})
    bot.wait_for_report(num, head=head)
    bot.api("alice").merge_pull_request(MODEL, num)

    def says_merged() -> bool:
        comments = bot.bot_comments(num)
        return bool(comments) and "**merged**" in comments[-1].content

    from evalbot_dev.devstack.waiting import wait_until

    wait_until(says_merged, timeout=30, what="the report to say the PR was merged")
    assert len(bot.bot_comments(num)) == 1


def test_an_lfs_results_file_gets_the_same_report_as_a_regular_one(bot: Bot) -> None:
    """docs/security.md#adversarial-inputs item 12: the file is read through the Hub's 302 to the
    CDN origin, and the bot's token never reaches that origin."""
    text = signed_hle(bot)
    regular_num, regular_head = open_pr(bot, {HLE_PATH: text})
    regular = bot.wait_for_report(regular_num, head=regular_head)
    cdn_before = len(bot.stack.hub.cdn_requests())
    num, head = open_state_pr(bot.stack.hub, "alice", {HLE_PATH: text.encode()}, lfs=[HLE_PATH])
    report = bot.wait_for_report(num, head=head)
    assert "✅ verified" in report.content
    assert report.content.replace(head, "HEAD").replace(head[:7], "HEAD") == (
        regular.content.replace(regular_head, "HEAD").replace(regular_head[:7], "HEAD")
    )
    seen = bot.stack.hub.cdn_requests()[cdn_before:]
    assert seen
    assert all(request.status == 200 for request in seen)
    assert not any(request.authorization for request in seen)


def test_an_oversized_lfs_results_file_gets_the_size_error_unfetched(bot: Bot) -> None:
    huge = HLE_ENTRY.encode() + b"#" * (50 * 1024 * 1024)
    cdn_before = len(bot.stack.hub.cdn_requests())
    num, head = open_state_pr(bot.stack.hub, "alice", {HLE_PATH: huge}, lfs=[HLE_PATH])
    report = bot.wait_for_report(num, head=head)
    assert "YAML-TOO-LARGE" in report.content
    assert f"file is {len(huge)} bytes" in report.content
    assert bot.stack.hub.cdn_requests()[cdn_before:] == []


def test_a_results_file_holding_a_path_is_not_a_list(bot: Bot) -> None:
    """A git symlink's blob is its target path: served as such, it is a malformed file."""
    num, head = open_pr(bot, {".eval_results/link.yaml": "../README.md"})
    report = bot.wait_for_report(num, head=head)
    assert "FILE-NOT-LIST" in report.content
    assert "not a string" in report.content


def test_a_deleted_and_misnamed_results_files_are_listed_not_read(bot: Bot) -> None:
    """docs/security.md#adversarial-inputs item 12, end to end: a results file deleted by the PR,
    and `.yml` / `.YAML` files the Hub will not read, are named in the report and never fetched."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    info = bot.api("alice").create_commit(
        repo_id=MODEL,
        operations=[
            CommitOperationDelete(".eval_results/gpqa-mini.yaml"),
            CommitOperationAdd(".eval_results/gpqa_mini.yml", GPQA_FIXED.encode()),
            CommitOperationAdd(".eval_results/GPQA_MINI.YAML", GPQA_FIXED.encode()),
        ],
        commit_message="Rename results",
        create_pr=True,
    )
    report = bot.wait_for_report(int(info.pr_num), head=str(info.oid))
    removed = report.content.index("Result files removed by this PR")
    misplaced = report.content.index("Files the Hub will not read as results")
    assert "gpqa-mini" in report.content[removed:misplaced]
    assert "gpqa\\_mini&#46;yml" in report.content[misplaced:]
    assert "GPQA\\_MINI&#46;YAML" in report.content[misplaced:]
    assert "No results to check in this PR." in report.content  # none was read as results


def test_a_one_file_pr_costs_four_hub_calls_with_its_visibility_from_the_webhook(
    bot: Bot,
) -> None:
    """The budget of docs/hub.md: the PR's details, the file, the benchmark's revision, the
    comment. The visibility the pages need comes from the webhook's `repo.private`, and the
    repo's public-or-gated read stands for minutes: no fifth call per PR."""
    entry = "- dataset:\n    id: emulator-samples/gpqa-mini\n    task_id: diamond\n  value: {}\n"
    warm, warm_head = open_pr(bot, {".eval_results/budget_warm.yaml": entry.format(40.25)})
    bot.wait_for_report(warm, head=warm_head)
    bot.wait_until_quiet()
    hub = bot.stack.hub
    hub.faults.reset_counters()
    num, head = open_pr(bot, {".eval_results/budget.yaml": entry.format(40.5)})
    bot.wait_for_report(num, head=head)
    bot.wait_until_quiet()
    counters = hub.counters()
    calls = {route: n for route, n in counters.items() if route not in OPENER_ROUTES}
    assert sum(calls.values()) <= 4, calls
    assert "repos.info" in calls  # the benchmark's revision check, not the model repo's
    assert bot.redis.get(f"evalbot:history:visibility:{MODEL}") == b"public"
