"""Reusable helpers to run the Hub emulator in tests (and in end-to-end tests of the bot).

    from tests.support.emulator import emulated_hub, hub_env, webhook_receiver  # fixtures
    def test_x(emulated_hub: EmulatorServer) -> None:
        api = client(emulated_hub, "alice")

The standard cast (see `standard_state`):
- `alice` owns `alice/model` (seeded with a README and `.eval_results/gpqa-mini.yaml`);
- `bob` is a stranger with a write token (can open PRs and comment anywhere public);
- `carol` is a write member and `dave` a read member of org `evals-org` (`evals-org/team-model`);
- `evalbot` is the bot: a fine-grained token with `repo.content.read` + `discussion.write`;
- benchmark datasets from `evalbot_dev/emulator/samples/benchmarks`: `emulator-samples/hle-mini`
  (target spec) and `emulator-samples/gpqa-mini` (live format), tagged `benchmark:official`,
  and a gated one, `emulator-samples/gated-bench`, that `evalbot` may read and `bob` may not.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from evalbot_dev.emulator.delivery import DeliverySettings
from evalbot_dev.emulator.seed import SAMPLES, load_benchmarks, read_folder
from evalbot_dev.emulator.server import EmulatorServer
from evalbot_dev.emulator.state import FileChange, HubState

TOKENS: dict[str, str] = {
    "alice": "hf_alice_write",
    "alice-read": "hf_alice_read",
    "bob": "hf_bob_write",
    "carol": "hf_carol_write",
    "dave": "hf_dave_write",
    "evalbot": "hf_evalbot_discussions",
}
MODEL = "alice/model"
ORG = "evals-org"
ORG_MODEL = "evals-org/team-model"
BENCHMARKS = ("emulator-samples/gpqa-mini", "emulator-samples/hle-mini")
#: A results entry on gpqa-mini whose task id has the wrong case (line 3), and its fix.
GPQA_TYPO = """\
- dataset:
    id: emulator-samples/gpqa-mini
    task_id: Diamond
  value: 43.1
"""
GPQA_FIXED = GPQA_TYPO.replace("Diamond", "diamond")
#: A user collection over the emulator's two benchmarks (docs/collections.md): main's seeded
#: GPQA result (41.5) clears its 40; the pass line of the aggregate is 35.
MINI_GATE = """\
name: Mini gate
category: test
version: "1"
pass_criteria:
  threshold: 35
benchmarks:
  - id: emulator-samples/gpqa-mini
    task_id: diamond
    threshold: 40
    scale: percent
  - id: emulator-samples/hle-mini
    task_id: hle
    threshold: 25
    scale: percent
"""
#: A gated benchmark: `evalbot` was granted access, `bob` was not.
GATED_BENCHMARK = "emulator-samples/gated-bench"
#: Fast retries so webhook tests finish quickly; the Hub's own pacing is not documented.
FAST_DELIVERY = DeliverySettings(max_attempts=4, backoff_s=0.05, timeout_s=5.0, workers=1)


def standard_state() -> HubState:
    state = HubState()
    for name in ("alice", "bob", "carol", "dave", "evalbot"):
        state.add_user(name, fullname=name.capitalize())
    state.add_token(TOKENS["alice"], "alice", "write")
    state.add_token(TOKENS["alice-read"], "alice", "read")
    for name in ("bob", "carol", "dave"):
        state.add_token(TOKENS[name], name, "write")
    state.add_token(
        TOKENS["evalbot"], "evalbot", "fineGrained", ["repo.content.read", "discussion.write"]
    )
    state.add_org(ORG, {"alice": "admin", "carol": "write", "dave": "read"})
    state.seed_repo("model", MODEL, read_folder(SAMPLES / "repos" / "alice" / "model"))
    state.seed_repo("model", ORG_MODEL, {"README.md": b"# team model\n"})
    load_benchmarks(state, SAMPLES / "benchmarks")
    state.seed_repo(
        "dataset",
        GATED_BENCHMARK,
        {"eval.yaml": b"name: Gated\ndescription: A gated benchmark.\ntasks:\n  - id: t\n"},
        tags=[state.benchmark_tag],
        gated="auto",
        granted=["evalbot"],
    )
    return state


@contextmanager
def running_emulator(
    state: HubState | None = None, delivery: DeliverySettings | None = None
) -> Iterator[EmulatorServer]:
    """An emulator on a free loopback port, stopped (and its webhook workers joined) on exit."""
    with EmulatorServer(state or standard_state(), delivery=delivery or FAST_DELIVERY) as hub:
        yield hub


def client(hub: EmulatorServer, user: str | None) -> Any:
    """A real `huggingface_hub.HfApi` pointed at the emulator, as `user` (None: anonymous)."""
    from huggingface_hub import HfApi

    return HfApi(endpoint=hub.url, token=TOKENS[user] if user else False)


def open_state_pr(
    hub: EmulatorServer,
    user: str,
    files: Mapping[str, bytes],
    *,
    lfs: Collection[str] = (),
    repo_id: str = MODEL,
) -> tuple[int, str]:
    """Open a PR adding `files` through the emulator's state, as `user`; the paths in `lfs` are
    stored as LFS objects (the client's upload path cannot make one). Webhooks fire as for
    a PR opened over HTTP. Returns the PR number and its head commit."""
    state = hub.state
    outcome = state.commit(
        state.tokens[TOKENS[user]],
        state.find_repo("model", repo_id),
        "main",
        [FileChange(path, content, lfs=path in lfs) for path, content in files.items()],
        summary="Add results",
        description="",
        create_pr=True,
    )
    assert outcome.pr_num is not None
    return outcome.pr_num, outcome.commit.sha


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class RecordingReceiver:
    """A webhook receiver on 127.0.0.1 that records every POST and answers `statuses` in turn.

    `statuses` is consumed one per request (then 200), so `[500, 500]` fails twice, then accepts.
    """

    statuses: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/webhooks/hub"

    def start(self) -> RecordingReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                with receiver._lock:
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                    receiver.received.append(
                        Received(self.path, dict(self.headers.items()), json.loads(raw))
                    )
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def bodies(self, scope: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [
                r.body for r in self.received if scope is None or r.body["event"]["scope"] == scope
            ]


def use_emulator_endpoint(monkeypatch: pytest.MonkeyPatch, hub: EmulatorServer) -> None:
    """Point `huggingface_hub` defaults (`HfApi()`, `hf_hub_download` without `endpoint=`) and
    child processes (`HF_ENDPOINT`) at the emulator, as production code reads them."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setattr(
        constants,
        "HUGGINGFACE_CO_URL_TEMPLATE",
        hub.url + "/{repo_id}/resolve/{revision}/{filename}",
    )


@pytest.fixture
def hub_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Keep `huggingface_hub` off the internet and out of the user's cache; returns the cache dir.

    The 2.x client asks `{HF_ENDPOINT}/api/agent-harnesses` (at the real Hub unless HF_ENDPOINT
    was set before import) while building its user agent, unless telemetry is disabled.
    """
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    cache = tmp_path / "hf-cache"
    cache.mkdir()
    return cache


@pytest.fixture
def emulated_hub(hub_env: Path) -> Iterator[EmulatorServer]:
    with running_emulator() as hub:
        yield hub


@pytest.fixture
def webhook_receiver() -> Iterator[RecordingReceiver]:
    receiver = RecordingReceiver().start()
    try:
        yield receiver
    finally:
        receiver.stop()
