"""Hub calls per PR event, counted by the emulator: the budget `bot.hub.client` promises."""

from __future__ import annotations

import pytest

from bot.hub.client import HfHubClient
from bot.hub.sources import BenchmarkCache, HubBenchmarkSource
from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.validate import validate_results_files
from evalbot_dev.emulator.server import EmulatorServer
from tests.integration.hub.conftest import GPQA_ENTRY, open_pr
from tests.support.emulator import MODEL, client

pytestmark = pytest.mark.integration

RESULTS = ".eval_results/gpqa.yaml"


def source(bot: HfHubClient, cache: BenchmarkCache) -> HubBenchmarkSource:
    return HubBenchmarkSource(bot, benchmark_from_eval_yaml, cache)


def handle_pr_event(bot: HfHubClient, num: int, cache: BenchmarkCache) -> bool:
    """What a worker does for one PR event, through the Hub seam; whether all entries are ok."""
    pr = bot.pull_request(MODEL, num)
    assert pr.head_sha is not None
    files = {path: bot.read_file(MODEL, path, pr.head_sha) for path in pr.result_files}
    reports = validate_results_files(files, source(bot, cache))
    bot.post_comment(MODEL, num, "report")
    return all(report.ok for report in reports)


def test_one_file_pr_with_a_cached_benchmark_costs_four_calls(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    cache = BenchmarkCache()
    bob = client(emulated_hub, "bob")
    warm = open_pr(bob, {RESULTS: GPQA_ENTRY})
    assert handle_pr_event(bot, warm, cache)  # cold: eval.yaml is read once and cached
    num = open_pr(bob, {".eval_results/gpqa-diamond.yaml": GPQA_ENTRY})

    emulated_hub.faults.reset_counters()
    assert handle_pr_event(bot, num, cache)
    calls = emulated_hub.counters()

    # details, the file at the head SHA, the benchmark's revision check, the comment.
    assert calls == {
        "discussions.details": 1,
        "files.resolve": 1,
        "repos.info": 1,
        "discussions.comment": 1,
    }


def test_cold_cache_adds_only_the_eval_yaml_read(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    num = open_pr(client(emulated_hub, "bob"), {RESULTS: GPQA_ENTRY})
    emulated_hub.faults.reset_counters()
    assert handle_pr_event(bot, num, BenchmarkCache())
    calls = emulated_hub.counters()
    assert calls == {
        "discussions.details": 1,
        "files.resolve": 2,  # the results file, then eval.yaml at the benchmark's SHA
        "repos.info": 1,
        "discussions.comment": 1,
    }
