"""The user jobs and the server commands, run by an installed evalbot from a folder outside the
checkout, on both installs.

`.ci/installed-smoke` runs the release recipe (evalbot_dev/release.py), which builds the wheel
and installs it twice, each in a fresh virtualenv: `EVALBOT_INSTALLED_VENV` is the user install
(`pip install evalbot`: the user lock), `EVALBOT_SERVER_VENV` the server one
(`evalbot[server]`: the server lock); `EVALBOT_RELEASE_DIR` holds the recipe's `dist/` and its
copy of the changelog. Every command here is a virtualenv's `evalbot`, started in an empty
folder with no `PYTHONPATH`: what it needs (collections, mapping table, configuration,
templates) must come from the wheel. The Hub emulator, Redis, the OIDC provider and the issuer
are the checkout's development tools: they play the world around the user, not the product
under test.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from evalbot_dev.devstack.environment import inherited_environment
from evalbot_dev.devstack.listening import ServerAddress
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from tests.conftest import REPO_ROOT
from tests.integration.issuer.conftest import HLE, IssuerEnv, issuer_env
from tests.support.emulator import MODEL, TOKENS
from tests.support.processes import bot_environment
from tests.unit.eee.helpers import DATASTORE

#: One xdist group: the module's virtualenv and issuer are started once (.ci/installed-smoke).
pytestmark = [pytest.mark.installed, pytest.mark.integration, pytest.mark.xdist_group("installed")]

VENV_VARIABLE = "EVALBOT_INSTALLED_VENV"
SERVER_VENV_VARIABLE = "EVALBOT_SERVER_VENV"
RELEASE_VARIABLE = "EVALBOT_RELEASE_DIR"
SERVER_INSTALL = "pip install 'evalbot[server]'"
#: What the user install must not hold: the bot's engine and web stack.
SERVER_LIBRARIES = ("celery", "kombu", "redis", "uvicorn", "starlette")
#: Each server command, as run with no settings (what runs it needs the server extra first).
SERVER_COMMANDS = [
    ("serve",),
    ("web",),
    ("playground",),
    ("worker",),
    ("beat",),
    ("status",),
    ("parked",),
    ("replay", "--all"),
    ("issuer",),
]
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
AIME = """\
- dataset:
    id: MathArena/aime_2026
    task_id: aime_2026
  framework:
    name: math-arena
    version: "0.3.1"
  metrics:
    - metric_id: accuracy
      value: 61.70
"""
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


def installed(variable: str) -> Path:
    chosen = os.environ.get(variable)
    if not chosen:
        pytest.fail(f"{variable} is not set: run .ci/installed-smoke, which sets it")
    folder = Path(chosen)
    if not (folder / "bin" / "evalbot").is_file():
        pytest.fail(f"{variable}={chosen}: no bin/evalbot there; is evalbot installed?")
    return folder


@pytest.fixture(scope="module")
def venv() -> Path:
    """The user install: `pip install evalbot`."""
    return installed(VENV_VARIABLE)


@pytest.fixture(scope="module")
def server_venv() -> Path:
    """The server install: `pip install 'evalbot[server]'`."""
    return installed(SERVER_VENV_VARIABLE)


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
    assert "Fixed 5 findings. Any finding still reported needs a person." in done.stderr
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
    pattern matches), run by the installed evalbot, as a `repo: local` hook with evalbot in
    its `additional_dependencies` runs it."""
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


def distributions(venv: Path) -> set[str]:
    """The names of the distributions installed in `venv`, as its own Python sees them."""
    script = (
        "import importlib.metadata as m\n"
        "print('\\n'.join(d.metadata['Name'].lower() for d in m.distributions()))\n"
    )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script],
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(done.stdout.split())


def test_the_user_install_holds_nothing_of_the_server(venv: Path, server_venv: Path) -> None:
    user, server = distributions(venv), distributions(server_venv)
    assert "evalbot" in user
    assert user.isdisjoint(SERVER_LIBRARIES), sorted(user)
    assert set(SERVER_LIBRARIES) <= server
    assert user < server


@pytest.mark.parametrize("command", SERVER_COMMANDS, ids=" ".join)
def test_a_server_command_on_the_user_install_names_the_extra(
    venv: Path, user: Path, command: tuple[str, ...]
) -> None:
    done = run(venv, user, *command)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"evalbot {command[0]}: this command needs the server extra (")
    assert line.endswith(f"not installed): {SERVER_INSTALL}")


def test_the_space_supervisor_on_the_user_install_names_the_extra(venv: Path, user: Path) -> None:
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "bot.supervise"],
        cwd=user,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(user)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.endswith(f"not installed): {SERVER_INSTALL}\n")
    assert "Traceback" not in done.stderr


def test_the_issuers_helpers_run_on_the_user_install(venv: Path, user: Path) -> None:
    done = run(venv, user, "issuer", "client-secret")
    assert done.returncode == 0, done.stderr
    assert "client_secret_sha256: " in done.stdout


