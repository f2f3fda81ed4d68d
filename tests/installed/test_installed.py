"""The user jobs, run by an installed evalbot from a folder outside the checkout.

`.ci/installed-smoke` builds the wheel from the checkout, installs it with the runtime lock into
a fresh virtualenv and runs this module with `EVALBOT_INSTALLED_VENV` naming that virtualenv.
Every command here is that virtualenv's `evalbot`, started in an empty folder with no
`PYTHONPATH`: what it needs (collections, mapping table, configuration, templates) must come
from the wheel. The Hub emulator, Redis, the OIDC provider and the issuer are the checkout's
development tools: they play the world around the user, not the product under test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalbot_dev.devstack.environment import inherited_environment
from tests.conftest import REPO_ROOT
from tests.integration.issuer.conftest import HLE, IssuerEnv, issuer_env
from tests.support.emulator import MODEL, TOKENS

#: One xdist group: the module's virtualenv and issuer are started once (.ci/installed-smoke).
pytestmark = [pytest.mark.installed, pytest.mark.integration, pytest.mark.xdist_group("installed")]

VENV_VARIABLE = "EVALBOT_INSTALLED_VENV"
SAMPLES = REPO_ROOT / "tests" / "samples"
#: A real lm-eval output the shipped mapping table maps (openai/gsm8k).
LM_EVAL = SAMPLES / "convert" / "lm-eval" / "gsm8k-v0-res.json"
#: A real inspect-ai log (inspect_evals/mmlu_0_shot on `cais/mmlu`, config `all`, split `test`);
#: no shipped row maps it and `cais/mmlu` publishes no eval.yaml, so the job declares one and
#: adds a row with `--mappings`, as a framework author would for a benchmark of their own.
INSPECT = SAMPLES / "convert" / "inspect-ai" / "mmlu-summary-choices.eval"
INSPECT_ROW = (
    "mappings:\n"
    "  - {framework: inspect-ai, task: inspect_evals/mmlu_0_shot, metric: choice/accuracy,"
    " benchmark: cais/mmlu, task_id: mmlu, metric_id: accuracy, scale: percent}\n"
)
SMOKE_EVAL_YAML = """\
name: MMLU (smoke)
description: A benchmark declared by the installed-package check for one inspect-ai row.
metrics:
  - id: accuracy
    display_name: Accuracy
    higher_is_better: true
    primary: true
tasks:
  - id: mmlu
    config: all
    split: test
"""


@pytest.fixture(scope="module")
def venv() -> Path:
    chosen = os.environ.get(VENV_VARIABLE)
    if not chosen:
        pytest.fail(f"{VENV_VARIABLE} is not set: run .ci/installed-smoke, which sets it")
    folder = Path(chosen)
    if not (folder / "bin" / "evalbot").is_file():
        pytest.fail(f"{VENV_VARIABLE}={chosen}: no bin/evalbot there; is evalbot installed?")
    return folder


@pytest.fixture
def user(tmp_path: Path) -> Path:
    """The user's folder: empty but for what the test copies in, outside the checkout."""
    folder = tmp_path / "user"
    folder.mkdir()
    assert not folder.resolve().is_relative_to(REPO_ROOT)
    return folder


