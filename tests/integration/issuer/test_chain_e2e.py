"""The whole chain with real processes: a simulated CI job (GitHub Actions OIDC from the local
provider) runs `evalbot submit` -> `evalbot issuer` under uvicorn -> a PR on the Hub emulator
-> the real bot stack (receiver, Celery worker) fetches the issuer's JWKS and marks it ✅."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.devstack.issuer import IssuerProcess, run_ci_job
from bot.devstack.oidc import LocalOidcProvider
from bot.issuer.audit import read_audit
from tests.support.emulator import MODEL, TOKENS
from tests.support.stackbot import Bot, push, running_bot

pytestmark = pytest.mark.integration

BENCHMARK = "emulator-samples/hle-mini"
PATH = ".eval_results/hle_mini.yaml"


@dataclass
class Chain:
    bot: Bot
    oidc: LocalOidcProvider
    issuer: IssuerProcess
    work: Path


def lighteval_integration(oidc: LocalOidcProvider) -> dict[str, object]:
    return {
        "name": "acme-lighteval",
        "frameworks": ["lighteval"],
        "identities": [
            {
                "provider": "github",
                "claims": {
                    "repository": oidc.workflow.repository,
                    "workflow_ref": oidc.workflow.claims()["workflow_ref"],
                    "environment": "release",
                },
            }
        ],
        "models": ["alice/*"],
    }


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chain]:
    work = tmp_path_factory.mktemp("chain")
    with LocalOidcProvider() as oidc:
        issuer = IssuerProcess(
            work / "issuer",
            hub_url="",
            redis_url="",
            providers=[oidc.provider_config()],
            integrations=[lighteval_integration(oidc)],
            frameworks=["lighteval"],
        )
        with running_bot(work / "stack", issuer_config=issuer.bot_config()) as bot:
            issuer.hub_url, issuer.redis_url = bot.stack.hub.url, bot.stack.redis_url
            with issuer:
                yield Chain(bot, oidc, issuer, work)


def results_yaml(chain: Chain, accuracy: float) -> str:
    api = chain.bot.api("bob")
    model_sha = api.model_info(MODEL).sha
    benchmark_sha = api.dataset_info(BENCHMARK).sha
    return (
        "- dataset:\n"
        f"    id: {BENCHMARK}\n"
        "    task_id: hle\n"
        f'    revision: "{benchmark_sha}"\n'
        f'  model_revision: "{model_sha}"\n'
        "  framework:\n"
        "    name: lighteval\n"
        '    version: "0.9.2"\n'
        "  metrics:\n"
        f"    - metric_id: accuracy\n      value: {accuracy}\n"
        '  date: "2026-11-24"\n'
    )


def submit(chain: Chain, results: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """The simulated CI job: `evalbot submit` with the job's OIDC variables, bob's HF_TOKEN."""
    path = chain.work / "results.yaml"
    path.write_text(results)
    return run_ci_job(
        chain.issuer,
        chain.oidc,
        hub_url=chain.bot.stack.hub.url,
        hf_token=TOKENS["bob"],
        results=path,
        model_repo=MODEL,
        extra=extra,
    )


def pr_number(output: str) -> int:
    return int(output.strip().rsplit("/", 1)[-1])


def test_submit_opens_a_pr_the_bot_marks_verified_and_a_rerun_updates_it(chain: Chain) -> None:
    job = submit(chain, results_yaml(chain, 41.5))
    assert job.returncode == 0, job.stderr + chain.issuer.logs()
    assert job.stdout.startswith("opened ")
    num = pr_number(job.stdout)
    hub = chain.bot.stack.hub
    head = hub.state.find_repo("model", MODEL).pr_refs[num]
    report = chain.bot.wait_for_report(num, head=head)
    assert "✅ verified" in report.content, report.content
    assert "1 verified" in report.content

    audit = read_audit(chain.issuer.audit_log)
    issued = [line for line in audit if line["decision"] == "issued"]
    assert issued[-1]["identity"].startswith("github:repo:acme/evals")
    assert issued[-1]["model"] == MODEL
    assert issued[-1]["benchmark"] == BENCHMARK
    assert "verify_token" not in str(audit)

    # The same file edited after signing: still shown, unverified, with its reason.
    proposed = hub.state.find_repo("model", MODEL)
    signed = proposed.blobs[proposed.commits[head].files[PATH]].decode()
    edited = signed.replace('date: "2026-11-24"', 'date: "2026-11-25"')
    assert edited != signed
    edited_head = push(chain.bot, num, PATH, edited)
    report = chain.bot.wait_for_report(num, head=edited_head)
    assert "✅ verified" not in report.content
    assert "digest-mismatch" in report.content

    # A second run of the job updates the same PR (fresh tokens) instead of opening another.
    before = len(hub.state.find_repo("model", MODEL).discussions)
    again = submit(chain, results_yaml(chain, 41.5))
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("updated ")
    assert pr_number(again.stdout) == num
    assert len(hub.state.find_repo("model", MODEL).discussions) == before
    rerun_head = hub.state.find_repo("model", MODEL).pr_refs[num]
    assert rerun_head != edited_head
    report = chain.bot.wait_for_report(num, head=rerun_head)
    assert "✅ verified" in report.content
    assert len(chain.bot.bot_comments(num)) == 1


def test_dry_run_prints_the_merged_file_and_opens_nothing(chain: Chain) -> None:
    hub = chain.bot.stack.hub
    before = len(hub.state.find_repo("model", MODEL).discussions)
    job = submit(chain, results_yaml(chain, 12.25), "--dry-run")
    assert job.returncode == 0, job.stderr
    assert job.stdout.startswith(f"# {PATH}\n")
    assert "verify_token: " in job.stdout
    assert "value: 12.25" in job.stdout
    assert len(hub.state.find_repo("model", MODEL).discussions) == before
