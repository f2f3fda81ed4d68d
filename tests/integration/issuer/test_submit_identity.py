"""Which identity `evalbot submit` shows the issuer, end to end: the real CLI (its own process)
against the real issuer (uvicorn, Redis) and the Hub emulator, with the environment a CI job
of each kind has.

The job's `HF_TOKEN` (a write token: it opens the PR) never reaches the issuer; a Hub token is
sent only from the variable `--hub-identity` names, and only a read-only one; OAuth client
credentials work; a dry run leaves a single-use ID token unspent.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from huggingface_hub import HfApi

from bot.issuer.audit import read_audit
from evalbot_dev.devstack.environment import inherited_environment
from tests.integration.issuer.conftest import (
    CLIENT_ID,
    CLIENT_SECRET,
    HLE,
    IssuerEnv,
    issuer_env,
)
from tests.support.emulator import MODEL, TOKENS

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerEnv]:
    with issuer_env(tmp_path_factory.mktemp("submit-identity")) as started:
        yield started


def results(env: IssuerEnv, work: Path) -> Path:
    sha = HfApi(endpoint=env.hub.url, token=False).dataset_info(HLE).sha
    path = work / "results.yaml"
    path.write_text(
        "- dataset:\n"
        f"    id: {HLE}\n"
        "    task_id: hle\n"
        f'    revision: "{sha}"\n'
        f'  model_revision: "{env.model_sha}"\n'
        "  framework:\n    name: lighteval\n"
        "  metrics:\n    - metric_id: accuracy\n      value: 33.5\n"
    )
    return path


def job(
    env: IssuerEnv, work: Path, variables: Mapping[str, str], *extra: str
) -> subprocess.CompletedProcess[str]:
    """`evalbot submit` in a job whose environment holds `variables` (and bob's HF_TOKEN,
    which opens the PR), outside GitHub Actions."""
    environment = inherited_environment()
    environment.update(
        {
            "HF_ENDPOINT": env.hub.url,
            "HF_TOKEN": TOKENS["bob"],
            "HF_HOME": str(work / "hf-home"),
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "EVALBOT_ISSUER_URL": env.issuer.url,
            **variables,
        }
    )
    command = ["submit", str(results(env, work)), "--model-repo", MODEL, *extra]
    return subprocess.run(
        [sys.executable, "-m", "bot", *command],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def audit_size(env: IssuerEnv) -> int:
    return len(read_audit(env.issuer.audit_log))


def test_without_an_identity_the_write_token_is_not_sent_and_the_fix_is_named(
    env: IssuerEnv, tmp_path: Path
) -> None:
    """HF_TOKEN used to be sent to the issuer when the job had no OIDC identity."""
    before = audit_size(env)
    ran = job(env, tmp_path, {})
    assert ran.returncode == 1, ran.stdout
    assert "permissions: id-token: write" in ran.stderr
    assert "--hub-identity" in ran.stderr
    assert audit_size(env) == before  # the issuer heard nothing


def test_a_hub_identity_that_can_write_is_refused_before_the_issuer(
    env: IssuerEnv, tmp_path: Path
) -> None:
    before = audit_size(env)
    ran = job(env, tmp_path, {}, "--hub-identity", "HF_TOKEN")
    assert ran.returncode == 1
    assert "the token in HF_TOKEN can write" in ran.stderr
    assert TOKENS["bob"] not in ran.stderr
    assert audit_size(env) == before


def test_a_read_token_named_by_the_flag_or_the_setting_identifies_the_job(
    env: IssuerEnv, tmp_path: Path
) -> None:
    """The issuer accepts a read token; submit sends it, and only it."""
    read = {"ISSUER_IDENTITY": TOKENS["alice-read"]}
    ran = job(env, tmp_path, read, "--hub-identity", "ISSUER_IDENTITY", "--pr-key", "flag")
    assert ran.returncode == 0, ran.stderr + env.issuer.logs()
    assert ran.stdout.startswith("opened ")
    assert read_audit(env.issuer.audit_log)[-1]["identity"] == "hub:alice"
    # Only the option names it: a variable naming it is not read, and the job, with no
    # identity, is told to pass the option.
    setting = {**read, "EVALBOT_HUB_IDENTITY": "ISSUER_IDENTITY"}
    again = job(env, tmp_path, setting, "--pr-key", "setting")
    assert again.returncode != 0
    assert "--hub-identity" in again.stderr


def test_oauth_client_credentials_identify_the_job(env: IssuerEnv, tmp_path: Path) -> None:
    """docs/frameworks.md offered them; submit could not use them."""
    client = {"EVALBOT_CLIENT_ID": CLIENT_ID, "EVALBOT_CLIENT_SECRET": CLIENT_SECRET}
    ran = job(env, tmp_path, client, "--pr-key", "client")
    assert ran.returncode == 0, ran.stderr + env.issuer.logs()
    assert read_audit(env.issuer.audit_log)[-1]["identity"] == f"client:{CLIENT_ID}"
    wrong = job(env, tmp_path, {**client, "EVALBOT_CLIENT_SECRET": "evs_wrong"}, "--pr-key", "x")
    assert wrong.returncode == 1
    assert "Authentication failed" in wrong.stderr
    assert "evs_wrong" not in wrong.stderr


def test_a_dry_run_leaves_a_single_use_id_token_for_the_real_run(
    env: IssuerEnv, tmp_path: Path
) -> None:
    """A GitLab job gets one ID token; the dry run used to spend it (`id-token-reused`)."""
    gitlab_job = {"EVALBOT_ID_TOKEN": env.id_token()}
    before = audit_size(env)
    dry = job(env, tmp_path, gitlab_job, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert 'verify_token: "<issued by the issuer when submitted>"' in dry.stdout
    assert audit_size(env) == before
    real = job(env, tmp_path, gitlab_job, "--pr-key", "gitlab")
    assert real.returncode == 0, real.stderr + env.issuer.logs()
    assert real.stdout.startswith("opened ")
