"""A reviewer's paths through the installed wheel, from an empty folder: the README's
`convert --to eee` with and without the Hub, `playground`, `submit` and `gate` offline or with
no Hub at all, and `--help`. Each ran wrong on the wheel before it was fixed (exit 0 with a
guessed metric direction, a 503 that said "retry", `--offline` unlike `HF_HUB_OFFLINE=1`, 27 s
of retries, no documentation URL).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from evalbot_dev.devstack.waiting import free_port, wait_until
from evalbot_dev.emulator.seed import load_state_file
from evalbot_dev.emulator.server import EmulatorServer
from tests.conftest import REPO_ROOT
from tests.docs.world import HUB_STATE
from tests.installed.test_installed import LM_EVAL, installed, run

pytestmark = [pytest.mark.installed, pytest.mark.integration]

AIME_FOLDER = Path("eee/data/MathArena_aime_2026/google/gemma-4-12B-it")
#: The README's block, as written, from inside `examples/`.
CONVERT = ("convert", "--to", "eee", "model-good", "--model-repo", "google/gemma-4-12B-it")


@pytest.fixture(scope="module")
def venv() -> Path:
    return installed("EVALBOT_INSTALLED_VENV")


@pytest.fixture(scope="module")
def server_venv() -> Path:
    return installed("EVALBOT_SERVER_VENV")


@pytest.fixture(scope="module")
def hub() -> Iterator[EmulatorServer]:
    """The Hub the docs' blocks run against: examples/model-good and examples/benchmarks."""
    loaded = load_state_file(HUB_STATE)
    with EmulatorServer(loaded.state, delivery=loaded.delivery) as server:
        yield server


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    folder = tmp_path / "user" / "examples"
    shutil.copytree(REPO_ROOT / "examples", folder)
    return folder


def online(hub: EmulatorServer) -> dict[str, str]:
    return {"HF_ENDPOINT": hub.url, "HF_HUB_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "1"}


def no_hub() -> dict[str, str]:
    """A Hub that refuses every connection: nothing listens on its port."""
    return {"HF_ENDPOINT": f"http://127.0.0.1:{free_port()}", "HF_HUB_OFFLINE": "0"}


def configs(record_file: Path) -> dict[str, dict[str, Any]]:
    record = json.loads(record_file.read_bytes())
    return {
        r["metric_config"]["metric_id"]: r["metric_config"] for r in record["evaluation_results"]
    }


def test_the_readmes_convert_to_eee_reads_the_benchmarks_or_refuses(
    venv: Path, examples: Path, hub: EmulatorServer
) -> None:
    """Offline with nothing cached: refused, nothing written. With the Hub: the AIME record
    says what its eval.yaml declares (cost and attempts: lower is better). Again with
    `--benchmarks`: the same evaluations, nothing doubled."""
    cold = run(venv, examples, *CONVERT, "--out", "eee")
    assert cold.returncode == 2, cold.stderr
    assert "offline: MathArena/aime_2026 at revision" in cold.stderr
    assert "run once with the Hub reachable to cache it, or give --benchmarks DIR" in cold.stderr
    assert not (examples / "eee").exists()
    done = run(venv, examples, *CONVERT, "--out", "eee", env=online(hub))
    assert done.returncode == 0, done.stderr
    (aime,) = (examples / AIME_FOLDER).glob("*.json")
    found = configs(aime)
    assert found["cost_usd"]["lower_is_better"] is True
    assert found["attempts"]["lower_is_better"] is True
    assert (found["accuracy"]["min_score"], found["accuracy"]["max_score"]) == (0, 100)
    again = run(venv, examples, *CONVERT, "--out", "eee", "--benchmarks", "benchmarks")
    assert again.returncode == 0, again.stderr
    assert "4 EEE record(s) in eee: 0 new, 0 replaced, 4 unchanged" in again.stderr
    assert list((examples / AIME_FOLDER).glob("*.json")) == [aime]
    checked = run(venv, examples, "validate", "eee")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "4 files, 4 EEE records: 0 errors, 0 warnings" in checked.stdout


def test_submit_offline_is_hf_hub_offline(venv: Path, examples: Path) -> None:
    """`--offline` and `HF_HUB_OFFLINE=1` give the same dry run, the Hub never asked (none
    listens): a results file, and an lm-eval output with `--benchmarks`."""
    shutil.copy(examples / "model-good" / ".eval_results" / "hle.yaml", examples / "results.yaml")
    shutil.copy(LM_EVAL, examples / LM_EVAL.name)
    for args in (
        ("results.yaml",),
        (LM_EVAL.name, "--benchmarks", "benchmarks", "--model-revision", "a" * 40),
    ):
        command = ("submit", *args, "--model-repo", "acme/llama-9b", "--dry-run")
        flag = run(venv, examples, *command, "--offline", env=no_hub())
        variable = run(venv, examples, *command, env=no_hub() | {"HF_HUB_OFFLINE": "1"})
        assert flag.returncode == variable.returncode == 0, flag.stderr + variable.stderr
        assert flag.stdout == variable.stdout
        assert "main's file was not read" in flag.stdout
        assert "--offline is given: main's .eval_results/" in flag.stderr


def test_gate_on_a_hub_repo_with_no_hub_fails_at_once_and_names_what_works(
    venv: Path, examples: Path
) -> None:
    args = ("gate", "--collection", "leaderboard-v2", "google/gemma-4-12B-it")
    done = run(venv, examples, *args, "--benchmarks", "benchmarks", env=no_hub())
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Retrying" not in done.stderr  # huggingface_hub's backoff: 5 retries, 23 s
    [line] = [text for text in done.stderr.splitlines() if text.startswith("evalbot gate: ")]
    assert "Connection refused" in line
    assert line.endswith(
        "google/gemma-4-12B-it is a Hub repo, whose results only the Hub has: to gate without"
        " the Hub, gate a model folder holding its .eval_results/*.yaml (a clone of the repo)"
    )
    without = run(venv, examples, *args, env=no_hub())
    assert "with --benchmarks DIR or --offline for its benchmarks" in without.stderr


def test_help_names_the_documentation(venv: Path, examples: Path) -> None:
    done = run(venv, examples, "--help")
    assert done.returncode == 0, done.stderr
    assert (
        "documentation: https://github.com/evalbot/evalbot/blob/main/docs/README.md;" in done.stdout
    )


def playground(
    server_venv: Path, folder: Path, env: dict[str, str], *args: str
) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = free_port()
    log = folder.parent / f"playground-{port}.log"
    environment = run_environment(folder, env)
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(server_venv / "bin" / "evalbot"), "playground", "--port", str(port), *args],
            cwd=folder,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    wait_until(
        lambda: httpx.get(url + "/playground", timeout=2).status_code == 200,
        timeout=60,
        what="evalbot playground answering",
        process=process,
        log=log,
    )
    return process, url, log


