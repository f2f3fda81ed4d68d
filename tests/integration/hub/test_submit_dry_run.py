"""`evalbot submit --dry-run` with what a framework author has: no issuer, and a Hub that may
be out of reach; the real `huggingface_hub` client against the emulator over HTTP, in process
and as the `evalbot` entry point started from an empty folder.

A dry run asks no issuer, so it needs none; it asked for one all the same. With the Hub
unreachable it printed, after 25 s of retries, a proposal as if main had no results file.
Now: one line naming the Hub and the fix (exit 2); `HF_HUB_OFFLINE=1` runs it without the
Hub, saying which of main's files it did not read; `--base FILE` stands for main's copy.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bot.cli import main
from bot.validation.yamlload import load_yaml
from evalbot_dev.devstack.environment import inherited_environment
from evalbot_dev.emulator.server import EmulatorServer
from evalbot_dev.emulator.state import FileChange
from tests.conftest import REPO_ROOT
from tests.support.delay_proxy import DelayProxy, running_delay_proxy
from tests.support.emulator import MODEL, TOKENS

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

HLE = "emulator-samples/hle-mini"
PATH = ".eval_results/hle_mini.yaml"
LM_EVAL_RUN = REPO_ROOT / "tests/samples/real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"
LM_EVAL_ROWS = REPO_ROOT / "tests/samples/convert/mappings/lm-eval-math-to-hle-mini.yaml"
BENCHMARKS = REPO_ROOT / "evalbot_dev/emulator/samples/benchmarks"
ON_MAIN = f"- dataset: {{id: {HLE}, task_id: hle}}\n  value: 12.5\n  notes: on main\n"


def entry(notes: str) -> str:
    return (
        f"- dataset: {{id: {HLE}, task_id: hle, revision: {'b' * 40}}}\n"
        f"  model_revision: {'a' * 40}\n"
        "  metrics: [{metric_id: accuracy, value: 41.5}]\n"
        f"  notes: {notes}\n"
    )


@pytest.fixture
def hub(emulated_hub: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> EmulatorServer:
    """The emulator with main's hle-mini results file; no issuer anywhere in the environment."""
    state = emulated_hub.state
    state.commit(
        state.tokens[TOKENS["alice"]],
        state.find_repo("model", MODEL),
        "main",
        [FileChange(PATH, ON_MAIN.encode())],
        summary="Results",
        description="",
    )
    monkeypatch.delenv("EVALBOT_ISSUER_URL", raising=False)
    monkeypatch.setenv("HF_TOKEN", TOKENS["bob"])
    return emulated_hub


@pytest.fixture
def proxy(hub: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[DelayProxy]:
    """The emulator behind a loopback proxy, as `HF_ENDPOINT`."""
    with running_delay_proxy(urlsplit(hub.url).port or 80) as started:
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{started.port}")
        yield started


def dry_run(*argv: str) -> int:
    return main(["submit", *argv, "--model-repo", MODEL, "--dry-run"])


def test_a_dry_run_without_an_issuer_merges_with_main(
    proxy: DelayProxy, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.yaml"
    results.write_text(entry("this run"))
    assert dry_run(str(results)) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"# {PATH}\n{ON_MAIN}- dataset:\n")
    assert 'verify_token: "<issued by the issuer when submitted>"' in out
    assert err == ""


def test_a_dry_run_of_a_framework_output_pins_the_benchmarks_commit(
    hub: EmulatorServer, proxy: DelayProxy, capsys: pytest.CaptureFixture[str]
) -> None:
    sha = hub.state.find_repo("dataset", HLE).branches["main"]
    argv = [str(LM_EVAL_RUN), "--mappings", str(LM_EVAL_ROWS), "--benchmarks", str(BENCHMARKS)]
    assert dry_run(*argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# {PATH}\n{ON_MAIN}")
    proposed = load_yaml(out.split("\n", 1)[1].encode()).data
    assert [entry["dataset"]["revision"] for entry in proposed[1:]] == [sha, sha]


@pytest.mark.parametrize("answer", [503, None], ids=["503", "dropped"])
def test_a_hub_out_of_reach_is_one_line_naming_it_and_the_fix(
    proxy: DelayProxy,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    answer: int | None,
) -> None:
    results = tmp_path / "results.yaml"
    results.write_text(entry("this run"))
    proxy.drop_requests(b"/resolve/", answer=answer)
    assert dry_run(str(results)) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(
        f"evalbot submit: cannot read {PATH} on {MODEL} main: the Hub at "
        f"http://127.0.0.1:{proxy.port} is unavailable ("
    )
    assert err.rstrip().endswith(
        "nothing was written: retry, or check HF_ENDPOINT; or try the dry run without the "
        "Hub: HF_HUB_OFFLINE=1 (with --benchmarks DIR for a framework's output), and --base "
        "FILE for main's copy"
    )
    assert proxy.dropped


def test_a_base_stands_for_mains_copy_when_the_hub_cannot_be_read(
    proxy: DelayProxy, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.yaml"
    results.write_text(entry("this run"))
    base = tmp_path / "hle_mini.yaml"
    base.write_text("# a local copy\n" + ON_MAIN)
    proxy.drop_requests(b"/resolve/")
    assert dry_run(str(results), "--base", str(base)) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"# {PATH}\n# a local copy\n{ON_MAIN}- dataset:\n")
    assert err == ""
    assert proxy.dropped == []  # main's file was not asked for


def evalbot(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The `evalbot` entry point of this environment, as a user runs it: from `cwd`, with no
    issuer, no Hub token and no PYTHONPATH."""
    environment = inherited_environment()
    for name in ("PYTHONPATH", "HF_TOKEN", "EVALBOT_ISSUER_URL", "HF_ENDPOINT"):
        environment.pop(name, None)
    environment |= {"HF_HOME": str(cwd / ".hf-home"), "HF_HUB_DISABLE_TELEMETRY": "1", **env}
    return subprocess.run(
        [str(Path(sys.executable).with_name("evalbot")), *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_entry_point_offline_from_an_empty_folder(tmp_path: Path) -> None:
    """A framework author's first try: no issuer, no Hub (`HF_HUB_OFFLINE=1`), benchmarks from
    a folder, a framework output and a results YAML, run from an empty folder."""
    folder = tmp_path / "empty"
    folder.mkdir()
    assert os.listdir(folder) == []
    (folder / "results.yaml").write_text(entry("by hand"))
    done = evalbot(
        folder,
        "submit",
        "results.yaml",
        str(LM_EVAL_RUN),
        "--mappings",
        str(LM_EVAL_ROWS),
        "--benchmarks",
        str(BENCHMARKS),
        "--model-repo",
        MODEL,
        "--dry-run",
        HF_HUB_OFFLINE="1",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"# {PATH}: only the entries this submission adds; main's")
    assert done.stdout.count("verify_token:") == 3
    assert 'revision: "<the benchmark\'s commit on main when submitted>"' in done.stdout
    assert f"HF_HUB_OFFLINE is set: main's {PATH} was not read" in done.stderr
    assert "Traceback" not in done.stderr
    # The real submission, offline: one line, exit 2, before any issuer is asked.
    real = evalbot(
        folder,
        "submit",
        "results.yaml",
        "--model-repo",
        MODEL,
        "--issuer",
        "http://127.0.0.1:9",
        HF_HUB_OFFLINE="1",
    )
    assert real.returncode == 2
    assert real.stderr.count("\n") == 1
    assert "HF_HUB_OFFLINE is set" in real.stderr
