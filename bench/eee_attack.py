"""The Hub quota attack on a datastore, measured: what strangers' PRs cost another user's run.

Starts a `LocalStack` (redis-server, the emulator in this process, `evalbot serve`, one
`evalbot worker`) with a dataset repo named as a datastore, then, per case, 5 strangers each
open a PR of 200 files, and each moves its head by a one-byte push *whose webhook is dropped*,
so the bot has not read the new heads when the victim's run starts (the worst case: that run
pays for the comparison). Then alice opens an unrelated 1-record PR, and the bench prints the
Hub calls of that one run (the emulator's count of the bot's requests between her opening and
the bot's comment; nothing else runs meanwhile), its time, and what its comment says.

Cases:
- `junk`: the strangers' 200 files are `.json` files outside `data/`;
- `records`: they are distinct records at datastore paths, read by the strangers' own runs
  when opened; the one-byte push changes one record per PR (the other 199 blobs did not);
- `unseen`: the same records, but no webhook of the strangers' PRs reached the bot, so the
  victim's run meets 1,000 records it never hashed: its budget caps it, and its comment names
  the PRs it did not compare (a follow-up run carries on).

    .venv/bin/python bench/eee_attack.py [--cases junk,records,unseen] [--files 200]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from bench.eee_pr import REPO, comment, datastore_options, open_pr, records, warmed_up  # noqa: E402
from bench.timing import report  # noqa: E402
from evalbot_dev.devstack.redis import RedisServer  # noqa: E402
from evalbot_dev.devstack.stack import LocalStack  # noqa: E402
from evalbot_dev.devstack.waiting import wait_until  # noqa: E402
from evalbot_dev.devstack.workload import bot_calls, seeded_state  # noqa: E402
from evalbot_dev.emulator.faults import WebhookFaults  # noqa: E402
from evalbot_dev.emulator.state import FileChange, HubState  # noqa: E402

STRANGERS = ("bob", "carol", "dave", "erin", "frank")


def add_strangers(state: HubState) -> None:
    for name in STRANGERS:
        state.add_user(name)
        state.add_token(f"hf_{name}_write", name, "write")


def stranger_files(case: str, who: int, count: int) -> dict[str, bytes]:
    if case == "junk":
        return {f"junk/{who}/{i}.json": b'{"junk": %d}' % i for i in range(count)}
    return records(count, salt=100 + who + 10 * len(case))


def commit(state: HubState, user: str, revision: str, files: dict[str, bytes], **more: Any) -> Any:
    return state.commit(
        state.tokens[f"hf_{user}_write"],
        state.find_repo("dataset", REPO),
        revision,
        [FileChange(path, content) for path, content in files.items()],
        summary="Upload",
        description="",
        **more,
    )


def quiet(stack: LocalStack) -> None:
    wait_until(stack.hub.emulator.dispatcher.idle, timeout=120, what="webhooks sent")


def dropping(stack: LocalStack, drop: bool) -> None:
    stack.hub.emulator.dispatcher.set_faults(WebhookFaults(drop_rate=1.0 if drop else 0.0))


def run_case(stack: LocalStack, api: Any, case: str, count: int) -> None:
    state = stack.hub.state
    unseen = case == "unseen"
    dropping(stack, unseen)
    nums = []
    for who, name in enumerate(STRANGERS):
        files = stranger_files(case, who, count)
        outcome = commit(state, name, "main", files, create_pr=True)
        nums.append(int(outcome.pr_num))
    quiet(stack)
    if not unseen:
        for num in nums:  # each stranger's own run, which stores its records
            wait_until(partial(comment, stack, num), timeout=300, what=f"the comment on #{num}")
    # One-byte pushes whose webhooks are dropped: the bot has not seen the new heads.
    dropping(stack, True)
    for who, (name, num) in enumerate(zip(STRANGERS, nums, strict=True)):
        files = stranger_files(case, who, count)
        first = sorted(files)[0]
        commit(state, name, f"refs/pr/{num}", {first: files[first] + b" "})
    quiet(stack)
    dropping(stack, False)
    time.sleep(2)  # let the strangers' runs, if any were queued, finish before counting
    stack.hub.faults.reset_counters()
    started = time.monotonic()
    victim = open_pr(api, records(1, salt=int(uuid.uuid4().int % 10_000) + 50_000))
    text = wait_until(lambda: comment(stack, victim), timeout=300, what="the victim's comment")
    elapsed = time.monotonic() - started
    calls = bot_calls(stack.hub.counters())
    print(f"\ncase {case}: 5 strangers' PRs x {count} files, heads moved, then a 1-record PR")
    report("  victim's run: Hub calls", calls, "calls")
    report("  victim's run: opened to comment", elapsed, "s")
    named = "not yet looked for" in text
    print(f"  comment: {'names PRs not compared' if named else 'compared with every open PR'}")
    quiet(stack)
    dropping(stack, True)  # out of the next case's way, unseen by the bot
    for name, num in zip(STRANGERS, nums, strict=True):
        repo = state.find_repo("dataset", REPO)
        state.change_status(state.tokens[f"hf_{name}_write"], repo, num, "closed", None)
    quiet(stack)
    dropping(stack, False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="junk,records,unseen")
    parser.add_argument("--files", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        redis_server = RedisServer(directory=work / "redis").start()
        state = seeded_state()
        add_strangers(state)
        state.seed_repo("dataset", REPO, records(200, salt=1))
        options = datastore_options(redis_server.url)
        try:
            with LocalStack(state, work, options) as stack:
                api = warmed_up(stack)
                for case in args.cases.split(","):
                    run_case(stack, api, case, args.files)
        finally:
            redis_server.stop(kill=True)


if __name__ == "__main__":
    main()
