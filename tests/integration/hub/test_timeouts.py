"""Every Hub call the bot makes is bounded by `EVALBOT_HUB_TIMEOUT` (bot.hub.timeouts).

The Hub here is a socket that accepts connections and never answers a byte: the way a hung
proxy or an overloaded Hub looks to a client. huggingface_hub passes `timeout=None` on each
request of `dataset_info`, `model_info` and its paginated listings, which overrode the client's
timeout: those calls waited for ever (and `evalbot validate`, the pre-commit hook, with them).
Each call must now fail as a transient error after one bounded request, not be retried by the
library (its `http_backoff` would add five more attempts and 23 s of sleeps).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from huggingface_hub import HfApi, set_client_factory
from huggingface_hub.utils._http import default_client_factory

from bot.hub.client import HfHubClient
from bot.hub.errors import HubTransientError
from bot.hub.identity import whoami
from bot.hub.timeouts import use_hub_timeout
from tests.support.processes import REPO_ROOT

pytestmark = [pytest.mark.integration, pytest.mark.timeout(30)]

#: Small, so the suite stays fast; the deadline above is what catches a call left unbounded.
TIMEOUT_S = 0.3
MODEL = "alice/model"
SHA = "a" * 40


@pytest.fixture
def silent_hub(hub_env: Path) -> Iterator[str]:
    """The URL of a server that accepts every connection and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.05)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(connection)

    thread = threading.Thread(target=accept, name="silent-hub", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        server.close()


@pytest.fixture
def api(silent_hub: str) -> Iterator[HfApi]:
    use_hub_timeout(TIMEOUT_S)
    try:
        yield HfApi(endpoint=silent_hub, token="hf_bot_token")
    finally:
        set_client_factory(default_client_factory)  # the library's own, for the other tests


CALLS: dict[str, Callable[[HfHubClient], object]] = {
    # discussion details with the diff: get_session().get, the client's default timeout
    "pull_request": lambda bot: bot.pull_request(MODEL, 1),
    # resolve, streamed and capped (bot.hub.capped_read)
    "read_file": lambda bot: bot.read_file(MODEL, ".eval_results/a.yaml", SHA),
    # dataset_info: timeout=None on the request
    "dataset_revision": lambda bot: bot.dataset_revision("org/bench", None),
    "dataset_revision_at_sha": lambda bot: bot.dataset_revision("org/bench", SHA),
    # list_repo_commits: paginate -> http_backoff, timeout=None
    "list_commits": lambda bot: bot.list_commits(MODEL, SHA),
    # get_repo_discussions: paginate
    "open_pull_requests": lambda bot: bot.open_pull_requests(MODEL, limit=10),
    "post_comment": lambda bot: bot.post_comment(MODEL, 1, "report"),
    "edit_comment": lambda bot: bot.edit_comment(MODEL, 1, "c0ffee", "report"),
    # the fallbacks of pull_request: model_info (timeout=None) and list_repo_tree (paginate)
    "ref_sha": lambda bot: bot._ref_sha(MODEL, "refs/pr/1"),
    "results_tree": lambda bot: bot.results_tree(MODEL, SHA),
    # a benchmark's eval.yaml PR, its comment, and the leaderboard (get_dataset_leaderboard)
    "dataset_pull_request": lambda bot: bot.dataset_pull_request("org/bench", 1),
    "post_comment_on_dataset": lambda bot: bot.post_comment(
        "org/bench", 1, "report", repo_type="dataset"
    ),
    "leaderboard": lambda bot: bot.leaderboard("org/bench"),
    # who a token belongs to (bot.hub.identity)
    "whoami": lambda bot: whoami(bot._api, "hf_someone"),
    # open_pull_requests' second call, reached only once PRs are listed
    "list_repo_refs": lambda bot: bot._api.list_repo_refs(MODEL, include_pull_requests=True),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_hub_call_fails_as_transient_on_a_hub_that_never_answers(
    api: HfApi, name: str
) -> None:
    with pytest.raises(HubTransientError, match="did not answer"):
        CALLS[name](HfHubClient(api))


def validate_in_a_process(repo: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m bot validate REPO` as the pre-commit hook runs it, with `env` added."""
    return bot_in_a_process("validate", str(repo), **env)


def bot_in_a_process(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m bot ARGV...` in its own process, with `env` added."""
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv],
        env={**os.environ, **env},
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=25,
        check=False,
    )


def test_validate_gives_up_on_a_hub_that_never_answers(silent_hub: str, tmp_path: Path) -> None:
    """The pre-commit hook's own process, with `EVALBOT_HUB_TIMEOUT` from its environment."""
    (tmp_path / ".eval_results").mkdir()
    (tmp_path / ".eval_results" / "gpqa.yaml").write_text(
        "- dataset:\n    id: org/bench\n    task_id: diamond\n  value: 0.42\n"
    )
    done = validate_in_a_process(
        tmp_path,
        HF_ENDPOINT=silent_hub,
        HF_HUB_DISABLE_TELEMETRY="1",
        EVALBOT_HUB_TIMEOUT=str(TIMEOUT_S),
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "did not answer" in done.stderr


def test_validate_refuses_a_malformed_hub_timeout(tmp_path: Path) -> None:
    (tmp_path / ".eval_results").mkdir()
    (tmp_path / ".eval_results" / "a.yaml").write_text("- value: 1\n")
    done = validate_in_a_process(tmp_path, EVALBOT_HUB_TIMEOUT="soon", HF_HUB_OFFLINE="1")
    assert done.returncode == 2
    assert "EVALBOT_HUB_TIMEOUT must be a number" in done.stderr


def test_submit_gives_up_on_a_hub_that_never_answers(silent_hub: str) -> None:
    """A framework output converted offline, then the benchmark's commit asked of the Hub:
    the CI job fails in bounded time, before asking the issuer (nothing listens at :9), in
    one line naming the Hub, exit 2."""
    samples = REPO_ROOT / "tests" / "samples"
    done = bot_in_a_process(
        "submit",
        str(samples / "real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"),
        "--mappings",
        str(samples / "convert/mappings/lm-eval-math-to-hle-mini.yaml"),
        "--benchmarks",
        str(REPO_ROOT / "evalbot_dev/emulator/samples/benchmarks"),
        "--model-repo",
        MODEL,
        "--issuer",
        "http://127.0.0.1:9",
        HF_ENDPOINT=silent_hub,
        HF_TOKEN="hf_someone",
        HF_HUB_DISABLE_TELEMETRY="1",
        EVALBOT_HUB_TIMEOUT=str(TIMEOUT_S),
    )
    assert done.returncode == 2, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("evalbot submit: "), done.stderr
    assert f"the Hub at {silent_hub} is unavailable" in last
    assert "did not answer" in last
    assert "Traceback" not in done.stderr
