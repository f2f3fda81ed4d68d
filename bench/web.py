"""The web pages: weight (HTML + the stylesheet, bytes) and server time per page, and the
history store's memory.

Runs `bot.web` in process against a real redis-server and the Hub emulator (both on
loopback), with a PR history of 20 PRs x 20 verdicts (each with problems, token verdicts and
results, as the workers record them) and an hour of status samples in Redis (and a collection
standing, which reads the model's results on main from the emulator), and times each page, the
PR details page, the badge and the JSON API through Starlette's test client (the ASGI app, no
socket: server time, not network). The history's memory is Redis's own count (`used_memory`)
before and after recording 10,000 PRs, with typical verdicts and with every cap filled.
The playground is timed on a 4-entry file, with the benchmark lookup cached
(a repeat paste) and on the 10,000-entry 1 MiB-cap worst case, each against the validator
alone on the same bytes in the same process (the ratio is the page's own cost).

Run: `.venv/bin/python bench/web.py` (medians of 20 requests after 2 warm-ups; 5 for the
large paste).
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import redis
from huggingface_hub import HfApi
from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from bench.timing import median_seconds, report  # noqa: E402
from bot.adapters.collections_store import StoredCollection  # noqa: E402
from bot.collections.model import Scope  # noqa: E402
from bot.hub.client import HfHubClient  # noqa: E402
from bot.report.counts import Counts  # noqa: E402
from bot.settings import Secret  # noqa: E402
from bot.store.history import add_verdict, record_verdict  # noqa: E402
from bot.store.verdicts import verdict_of  # noqa: E402
from bot.store.worker_counters import read_snapshot  # noqa: E402
from bot.tokens.issuers import IssuerRegistry  # noqa: E402
from bot.validation.catalogue import Severity  # noqa: E402
from bot.validation.diagnostics import Diagnostic  # noqa: E402
from bot.validation.model import (  # noqa: E402
    Dialect,
    EntryReport,
    FileReport,
    ResultEntry,
    Verification,
    VerificationStatus,
)
from bot.validation.validate import validate_results_files  # noqa: E402
from bot.web.app import create_web_app  # noqa: E402
from bot.web.benchmarks import CachedHubBenchmarks  # noqa: E402
from bot.web.guards import OperatorGate, session_key  # noqa: E402
from bot.web.live import Sample, encode_sample  # noqa: E402
from bot.web.page_context import WebContext  # noqa: E402
from evalbot_dev.devstack.redis import RedisServer  # noqa: E402
from evalbot_dev.emulator.server import EmulatorServer  # noqa: E402
from tests.support.emulator import MINI_GATE, MODEL, TOKENS, standard_state  # noqa: E402

ENTRY = "- dataset:\n    id: emulator-samples/gpqa-mini\n    task_id: diamond\n  value: {v}\n"
SMALL = "".join(ENTRY.format(v=40 + i) for i in range(4))
LARGE = "".join(
    f"- {{dataset: {{id: emulator-samples/gpqa-mini, task_id: diamond}}, value: {i}}}\n"
    for i in range(10_000)
)


def reports(entries: int, problems: int, text: int) -> list[FileReport]:
    """One results file of `entries` GPQA results (tokens refused) and `problems` errors."""
    found = [
        EntryReport(
            ResultEntry(
                index=i,
                line=1 + 4 * i,
                data={"value": 40.0 + i},
                dialect=Dialect.LIVE,
                dataset_id="emulator-samples/gpqa-mini",
                task_id="diamond",
            ),
            verification=Verification(VerificationStatus.UNVERIFIED, "token-expired"),
        )
        for i in range(entries)
    ]
    diagnostics = [
        Diagnostic("ENTRY-TASK-UNKNOWN", Severity.ERROR, "m" * text, line=3 + i, hint="f" * text)
        for i in range(problems)
    ]
    return [FileReport(".eval_results/gpqa_mini.yaml", "results", diagnostics, found)]


TYPICAL = reports(entries=3, problems=1, text=80)
FULL = reports(entries=40, problems=30, text=1000)  # over every cap: what is kept is capped


def seed(client: redis.Redis) -> None:
    counts = Counts(3, 1, 2, 0, 0, 1)
    for num in range(1, 21):
        for push in range(20):
            verdict = verdict_of(
                f"{num:02d}{push:02d}" + "a" * 36,
                "edited",
                "merged" if num % 2 else "open",
                counts,
                datetime.now(UTC),
                reports=TYPICAL,
                title=f"Add GPQA results, take {num}",
                author="alice",
            )
            record_verdict(client, MODEL, num, verdict, visibility="public")
    snapshot = read_snapshot(client, "evalbot")
    now = time.time()
    client.zadd(
        "evalbot:web:samples",
        {encode_sample(Sample(now - 60 * i, snapshot)): now - 60 * i for i in range(60)},
    )


def history_memory(client: redis.Redis) -> None:
    """Redis's `used_memory` for 10,000 PRs (500 repos x 20 PRs), one verdict each and 20
    each, with typical verdicts and with every cap filled."""
    at = datetime.now(UTC)
    for label, found, pushes in (
        ("typical verdicts, 1 push", TYPICAL, 1),
        ("typical verdicts, 20 pushes", TYPICAL, 20),
        ("every cap filled, 1 push", FULL, 1),
        ("every cap filled, 20 pushes", FULL, 20),
    ):
        client.flushdb()
        before = int(client.info("memory")["used_memory"])
        pipe = client.pipeline(transaction=False)
        for repo in range(500):
            for num in range(1, 21):
                for push in range(pushes):
                    head = f"{repo:04d}{num:02d}{push:02d}".ljust(40, "a")
                    verdict = verdict_of(
                        head,
                        "edited",
                        "open",
                        Counts(3, 0, 3, 0, 1, 0),
                        at,
                        reports=found,
                        title="t" * 80,
                        author="someone",
                    )
                    add_verdict(pipe, f"org{repo}/model", num, verdict, visibility="public")
            pipe.execute()
        used = int(client.info("memory")["used_memory"]) - before
        report(f"history memory, 10,000 PRs, {label}", used / 2**20, "MiB")
    client.flushdb()


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(directory=Path(folder) / "redis").start()
        hub = EmulatorServer(standard_state())
        hub.start()
        try:
            client = redis.Redis.from_url(server.url, socket_timeout=30)
            history_memory(client)
            seed(client)
            api = HfApi(endpoint=hub.url, token=TOKENS["evalbot"])
            gate = Path(folder) / "mini-gate.yaml"
            gate.write_text(MINI_GATE)
            hub_client = HfHubClient(api)
            context = WebContext(
                redis=client,
                queue="evalbot",
                hub_url=hub.url,
                bot_name="evalbot",
                operators=OperatorGate(session_key(Secret("x" * 32)), Secret("x" * 32)),
                benchmarks=CachedHubBenchmarks(hub_client),
                registry=IssuerRegistry([]),
                sample_interval_s=3600,
                collections={"mini-gate": StoredCollection("mini-gate", Scope.USER, gate)},
                results_reader=hub_client,
            )
            with TestClient(create_web_app(context)) as web:
                css = len(web.get("/static/style.css").content)
                print(f"{'stylesheet (bytes, cached by ETag)':<58} {css:>14,}")
                standing = f"/collections/mini-gate?model={MODEL}"  # reads main from the Hub
                pages = (
                    "/",
                    "/playground",
                    "/history",
                    f"/history/{MODEL}",
                    f"/pr/{MODEL}/1",
                    f"/badge/{MODEL}.svg",
                    f"/badge/{MODEL}.svg?benchmark=emulator-samples/gpqa-mini",
                    f"/api/v1/repos/{MODEL}/prs",
                    f"/api/v1/repos/{MODEL}/prs/1",
                    "/benchmarks/emulator-samples/gpqa-mini",
                    "/status",
                    standing,
                )
                for path in pages:
                    response = web.get(path)
                    assert response.status_code == 200, (path, response.status_code)
                    weight = len(response.content)
                    seconds = median_seconds(partial(web.get, path), repeat=20, warmup=2)
                    report(f"GET {path}: bytes", weight, "B")
                    report(f"GET {path}: server time (median)", seconds * 1000, "ms")
                for label, text, repeat in (("4 entries", SMALL, 20), ("10,000 entries", LARGE, 5)):

                    def paste(text: str = text) -> int:
                        files = {"content": (None, text), "kind": (None, "results")}
                        response = web.post(
                            "/playground", files=files, headers={"origin": "http://testserver"}
                        )
                        assert response.status_code == 200, response.status_code
                        return len(response.content)

                    weight = paste()
                    seconds = median_seconds(paste, repeat=repeat, warmup=1)
                    report(f"POST /playground, {label}: HTML bytes", weight, "B")
                    report(f"POST /playground, {label}: server time (median)", seconds * 1000, "ms")
                    # Baseline, same process: the validator alone on the same bytes (what any
                    # check costs), so the ratio is the page's own overhead.
                    source = context.benchmarks.source(20)
                    bare = median_seconds(
                        partial(
                            validate_results_files, {".eval_results/x.yaml": text.encode()}, source
                        ),
                        repeat=repeat,
                        warmup=1,
                    )
                    report(f"POST /playground, {label}: / validation alone", seconds / bare, "x")
        finally:
            hub.stop()
            server.stop(kill=True)


if __name__ == "__main__":
    main()
