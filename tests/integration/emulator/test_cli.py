"""`python -m evalbot_dev.emulator` as a separate process, seeded from the sample state file."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from evalbot_dev.devstack.listening import ServerAddress
from evalbot_dev.devstack.waiting import wait_until

pytestmark = pytest.mark.integration
REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLE_STATE = REPO_ROOT / "evalbot_dev" / "emulator" / "samples" / "state.yaml"


def test_cli_serves_the_sample_state(hub_env: Path, tmp_path: Path) -> None:
    from huggingface_hub import HfApi

    address = ServerAddress()  # bound here and inherited: no port race (`--fd`)
    extra = tmp_path / "benchmarks" / "extra-org" / "extra-bench"
    extra.mkdir(parents=True)
    (extra / "eval.yaml").write_text("name: Extra\ntasks:\n  - id: t\n")
    listen, pass_fds = address.spawn_arguments()
    command = [sys.executable, "-m", "evalbot_dev.emulator", *listen]
    command += ["--state", str(SAMPLE_STATE), "--benchmarks", str(tmp_path / "benchmarks")]
    process = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=pass_fds,
    )
    address.close()
    url = address.url
    try:
        wait_until(
            lambda: httpx.get(f"{url}/_emulator/health", trust_env=False).status_code == 200,
            timeout=20,
            what="emulator health",
        )
        api = HfApi(endpoint=url, token="hf_alice_write")
        assert api.whoami()["name"] == "alice"
        assert sorted(d.id for d in api.list_datasets(benchmark=True)) == [
            "emulator-samples/gpqa-mini",
            "emulator-samples/hle-mini",
            "extra-org/extra-bench",
        ]
        files = api.list_repo_files("alice/model")
        assert ".eval_results/gpqa-mini.yaml" in files
        bot = HfApi(endpoint=url, token="hf_evalbot_discussions").whoami()
        assert bot["auth"]["accessToken"]["role"] == "fineGrained"
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr.decode()


def test_cli_refuses_a_broken_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text("orgs:\n  - name: o\n    members: {ghost: write}\n")
    result = subprocess.run(
        [sys.executable, "-m", "evalbot_dev.emulator", "--port", "0", "--state", str(state)],
        cwd=REPO_ROOT,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2
    assert b"unknown member ghost" in result.stderr
