"""Source-checked results: the Hub calls and the time each checked entry costs, cold and warm.

Starts a `LocalStack` (redis-server, the emulator in this process, `evalbot serve`, one
`evalbot worker`) with the trusted datastore (`evaleval/EEE_datastore`) seeded at a pinned
commit with `--entries` records: the real `676f4465` record of EEE's converter fixture
(tests/samples/real-world/every_eval_ever/community_evals), each copy with its own score. Then,
on the model repo the record names, three runs of a PR of `--entries` entries (one results
file, each entry with its own `notes`):

1. baseline: every entry cites a plain link (nothing to read);
2. cold: every entry links its own record at the commit (each record read once, then kept);
3. warm: a push to the cold PR (the same links: every record from Redis).

Each run's figures are the bot's Hub calls (the emulator's counters, the opener's own routes
left out) and the time from the push to the comment; the per-entry cost is the difference to
the baseline, divided by the entries. A first PR warms the worker up (imports, connections).
Medians of `--repeat` rounds.

    .venv/bin/python bench/sources.py [--entries 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from huggingface_hub import CommitOperationAdd, HfApi  # noqa: E402

from bench.timing import report  # noqa: E402
from bot.hub.records import SOURCE_CALLS_PER_RUN  # noqa: E402
from bot.report.comment_texts import REPORT_MARKER  # noqa: E402
from evalbot_dev.devstack.redis import RedisServer  # noqa: E402
from evalbot_dev.devstack.stack import LocalStack, StackOptions  # noqa: E402
from evalbot_dev.devstack.waiting import wait_until  # noqa: E402
from evalbot_dev.devstack.workload import (  # noqa: E402
    BOT,
    BOT_TOKEN,
    OWNER_TOKEN,
    bot_calls,
    seeded_state,
)

SAMPLES = ROOT / "tests" / "samples" / "real-world" / "every_eval_ever" / "community_evals"
EVAL_YAML = ROOT / "tests" / "samples" / "real-world" / "hf-benchmark-eval-yaml"
RECORD = (
    SAMPLES
    / "datastore"
    / "flat"
    / "objects"
    / "67"
    / "6f"
    / "676f4465-ce78-411a-9f5a-c97b3d2eac4f.json"
)
DATASTORE = "evaleval/EEE_datastore"
COMMIT = "5e1f0c2d9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"
MODEL = "01-ai/yi-1.5-34b-chat"
RESULTS = ".eval_results/mmlu_pro.yaml"
PLAIN = "https://arxiv.org/abs/2406.01574"


def records(count: int) -> dict[str, bytes]:
    """`count` copies of the real record, each with its own uuid and overall score."""
    base = json.loads(RECORD.read_bytes())
    files: dict[str, bytes] = {}
    for n in range(count):
        base["evaluation_results"][0]["score_details"]["score"] = round(0.4 + n / 1000, 4)
        name = str(uuid.UUID(int=n + 1, version=4))
        files[f"flat/objects/{name[:2]}/{name[2:4]}/{name}.json"] = json.dumps(base).encode()
    return files


def _score(record: bytes) -> float:
    return float(json.loads(record)["evaluation_results"][0]["score_details"]["score"])


def entries(urls: list[str], scores: list[float]) -> str:
    return "".join(
        "- dataset:\n    id: TIGER-Lab/MMLU-Pro\n    task_id: mmlu_pro\n"
        f"  value: {round(score * 100, 10)}\n  notes: run-{n}\n  source:\n    url: {url}\n"
        for n, (url, score) in enumerate(zip(urls, scores, strict=True))
    )


def comment(stack: LocalStack, num: int, head: str) -> str | None:
    found = [
        c.content
        for c in stack.hub.comments(MODEL, num)
        if c.author == BOT and REPORT_MARKER in c.content and f"head={head}" in c.content
    ]
    return found[-1] if found else None


def _probe(stack: LocalStack, num: int, head: str) -> Callable[[], str | None]:
    return lambda: comment(stack, num, head)


class Run:
    """One run: seconds from the push to the comment, the bot's Hub calls, the PR, the comment."""

    def __init__(self, seconds: float, calls: int, num: int, text: str) -> None:
        self.seconds, self.calls, self.num, self.text = seconds, calls, num, text


