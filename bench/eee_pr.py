"""An Every Eval Ever datastore PR end to end: N files in one PR, the bot's comment timed.

Starts a `LocalStack` (redis-server, the emulator in this process, `evalbot serve`, one
`evalbot worker`) with a dataset repo named as a datastore in `config/bot.yaml`, seeded with
`--main` records on main. Then, for each size in `--files` (default 100 and 500): one PR adding
that many records (real-shaped, distinct), and the time from opening the PR to the bot's
comment on the emulator, the run's Hub calls, and the comment's length. A first PR of one
file warms the worker up (imports, connections) and builds main's index; it is not timed.

    .venv/bin/python bench/eee_pr.py [--files 100,500] [--main 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Before huggingface_hub is imported: no telemetry probe to the real Hub.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from huggingface_hub import CommitOperationAdd, HfApi  # noqa: E402

from bench.timing import report  # noqa: E402
from bot.report.comment_texts import REPORT_MARKER  # noqa: E402
from evalbot_dev.devstack.redis import RedisServer  # noqa: E402
from evalbot_dev.devstack.stack import LocalStack, StackOptions  # noqa: E402
from evalbot_dev.devstack.waiting import wait_until  # noqa: E402
from evalbot_dev.devstack.workload import (  # noqa: E402
    BOT,
    BOT_TOKEN,
    OPENER_ROUTES,
    OWNER_TOKEN,
    bot_calls,
    seeded_state,
)

REPO = "alice/eee-datastore"
PASS = ROOT / "tests" / "samples" / "real-world" / "every_eval_ever" / "datastore" / "pass"
DEMO = "data/demo-source/demo-org/demo-model/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"


def records(count: int, salt: int) -> dict[str, bytes]:
    base = json.loads((PASS / DEMO).read_bytes())
    del base["detailed_evaluation_results"]
    files: dict[str, bytes] = {}
    for n in range(count):
        base["evaluation_results"][0]["score_details"]["score"] = (salt * 100_000 + n) / 1e9
        model = f"model-{n % 25}"
        base["model_info"]["id"] = f"demo-org/{model}"
        name = uuid.UUID(int=salt << 64 | n, version=4)
        files[f"data/demo-source/demo-org/{model}/{name}.json"] = json.dumps(base).encode()
    return files


def comment(stack: LocalStack, num: int) -> str | None:
    found = [
        c.content
        for c in stack.hub.comments(REPO, num, "dataset")
        if c.author == BOT and REPORT_MARKER in c.content
    ]
    return found[-1] if found else None


def _probe(stack: LocalStack, num: int) -> Callable[[], str | None]:
    return lambda: comment(stack, num)


def open_pr(api: Any, files: dict[str, bytes]) -> int:
    operations = [CommitOperationAdd(path, content) for path, content in files.items()]
    info = api.create_commit(
        REPO, operations, commit_message="Upload", repo_type="dataset", create_pr=True
    )
    return int(info.pr_num)


def datastore_options(redis_url: str) -> StackOptions:
    """The bot watching alice's repos with `REPO` as a datastore, on `redis_url`."""
    return StackOptions(
        bot_token=BOT_TOKEN,
        bot_name=BOT,
        watched=[{"type": "user", "name": "alice"}],
        bot_config={"datastores": {REPO: {}}},
        redis_url=redis_url,
    )


def warmed_up(stack: LocalStack) -> Any:
    """The owner's client, once a first 1-record PR has its comment (imports and caches warm)."""
    api = HfApi(endpoint=stack.hub.url, token=OWNER_TOKEN)
    warm = open_pr(api, records(1, salt=2))
    wait_until(lambda: comment(stack, warm), timeout=120, what="the warm-up")
    return api


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="100,500")
    parser.add_argument("--main", type=int, default=1000)
    args = parser.parse_args()
    sizes = [int(size) for size in args.files.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        redis_server = RedisServer(directory=work / "redis").start()
        state = seeded_state()
        state.seed_repo("dataset", REPO, records(args.main, salt=1))
        options = datastore_options(redis_server.url)
        try:
            with LocalStack(state, work, options) as stack:
                api = warmed_up(stack)
                print(f"datastore with {args.main:,} records on main")
                for index, size in enumerate(sizes):
                    files = records(size, salt=10 + index)
                    stack.hub.faults.reset_counters()
                    started = time.monotonic()
                    num = open_pr(api, files)
                    text = wait_until(
                        _probe(stack, num), timeout=300, what=f"the comment on PR #{num}"
                    )
                    elapsed = time.monotonic() - started
                    counters = stack.hub.counters()
                    opener = sum(counters.get(route, 0) for route in OPENER_ROUTES)
                    report(f"{size}-file PR: opened to comment", elapsed, "s")
                    report("  bot's Hub calls", bot_calls(counters), "calls")
                    report("  opener's calls (not the bot's)", opener, "calls")
                    report("  comment length", len(text), "chars")
        finally:
            redis_server.stop(kill=True)


if __name__ == "__main__":
    main()
