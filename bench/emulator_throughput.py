"""How fast the Hub emulator serves a PR's life cycle through the real `huggingface_hub` client.

Per PR: open it with a commit (`create_pr=True`), read its details, post the bot's comment and
edit it once; every change fires webhooks to a local receiver. Prints PRs/s, request latency
percentiles and Hub calls per PR from the emulator's own counter.

    .venv/bin/python bench/emulator_throughput.py [N_PRS]   (default 200)
"""

from __future__ import annotations

import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# Before huggingface_hub is imported: no telemetry probe to the real Hub. `make bench` runs this
# file as a script, so the repository root is put on the path for `bench` and `bot`.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from huggingface_hub import CommitOperationAdd, HfApi

from bench.timing import percentile, report
from evalbot_dev.emulator.seed import SAMPLE_STATE, load_state_file
from evalbot_dev.emulator.server import EmulatorServer


class _Sink(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


def main(n_prs: int) -> None:
    sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    loaded = load_state_file(SAMPLE_STATE)
    with EmulatorServer(loaded.state, delivery=loaded.delivery) as hub:
        loaded.state.add_webhook(
            "evalbot",
            f"http://127.0.0.1:{sink.server_address[1]}/",
            [{"type": "user", "name": "alice"}],
            ["repo", "discussion"],
            "secret",
        )
        bob = HfApi(endpoint=hub.url, token="hf_bob_write")
        bot = HfApi(endpoint=hub.url, token="hf_evalbot_discussions")
        latencies: list[float] = []
        started = time.perf_counter()
        for index in range(n_prs):
            t0 = time.perf_counter()
            info = bob.create_commit(
                "alice/model",
                [CommitOperationAdd(f".eval_results/run-{index}.yaml", b"- value: 1\n")],
                commit_message=f"Add run {index}",
                create_pr=True,
            )
            assert info.pr_num is not None
            bot.get_discussion_details("alice/model", info.pr_num)
            comment = bot.comment_discussion("alice/model", info.pr_num, "checking")
            bot.edit_discussion_comment("alice/model", info.pr_num, comment.id, "all good")
            latencies.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - started
        deadline = time.monotonic() + 60
        while not hub.dispatcher.idle() and time.monotonic() < deadline:
            time.sleep(0.05)
        drained = time.perf_counter() - started
        calls = sum(hub.faults.count_snapshot().values())
        delivered = sum(1 for r in hub.dispatcher.log() if r.outcome == "delivered")
    sink.shutdown()
    report(f"PR life cycles ({n_prs}), client-side", n_prs / elapsed, "PRs/s")
    report("PR life cycle latency p50", percentile(latencies, 0.5) * 1000, "ms")
    report("PR life cycle latency p95", percentile(latencies, 0.95) * 1000, "ms")
    report("Hub calls per PR life cycle (emulator counter)", calls / n_prs, "calls")
    report("webhooks delivered per PR", delivered / n_prs, "deliveries")
    report("time until all webhooks delivered", drained, "s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
