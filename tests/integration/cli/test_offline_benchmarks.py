"""Benchmarks read from the Hub are cached in the Hugging Face cache, and read from it offline.

`evalbot` runs as a user runs it (a subprocess, its own `HF_HOME`) against the Hub emulator over
HTTP: one run online warms the cache, then the Hub goes away and the same check passes offline
(`HF_HUB_OFFLINE=1`, or `--offline`); a cold cache offline names what it lacks and how to go on,
and a Hub that cannot be reached is never a benchmark reported absent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalbot_dev.devstack.waiting import free_port
from tests.support.emulator import GPQA_FIXED, MINI_GATE, running_emulator

pytestmark = pytest.mark.integration

BENCHMARK = "emulator-samples/gpqa-mini"


def evalbot(
    cwd: Path, hf_home: Path, endpoint: str, *args: str, offline: bool = False
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HF_ENDPOINT": endpoint,
        "HF_HOME": str(hf_home),
        "HF_HUB_OFFLINE": "1" if offline else "0",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "EVALBOT_HUB_TIMEOUT": "5",
    }
    env.pop("HF_HUB_CACHE", None)
    env.pop("HF_TOKEN", None)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture
def model(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    (folder / ".eval_results").mkdir(parents=True)
    (folder / ".eval_results" / "gpqa.yaml").write_text(GPQA_FIXED)
    return folder


def test_a_warm_cache_validates_offline_and_a_cold_one_names_what_it_lacks(
    tmp_path: Path, model: Path
) -> None:
    warm = tmp_path / "warm-hf"
    with running_emulator() as hub:
        online = evalbot(tmp_path, warm, hub.url, "validate", "model")
        assert online.returncode == 0, online.stdout + online.stderr
        cached = warm / "hub" / "datasets--emulator-samples--gpqa-mini"
        snapshot = (cached / "refs" / "main").read_text()
        assert (cached / "snapshots" / snapshot / "eval.yaml").is_file()
        # A second online run reads the eval.yaml from the cache: one revision call only.
        hub.faults.reset_counters()
        again = evalbot(tmp_path, warm, hub.url, "validate", "model")
        assert again.returncode == 0, again.stderr
        assert sum(hub.faults.count_snapshot().values()) == 1, hub.faults.count_snapshot()
        endpoint = hub.url
    # The Hub is gone: offline, the cache answers, with the same verdict.
    offline = evalbot(tmp_path, warm, endpoint, "validate", "model", offline=True)
    assert offline.returncode == 0, offline.stdout + offline.stderr
    assert offline.stdout == online.stdout
    flag = evalbot(tmp_path, warm, endpoint, "validate", "model", "--offline")
    assert flag.returncode == 0, flag.stdout + flag.stderr
    # An id in another case is the same benchmark, as on the Hub.
    shouted = model / ".eval_results" / "gpqa.yaml"
    shouted.write_text(GPQA_FIXED.replace(BENCHMARK, "Emulator-Samples/GPQA-Mini"))
    case = evalbot(tmp_path, warm, endpoint, "validate", "model", offline=True)
    assert "ENTRY-BENCHMARK-UNKNOWN" not in case.stdout, case.stdout
    assert case.returncode == 0, case.stdout + case.stderr
    # A cold cache offline: an error naming the benchmark and the ways on, never "absent".
    cold = evalbot(tmp_path, tmp_path / "cold-hf", endpoint, "validate", "model", offline=True)
    assert cold.returncode == 2, cold.stdout + cold.stderr
    assert "ENTRY-BENCHMARK-UNKNOWN" not in cold.stdout
    assert "evalbot validate: offline: Emulator-Samples/GPQA-Mini is not in the Hugging Face" in (
        cold.stderr
    )
    assert str(tmp_path / "cold-hf" / "hub") in cold.stderr
    assert "--benchmarks DIR" in cold.stderr


def test_an_unreachable_hub_is_an_error_that_says_how_to_go_on(tmp_path: Path, model: Path) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"
    done = evalbot(tmp_path, tmp_path / "hf", nowhere, "validate", "model")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "ENTRY-BENCHMARK-UNKNOWN" not in done.stdout
    assert "--offline reads those an earlier run cached" in done.stderr
    assert "--benchmarks DIR" in done.stderr


def test_a_dataset_the_hub_does_not_have_is_absent(tmp_path: Path, model: Path) -> None:
    (model / ".eval_results" / "gpqa.yaml").write_text(
        GPQA_FIXED.replace(BENCHMARK, "emulator-samples/no-such-bench")
    )
    with running_emulator() as hub:
        done = evalbot(tmp_path, tmp_path / "hf", hub.url, "validate", "model")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "ENTRY-BENCHMARK-UNKNOWN" in done.stdout


def test_collections_and_gate_offline(tmp_path: Path, model: Path) -> None:
    gates = tmp_path / "gates"
    gates.mkdir()
    (gates / "mini.yaml").write_text(MINI_GATE)
    hle = model / ".eval_results" / "hle.yaml"
    hle.write_text("- dataset:\n    id: emulator-samples/hle-mini\n    task_id: hle\n  value: 30\n")
    warm = tmp_path / "warm-hf"
    cold_run = evalbot(
        tmp_path,
        tmp_path / "cold",
        "http://127.0.0.1:9",
        "collections",
        "validate",
        "gates/mini.yaml",
        offline=True,
    )
    assert cold_run.returncode == 2, cold_run.stdout + cold_run.stderr
    assert "offline: emulator-samples/gpqa-mini is not in the Hugging Face cache" in (
        cold_run.stderr
    )
    assert "--benchmarks DIR" in cold_run.stderr
    with running_emulator() as hub:
        gate = ["gate", "--collection", "gates/mini.yaml", "model"]
        online = evalbot(tmp_path, warm, hub.url, *gate)
        assert online.returncode == 0, online.stdout + online.stderr
        endpoint = hub.url
    offline = evalbot(tmp_path, warm, endpoint, *gate, "--offline")
    assert offline.returncode == 0, offline.stdout + offline.stderr
    assert offline.stdout == online.stdout
    checked = evalbot(
        tmp_path, warm, endpoint, "collections", "validate", "gates/mini.yaml", offline=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    hub_target = evalbot(
        tmp_path,
        warm,
        endpoint,
        "gate",
        "--collection",
        "gates/mini.yaml",
        "alice/model",
        "--offline",
    )
    assert hub_target.returncode == 2
    assert "gate a model folder" in hub_target.stderr
