"""`evalbot validate` without `--benchmarks`: benchmarks read from the emulator at HF_ENDPOINT.

The emulator is seeded with `examples/benchmarks/`; the example model folders must get the same
verdicts as offline (the folder source), in process and as a subprocess of `.venv/bin/evalbot`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from evalbot_dev.emulator.seed import load_benchmarks
from evalbot_dev.emulator.server import EmulatorServer
from tests.conftest import REPO_ROOT
from tests.support.emulator import running_emulator, standard_state, use_emulator_endpoint

pytestmark = pytest.mark.integration

EXAMPLES = REPO_ROOT / "examples"
#: `examples/model-good` pins MathArena/aime_2026 at this revision (a real-Hub-style SHA).
PINNED = {"MathArena/aime_2026": "bafec50ab78c16e774241f7fe89e53f242fcb5ad"}
MODELS = ("model-good", "model-broken")


@pytest.fixture
def examples_hub(hub_env: Path) -> Iterator[EmulatorServer]:
    state = standard_state()
    load_benchmarks(state, EXAMPLES / "benchmarks", pinned=PINNED)
    with running_emulator(state) as hub:
        yield hub


def verdicts(report: dict[str, Any]) -> dict[str, Any]:
    """Everything a verdict is made of: oks, badges, verification, and each finding's place.

    Messages are left out: where a benchmark is missing, the folder source suggests a close id
    and the Hub source says the dataset is not on the Hub; both are the same finding.
    """

    def finding(d: dict[str, Any]) -> tuple[Any, ...]:
        return (d["code"], d["severity"], d["line"], d["column"], d["field"])

    return {
        "ok": report["ok"],
        "files": [
            {
                "path": f["path"],
                "ok": f["ok"],
                "diagnostics": [finding(d) for d in f["diagnostics"]],
                "entries": [
                    {
                        "index": e["index"],
                        "ok": e["ok"],
                        "badges": e["badges"],
                        "verification": e["verification"],
                        "diagnostics": [finding(d) for d in e["diagnostics"]],
                    }
                    for e in f["entries"]
                ],
            }
            for f in report["files"]
        ],
    }


def run_in_process(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any]]:
    status = main(["validate", *args, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("model", MODELS)
def test_in_process_same_verdicts_as_offline(
    examples_hub: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    model: str,
) -> None:
    monkeypatch.chdir(REPO_ROOT)
    path = f"examples/{model}"
    offline_status, offline = run_in_process([path, "--benchmarks", "examples/benchmarks"], capsys)
    use_emulator_endpoint(monkeypatch, examples_hub)
    examples_hub.faults.reset_counters()

    hub_status, from_hub = run_in_process([path], capsys)

    assert hub_status == offline_status == (0 if model == "model-good" else 1)
    assert verdicts(from_hub) == verdicts(offline)
    calls = examples_hub.counters()  # the benchmarks really came from the emulator
    assert calls.get("repos.info", 0) + calls.get("repos.info_at_revision", 0) >= 1


def test_subprocess_same_verdicts_as_offline(examples_hub: EmulatorServer, tmp_path: Path) -> None:
    evalbot = Path(sys.executable).with_name("evalbot")
    env = {
        **os.environ,
        "HF_ENDPOINT": examples_hub.url,
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
    }
    env.pop("HF_TOKEN", None)
    for model in MODELS:
        path = f"examples/{model}"

        def run(*extra: str, path: str = path) -> subprocess.CompletedProcess[str]:
            return subprocess.run(  # noqa: PLW1510 - the status is asserted
                [str(evalbot), "validate", path, "--format", "json", *extra],
                cwd=REPO_ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )

        offline, from_hub = run("--benchmarks", "examples/benchmarks"), run()
        assert from_hub.returncode == offline.returncode == (0 if model == "model-good" else 1), (
            from_hub.stderr
        )
        assert verdicts(json.loads(from_hub.stdout)) == verdicts(json.loads(offline.stdout))


def test_an_unreachable_hub_is_exit_2(
    hub_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from huggingface_hub import constants

    with running_emulator() as hub:
        url = hub.url  # stopped on exit: nothing listens there any more
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.setattr(constants, "ENDPOINT", url)

    assert main(["validate", "examples/model-good"]) == 2
    assert "Hub" in capsys.readouterr().err


def test_a_rejected_hub_token_is_exit_2_not_benchmarks_missing(
    examples_hub: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A revoked `HF_TOKEN` (the Hub's 401) read as "dataset not found on the Hub": a good
    model's every entry failed, exit 1, blaming the results instead of the token."""
    monkeypatch.chdir(REPO_ROOT)
    use_emulator_endpoint(monkeypatch, examples_hub)
    monkeypatch.setenv("HF_TOKEN", "hf_revoked")
    assert main(["validate", "examples/model-good"]) == 2
    out, err = capsys.readouterr()
    assert "could not read benchmarks from the Hub (Hub answered 401" in err
    assert "not found" not in out