def run(
    venv: Path, cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = inherited_environment()
    for name in ("PYTHONPATH", "HF_TOKEN", "VIRTUAL_ENV"):
        environment.pop(name, None)
    environment |= {"HF_HUB_OFFLINE": "1", "HF_HOME": str(cwd / ".hf-home")}
    environment |= env or {}
    return subprocess.run(
        [str(venv / "bin" / "evalbot"), *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_installed_package_is_the_one_run(venv: Path, user: Path) -> None:
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import bot; print(bot.__file__)"],
        cwd=user,
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert Path(done.stdout.strip()).resolve().is_relative_to(venv.resolve())
    missing = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import evalbot_dev"],
        cwd=user,
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert missing.returncode == 1
    assert "No module named 'evalbot_dev'" in missing.stderr


def copy_examples(user: Path) -> None:
    shutil.copytree(REPO_ROOT / "examples" / "model-good", user / "model")
    shutil.copytree(REPO_ROOT / "examples" / "benchmarks", user / "benchmarks")


def test_validate_a_model_folder(venv: Path, user: Path) -> None:
    copy_examples(user)
    done = run(venv, user, "validate", "model", "--benchmarks", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 errors" in done.stdout


def test_fix_a_copy_of_the_broken_example(venv: Path, user: Path) -> None:
    """`validate --fix` from the wheel, in an empty folder: what has one right answer is fixed,
    comments stay, and what is left needs a person (no finding left carries a fix)."""
    shutil.copytree(REPO_ROOT / "examples" / "model-broken", user / "model")
    shutil.copytree(REPO_ROOT / "examples" / "benchmarks", user / "benchmarks")
    args = ("validate", "model", "--benchmarks", "benchmarks", "--fix", "--format", "json")
    done = run(venv, user, *args)
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    left = [
        diagnostic
        for file in report["files"]
        for item in (file, *file["entries"])
        for diagnostic in item["diagnostics"]
    ]
    assert len(left) == 10
    assert all(diagnostic["fix"] is None for diagnostic in left)
    assert "Fixed 5 finding(s)" in done.stderr
    gpqa = (user / "model" / ".eval_results" / "gpqa.yaml").read_text()
    assert "    task_id: diamond             # GPQA's tasks are diamond, main" in gpqa
    assert '  notes: "on"                    # `on` is the boolean true' in gpqa


def test_collections_list_shows_the_system_collections(venv: Path, user: Path) -> None:
    done = run(venv, user, "collections", "list")
    assert done.returncode == 0, done.stderr
    assert "leaderboard-v2" in done.stdout
    assert "frontier-reasoning-v1" in done.stdout
    assert f"system collections: {venv.resolve()}" in done.stderr


def test_gate_on_the_leaderboard_collection(venv: Path, user: Path) -> None:
    copy_examples(user)
    args = ("gate", "--collection", "leaderboard-v2", "model", "--benchmarks", "benchmarks")
    done = run(venv, user, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout
    assert "collection `leaderboard-v2`: " in done.stderr


def test_convert_a_real_lm_eval_output_with_the_shipped_table(venv: Path, user: Path) -> None:
    copy_examples(user)
    shutil.copy(LM_EVAL, user / LM_EVAL.name)
    done = run(venv, user, "convert", LM_EVAL.name, "--benchmarks", "benchmarks")
    assert done.returncode == 0, done.stderr
    assert "id: openai/gsm8k" in done.stdout
    assert f"mapping table: {venv.resolve()}" in done.stderr


def test_submit_dry_run_offline_needs_no_issuer_nor_hub(venv: Path, user: Path) -> None:
    """A framework author's first try of `evalbot submit`: an lm-eval output, benchmarks from a
    folder, no issuer and no Hub (`HF_HUB_OFFLINE=1`): the proposal, saying that main's file
    was not read."""
    copy_examples(user)
    shutil.copy(LM_EVAL, user / LM_EVAL.name)
    args = ("submit", LM_EVAL.name, "--benchmarks", "benchmarks", "--dry-run")
    done = run(venv, user, *args, "--model-repo", "alice/model", "--model-revision", "a" * 40)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# .eval_results/gsm8k.yaml: only the entries this submission")
    assert "id: openai/gsm8k" in done.stdout
    assert "HF_HUB_OFFLINE is set: main's .eval_results/gsm8k.yaml was not read" in done.stderr


def test_check_mappings_checks_the_shipped_table(venv: Path, user: Path) -> None:
    copy_examples(user)
    done = run(venv, user, "convert", "--check-mappings", "--benchmarks", "benchmarks")
    assert done.returncode == 0, done.stderr
    rows = re.search(r": (\d+) mapping rows: 0 problems", done.stderr)
    assert rows is not None, done.stderr
    assert int(rows.group(1)) > 0


def test_convert_a_real_inspect_ai_log_with_a_row_of_ones_own(venv: Path, user: Path) -> None:
    copy_examples(user)
    (user / "benchmarks" / "cais" / "mmlu").mkdir(parents=True)
    (user / "benchmarks" / "cais" / "mmlu" / "eval.yaml").write_text(SMOKE_EVAL_YAML)
    (user / "rows.yaml").write_text(INSPECT_ROW)
    shutil.copy(INSPECT, user / INSPECT.name)
    args = ("convert", INSPECT.name, "--benchmarks", "benchmarks", "--mappings", "rows.yaml")
    done = run(venv, user, *args)
    assert done.returncode == 0, done.stderr
    assert "id: cais/mmlu" in done.stdout


def test_convert_to_an_eee_datastore_and_validate_it(venv: Path, user: Path) -> None:
    """The round trip a contributor to an Every Eval Ever datastore makes: a real inspect-ai
    log (with its samples) written as datastore files, then checked as a datastore folder and
    against a checkout of the datastore's main (the fixtures' real records)."""
    copy_examples(user)
    (user / "benchmarks" / "cais" / "mmlu").mkdir(parents=True)
    (user / "benchmarks" / "cais" / "mmlu" / "eval.yaml").write_text(SMOKE_EVAL_YAML)
    (user / "rows.yaml").write_text(INSPECT_ROW)
    shutil.copy(INSPECT, user / INSPECT.name)
    shutil.copytree(
        SAMPLES / "real-world" / "every_eval_ever" / "datastore" / "pass", user / "main"
    )
    args = ["convert", "--to", "eee", INSPECT.name, "--model-repo", "openai/gpt-4o"]
    args += ["--benchmarks", "benchmarks", "--mappings", "rows.yaml", "--out", "converted"]
    done = run(venv, user, *args)
    assert done.returncode == 0, done.stderr
    converted = user / "converted"
    written = sorted(p.relative_to(converted).as_posix() for p in converted.rglob("*.json*"))
    assert len(written) == 2, written
    assert written[0].startswith("data/cais_mmlu/openai/gpt-4o/")
    assert written[1] == written[0].removesuffix(".json") + "_samples.jsonl"
    done = run(venv, user, "validate", "converted")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 files, 1 EEE record: 0 errors, 0 warnings" in done.stdout
    done = run(venv, user, "validate", "converted", "--against", "main")
    assert done.returncode == 0, done.stdout + done.stderr


def test_web_help(venv: Path, user: Path) -> None:
    done = run(venv, user, "web", "--help")
    assert done.returncode == 0, done.stderr
    assert "usage: evalbot web" in done.stdout


@pytest.fixture(scope="module")
def issuer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerEnv]:
    with issuer_env(tmp_path_factory.mktemp("issuer")) as started:
        yield started


def test_submit_dry_run_against_the_emulator(venv: Path, user: Path, issuer: IssuerEnv) -> None:
    """A CI job's `evalbot submit --dry-run`: the file it would propose, merged with the
    repo's main on the emulator, is printed; nothing is opened."""
    (user / "results.yaml").write_text(results_yaml(issuer))
    before = len(issuer.hub.state.find_repo("model", MODEL).discussions)
    env = issuer.oidc.actions_environment() | {
        "HF_ENDPOINT": issuer.hub.url,
        "HF_HUB_OFFLINE": "0",
        "HF_TOKEN": TOKENS["bob"],
        "EVALBOT_ISSUER_URL": issuer.issuer.url,
    }
    done = run(venv, user, "submit", "results.yaml", "--model-repo", MODEL, "--dry-run", env=env)
    assert done.returncode == 0, done.stderr + issuer.issuer.logs()
    assert done.stdout.startswith("# .eval_results/")
    assert "verify_token: " in done.stdout
    assert len(issuer.hub.state.find_repo("model", MODEL).discussions) == before


def test_submit_with_no_hf_token_reads_the_hub_through_trusted_publishers(
    venv: Path, user: Path, issuer: IssuerEnv
) -> None:
    """The model owner's job: no HF_TOKEN, the workflow registered on the model repo; the
    installed evalbot exchanges the job's ID token at the Hub for a repo-scoped token."""
    from evalbot_dev.emulator import publishers

    hub = issuer.hub
    publishers.trust_issuer(hub.state, issuer.oidc.url, issuer.oidc.jwks_url)
    claims = issuer.oidc.workflow.claims()
    publishers.register_publisher(
        hub.state, "model", MODEL, issuer=issuer.oidc.url, claims={"sub": claims["sub"]}
    )
    (user / "results.yaml").write_text(results_yaml(issuer))
    env = issuer.oidc.actions_environment() | {
        "HF_ENDPOINT": hub.url,
        "HF_HUB_OFFLINE": "0",
        "EVALBOT_ISSUER_URL": issuer.issuer.url,
    }
    done = run(venv, user, "submit", "results.yaml", "--model-repo", MODEL, "--dry-run", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# .eval_results/")
    scoped = [token.repo_scope for token in hub.state.tokens.values() if token.repo_scope]
    assert scoped == [("model", MODEL)]


def results_yaml(issuer: IssuerEnv) -> str:
    entry = issuer.entry()
    return (
        "- dataset:\n"
        f"    id: {HLE}\n"
        "    task_id: hle\n"
        f'    revision: "{entry["dataset"]["revision"]}"\n'
        f'  model_revision: "{entry["model_revision"]}"\n'
        "  framework: {name: lighteval, version: 0.9.2}\n"
        "  metrics:\n"
        "    - {metric_id: accuracy, value: 41.5}\n"
    )


def test_the_pre_commit_hook_runs_from_the_installed_package(venv: Path, user: Path) -> None:
    """The hook's `entry` with the file names pre-commit would pass (those its `files`
    pattern matches), run by the installed evalbot, as a `repo: local` hook with
    `additional_dependencies: [evalbot==X]` runs it."""
    import yaml

    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = [hook for hook in hooks if hook["id"] == "evalbot-validate"]
    copy_examples(user)
    staged = [
        path.relative_to(user / "model").as_posix()
        for path in sorted((user / "model").rglob("*"))
        if path.is_file() and re.search(hook["files"], path.relative_to(user / "model").as_posix())
    ]
    assert len(staged) == 4
    command, *entry_args = hook["entry"].split()
    assert command == "evalbot"
    done = subprocess.run(
        [str(venv / "bin" / command), *entry_args, "--benchmarks", "../benchmarks", *staged],
        cwd=user / "model",
        env={"PATH": os.environ.get("PATH", ""), "HF_HUB_OFFLINE": "1", "HOME": str(user)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 files, 5 entries: 0 errors" in done.stdout


def test_every_installed_module_imports_without_the_checkout(venv: Path, user: Path) -> None:
    """Each module of the installed packages imports in the fresh virtualenv: none needs a
    development tool, a test helper or a file of the checkout."""
    script = (
        "import importlib, pkgutil, bot, workers\n"
        "names = [m.name for p in (bot, workers)"
        " for m in pkgutil.walk_packages(p.__path__, p.__name__ + '.')"
        " if not m.name.endswith('__main__')]\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "print(len(names))\n"
    )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script],
        cwd=user,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(user)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) > 150


def test_benchmarks_read_once_online_validate_offline(venv: Path, user: Path) -> None:
    """No `examples/benchmarks` in a user's folder: the first run reads the benchmark from the
    Hub into the Hugging Face cache, and a run on a train (HF_HUB_OFFLINE=1) reads it there; a
    cold cache offline names the missing benchmark."""
    from tests.support.emulator import GPQA_FIXED, running_emulator

    (user / "model" / ".eval_results").mkdir(parents=True)
    (user / "model" / ".eval_results" / "gpqa.yaml").write_text(GPQA_FIXED)
    cold = run(venv, user, "validate", "model", env={"HF_HOME": str(user / "cold")})
    assert cold.returncode == 2, cold.stdout + cold.stderr
    assert "offline: emulator-samples/gpqa-mini is not in the Hugging Face cache" in cold.stderr
    with running_emulator() as hub:
        online = {"HF_ENDPOINT": hub.url, "HF_HUB_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "1"}
        warmed = run(venv, user, "validate", "model", env=online)
        assert warmed.returncode == 0, warmed.stdout + warmed.stderr
    offline = run(venv, user, "validate", "model")
    assert offline.returncode == 0, offline.stdout + offline.stderr
    assert offline.stdout == warmed.stdout