def run_environment(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """`run`'s environment (no checkout, no token, HF_HOME in the folder), as a mapping."""
    from evalbot_dev.devstack.environment import inherited_environment

    environment = inherited_environment()
    for name in ("PYTHONPATH", "HF_TOKEN", "VIRTUAL_ENV"):
        environment.pop(name, None)
    return environment | {"HF_HUB_OFFLINE": "1", "HF_HOME": str(folder / ".hf-home")} | env


def paste(url: str, content: str) -> httpx.Response:
    return httpx.post(
        url + "/playground",
        data={"content": content, "kind": "results"},
        headers={"Origin": url},
        timeout=60,
    )


def test_the_playground_reads_benchmarks_as_validate_does_offline_too(
    server_venv: Path, examples: Path, hub: EmulatorServer
) -> None:
    """With HF_HUB_OFFLINE=1 and a cold cache the page says how to go on (never "retry");
    with the cache `validate` warmed, `--offline` (or HF_HUB_OFFLINE=1) checks the file; so
    does `--benchmarks DIR`."""
    gpqa = (examples / "model-good" / ".eval_results" / "gpqa.yaml").read_text()
    process, url, _log = playground(server_venv, examples, {})
    try:
        cold = paste(url, gpqa)
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert cold.status_code == 503
    assert "is not in the Hugging Face cache" in cold.text
    assert "--benchmarks DIR" in cold.text
    assert "retry" not in cold.text.lower()
    warmed = run(server_venv, examples, "validate", "model-good", env=online(hub))
    assert warmed.returncode == 0, warmed.stdout + warmed.stderr
    for env, args in (
        ({}, ()),
        ({"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}, ("--offline",)),
        ({}, ("--benchmarks", "benchmarks")),
    ):
        process, url, log = playground(server_venv, examples, env, *args)
        try:
            checked = paste(url, gpqa)
        finally:
            process.terminate()
            process.wait(timeout=30)
        assert checked.status_code == 200, (args, checked.text, log.read_text())
        assert "No errors" in checked.text, args