def test_a_framework_authors_offline_flow_on_the_user_install(venv: Path, user: Path) -> None:
    """keys generate -> token claims -> token sign -> validate: the token verified, offline."""
    copy_examples(user)
    done = run(venv, user, "keys", "generate", "--kid", "k1", "--out-private", "k1.pem")
    assert done.returncode == 0, done.stderr
    issuer = "https://tokens.example.org"
    entry = {"issuer": issuer, "keys": [json.loads(done.stdout)], "frameworks": ["math-arena"]}
    (user / "issuers.yaml").write_text(json.dumps({"issuers": [entry]}))
    results = user / "repo" / ".eval_results" / "aime_2026.yaml"
    results.parent.mkdir(parents=True)
    results.write_text(AIME)
    claims = run(
        venv, user, "token", "claims", "repo/.eval_results/aime_2026.yaml",
        "--model-repo", "alice/m", "--benchmarks", "benchmarks",
    )  # fmt: skip
    assert claims.returncode == 0, claims.stderr
    (user / "claims.json").write_text(claims.stdout)
    token = run(
        venv, user, "token", "sign", "--key", "k1.pem", "--issuer", issuer,
        "--kid", "k1", "--claims", "claims.json",
    )  # fmt: skip
    assert token.returncode == 0, token.stderr
    results.write_text(AIME + f"  verify_token: {token.stdout.strip()}\n")
    done = run(
        venv, user, "validate", "repo", "--benchmarks", "benchmarks", "--issuers",
        "issuers.yaml", "--model-repo", "alice/m", "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = json.loads(done.stdout)["files"][0]["entries"]
    assert entry["verification"] == {"status": "verified", "reason": None}


def test_the_other_user_commands_run_on_the_user_install(venv: Path, user: Path) -> None:
    copy_examples(user)
    shutil.copytree(DATASTORE, user / "datastore")
    jobs = [
        (("frameworks", "list"), "inspect-ai"),
        (("collections", "show", "leaderboard-v2", "--benchmarks", "benchmarks"), "leaderboard"),
        (("collections", "validate", "--benchmarks", "benchmarks"), "leaderboard-v2 (system, "),
        (("eee", "impact", "--schema", "0.3.0", "datastore"), "0.3.0"),
        (("validate", "model", "--benchmarks", "benchmarks", "--format", "github"), ""),
    ]
    for command, shown in jobs:
        done = run(venv, user, *command)
        assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"
        assert shown in done.stdout + done.stderr, f"{command}: {done.stdout}{done.stderr}"


def test_every_installed_module_imports_on_the_server_install(
    server_venv: Path, user: Path
) -> None:
    """Each module of the installed packages imports in the server's virtualenv: none needs a
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
        [str(server_venv / "bin" / "python"), "-c", script],
        cwd=user,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(user)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) > 150


def test_the_server_commands_work_on_the_server_install(
    server_venv: Path, user: Path, redis_server: RedisServer
) -> None:
    """`evalbot serve` answers its health check and `evalbot status` reads the queue, both
    from the server install, against a real redis-server."""
    env = bot_environment(redis_server.url)
    for name in ("PYTHONPATH", "VIRTUAL_ENV"):
        env.pop(name, None)
    address = ServerAddress()
    listen, pass_fds = address.spawn_arguments()
    log = user / "serve.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [str(server_venv / "bin" / "evalbot"), "serve", *listen],
            cwd=user,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            pass_fds=pass_fds,
        )
    address.close()
    try:

        def healthy() -> bool:
            return httpx.get(f"{address.url}/healthz", timeout=1).status_code == 200

        wait_until(healthy, timeout=30, what="/healthz", process=server, log=log)
    finally:
        server.terminate()
        server.wait(timeout=15)
    status = subprocess.run(
        [str(server_venv / "bin" / "evalbot"), "status", "--json"],
        cwd=user,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "queue" in status.stdout, status.stdout + status.stderr
    assert "Traceback" not in status.stderr
    assert SERVER_INSTALL not in status.stderr


def release_dir() -> Path:
    """Where the release recipe wrote `dist/` and cut its copy of the changelog."""
    chosen = os.environ.get(RELEASE_VARIABLE)
    if not chosen:
        pytest.fail(f"{RELEASE_VARIABLE} is not set: run .ci/installed-smoke, which sets it")
    return Path(chosen)


def test_the_release_wrote_sums_that_verify(venv: Path) -> None:
    dist = release_dir() / "dist"
    names = sorted(path.name for path in dist.iterdir())
    wheel = next(name for name in names if name.endswith(".whl"))
    version = wheel.split("-")[1]
    assert names == [
        "SHA256SUMS",
        f"evalbot-{version}-py3-none-any.whl",
        f"evalbot-{version}.tar.gz",
    ]
    done = subprocess.run(
        ["sha256sum", "--check", "--strict", "SHA256SUMS"],
        cwd=dist,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": OK") == 2


def test_the_release_cut_the_changelogs_copy_only() -> None:
    version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
    released = (release_dir() / "CHANGELOG.md").read_text(encoding="utf-8")
    checkout = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = [line for line in released.splitlines() if line.startswith("## ")]
    assert headings[:2] == ["## Unreleased", f"## {version} - {datetime.date.today()}"]
    assert released.replace(f"## Unreleased\n\n{headings[1]}\n", "## Unreleased\n") == checkout
    assert not any(line.startswith(f"## {version} ") for line in checkout.splitlines())


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
