"""Hub calls and wall time of one PR event's Hub work, through `bot.hub` against the emulator.

Per PR (one results file, benchmark cached after the first): discussion details, the file at
the head SHA, the benchmark's revision check (eval.yaml only on a cache miss), validation, and
the comment. Calls are the emulator's own request counter.

    .venv/bin/python bench/hub_pr_event.py [N_PRS]   (default 100)
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

# Before huggingface_hub is imported: no telemetry probe to the real Hub.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from huggingface_hub import CommitOperationAdd, HfApi

from bench.timing import percentile, report
from bot.hub.client import HfHubClient
from bot.hub.sources import BenchmarkCache, HubBenchmarkSource
from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.validate import validate_results_files
from evalbot_dev.emulator.seed import SAMPLE_STATE, load_state_file
from evalbot_dev.emulator.server import EmulatorServer

ENTRY = b"- dataset:\n    id: emulator-samples/gpqa-mini\n    task_id: diamond\n  value: 0.42\n"


def main(n_prs: int) -> None:
    loaded = load_state_file(SAMPLE_STATE)
    with EmulatorServer(loaded.state, delivery=loaded.delivery) as hub:
        contributor = HfApi(endpoint=hub.url, token="hf_bob_write")
        bot = HfHubClient(HfApi(endpoint=hub.url, token="hf_evalbot_discussions"))
        cache = BenchmarkCache()
        nums: list[int] = []
        for i in range(n_prs):
            opened = contributor.create_commit(
                "alice/model",
                [CommitOperationAdd(f".eval_results/run{i}.yaml", ENTRY)],
                commit_message=f"run {i}",
                create_pr=True,
            )
            assert opened.pr_num is not None
            nums.append(opened.pr_num)
        seconds: list[float] = []
        calls: list[int] = []
        for num in nums:
            hub.faults.reset_counters()
            started = time.perf_counter()
            pr = bot.pull_request("alice/model", num)
            assert pr.head_sha is not None
            files = {p: bot.read_file("alice/model", p, pr.head_sha) for p in pr.result_files}
            source = HubBenchmarkSource(bot, benchmark_from_eval_yaml, cache)
            validate_results_files(files, source)
            bot.post_comment("alice/model", num, "report")
            seconds.append(time.perf_counter() - started)
            calls.append(sum(hub.counters().values()))
    report("PR events", n_prs, "")
    report("Hub calls, first event (benchmark cache cold)", calls[0], "calls")
    report("Hub calls per event, cache warm (max)", max(calls[1:] or calls), "calls")
    report("Hub work per event, median", statistics.median(seconds) * 1000, "ms")
    report("Hub work per event, p95", percentile(seconds, 0.95) * 1000, "ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
