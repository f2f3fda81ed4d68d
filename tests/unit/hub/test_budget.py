"""The call budget of docs/hub.md ("Calls"), counted on the wire: 4 calls for a one-file PR."""

from __future__ import annotations

from bot.hub.client import HfHubClient
from bot.hub.sources import BenchmarkCache, HubBenchmarkSource
from bot.report.comment import CommentContext, render_comment
from bot.report.comment_texts import REPORT_MARKER
from bot.validation.model import Benchmark, BenchmarkLookup, TaskDef
from tests.unit.hub.fake_hub import FakeHub

REPO = "acme/model-7b"
SHA = "e" * 40
ONE_FILE_DIFF = """diff --git a/.eval_results/gpqa.yaml b/.eval_results/gpqa.yaml
new file mode 100644
--- /dev/null
+++ b/.eval_results/gpqa.yaml
@@ -0,0 +1,4 @@
+- dataset:
+    id: Idavidrein/gpqa
+    task_id: diamond
+  value: 0.412
"""


def parse(repo_id: str, content: bytes, sha: str) -> BenchmarkLookup:
    return Benchmark(repo_id=repo_id, tasks=(TaskDef("diamond"),), revision=sha)


def run_once(client: HfHubClient, cache: BenchmarkCache) -> None:
    """What a worker does for one PR event, minus validation (pure, no calls)."""
    pr = client.pull_request(REPO, 3)
    assert pr.head_sha is not None
    source = HubBenchmarkSource(client, parse, cache)
    for path in pr.result_files:
        client.read_file(REPO, path, pr.head_sha)
        source.lookup("Idavidrein/gpqa", None)
    body = render_comment([], CommentContext(REPO, 3, pr.head_sha, "evalbot"))
    existing = pr.find_bot_comment("evalbot", REPORT_MARKER)
    if existing is None:
        client.post_comment(REPO, 3, body)
    else:
        client.edit_comment(REPO, 3, existing.id, body)


def test_one_file_pr_with_a_cached_benchmark_costs_four_calls(
    client: HfHubClient, hub: FakeHub
) -> None:
    hub.details[(REPO, 3)]["diff"] = ONE_FILE_DIFF
    hub.files[(REPO, "b" * 40, ".eval_results/gpqa.yaml")] = b"- value: 0.412\n"
    hub.datasets["idavidrein/gpqa"] = {"id": "Idavidrein/gpqa", "sha": SHA}
    hub.files[("Idavidrein/gpqa", SHA, "eval.yaml")] = b"tasks: []\n"
    cache = BenchmarkCache()

    run_once(client, cache)  # cold: + 1 eval.yaml read
    assert len(hub.calls) == 5

    hub.requests.clear()
    run_once(client, cache)  # warm
    assert hub.calls == [
        f"GET /api/models/{REPO}/discussions/3",
        f"GET /{REPO}/resolve/{'b' * 40}/.eval_results/gpqa.yaml",
        "GET /api/datasets/Idavidrein/gpqa",
        f"POST /api/models/{REPO}/discussions/3/comment/65f000000000000000000003/edit",
    ]