def timed(stack: LocalStack, change: Callable[[], tuple[int, str]]) -> Run:
    stack.hub.faults.reset_counters()
    started = time.monotonic()
    num, head = change()
    text = wait_until(_probe(stack, num, head), timeout=300, what=f"the comment on PR #{num}")
    return Run(time.monotonic() - started, bot_calls(stack.hub.counters()), num, text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        redis_server = RedisServer(directory=work / "redis").start()
        state = seeded_state()
        state.add_org("01-ai", members={"alice": "write"})
        store = records(args.entries * (args.repeat + 1))
        state.seed_repo("dataset", DATASTORE, store, sha=COMMIT)
        mmlu = (EVAL_YAML / "TIGER-Lab__MMLU-Pro.eval.yaml").read_bytes()
        state.seed_repo("dataset", "TIGER-Lab/MMLU-Pro", {"eval.yaml": mmlu})
        state.seed_repo("model", MODEL, {"README.md": b"# Yi\n"})
        options = StackOptions(
            bot_token=BOT_TOKEN,
            bot_name=BOT,
            watched=[{"type": "org", "name": "01-ai"}],
            redis_url=redis_server.url,
        )
        paths = list(store)
        scores = [_score(store[path]) for path in paths]
        try:
            with LocalStack(state, work, options) as stack:
                api = HfApi(endpoint=stack.hub.url, token=OWNER_TOKEN)

                def open_pr(text: str) -> tuple[int, str]:
                    operation = CommitOperationAdd(RESULTS, text.encode())
                    info: Any = api.create_commit(
                        MODEL, [operation], commit_message="Add results", create_pr=True
                    )
                    return int(info.pr_num), str(info.oid)

                def push(num: int, text: str) -> tuple[int, str]:
                    info: Any = api.upload_file(
                        path_or_fileobj=text.encode(),
                        path_in_repo=RESULTS,
                        repo_id=MODEL,
                        revision=f"refs/pr/{num}",
                    )
                    return num, str(info.oid)

                def url(path: str) -> str:
                    return f"{stack.hub.url}/datasets/{DATASTORE}/blob/{COMMIT}/{path}"

                timed(stack, lambda: open_pr(entries([PLAIN], [0.5])))  # warm-up
                rounds: dict[str, list[Run]] = {"baseline": [], "cold": [], "warm": []}
                for index in range(args.repeat):
                    chunk = slice((index + 1) * args.entries, (index + 2) * args.entries)
                    plain = entries([PLAIN] * args.entries, scores[chunk])
                    linked = entries([url(p) for p in paths[chunk]], scores[chunk])
                    rounds["baseline"].append(timed(stack, partial(open_pr, plain)))
                    cold = timed(stack, partial(open_pr, linked))
                    rounds["cold"].append(cold)
                    again = linked + "\n"
                    rounds["warm"].append(timed(stack, partial(push, cold.num, again)))
                    checked = cold.text.count("🔗 source ✔️ checked")
                    if checked != args.entries:
                        print(f"  (only {checked} of {args.entries} entries checked)")
                _print(rounds, args.entries)
        finally:
            redis_server.stop(kill=True)


def _print(rounds: dict[str, list[Run]], count: int) -> None:
    median = {
        name: (statistics.median(r.seconds for r in runs), statistics.median(r.calls for r in runs))
        for name, runs in rounds.items()
    }
    base_time, base_calls = median["baseline"]
    print(f"a PR of {count} entries, one results file; medians of {len(rounds['cold'])} rounds")
    for name in ("baseline", "cold", "warm"):
        seconds, calls = median[name]
        report(f"{name}: push to comment", seconds, "s")
        report(f"{name}: bot's Hub calls", calls, "calls")
    for name in ("cold", "warm"):
        seconds, calls = median[name]
        report(f"{name}: Hub calls per checked entry", (calls - base_calls) / count, "calls")
        report(f"{name}: time per checked entry", (seconds - base_time) / count * 1000, "ms")
    spent = median["cold"][1] - base_calls
    report(f"cold: source calls of the run (budget {SOURCE_CALLS_PER_RUN})", spent, "calls")


if __name__ == "__main__":
    main()
