"""The whole chain with real processes: a simulated CI job (GitHub Actions OIDC from the local
provider) runs `evalbot submit` -> `evalbot issuer` under uvicorn -> a PR on the Hub emulator
-> the real bot stack (receiver, Celery worker) fetches the issuer's JWKS and marks it ✅."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import jwt
import pytest

from bot.issuer.audit import read_audit
from bot.tokens.claims import entry_digest
from bot.validation.yamlload import load_yaml
from evalbot_dev.devstack.issuer import IssuerProcess, run_ci_job
from evalbot_dev.devstack.oidc import LocalOidcProvider
from tests.support.emulator import MODEL, ORG_MODEL, TOKENS
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


#: The frameworks the CI workflow is registered for (and the bot trusts the issuer for).
FRAMEWORKS = ["lighteval", "lm-eval"]


def ci_integration(oidc: LocalOidcProvider) -> dict[str, object]:
    return {
        "name": "acme-evals",
        "frameworks": FRAMEWORKS,
        "identities": [
            {
                "provider": "github",
                "claims": oidc.pinned_claims("repository", "workflow_ref", "environment"),
            }
        ],
        "benchmarks": ["*"],
        "models": ["alice/*", "evals-org/*"],
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
            integrations=[ci_integration(oidc)],
            frameworks=FRAMEWORKS,
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


def run_job(
    chain: Chain, results: Path, *extra: str, model_repo: str = MODEL
) -> subprocess.CompletedProcess[str]:
    """The simulated CI job: `evalbot submit` with the job's OIDC variables, bob's HF_TOKEN."""
    return run_ci_job(
        chain.issuer,
        chain.oidc,
        hub_url=chain.bot.stack.hub.url,
        hf_token=TOKENS["bob"],
        results=results,
        model_repo=model_repo,
        extra=extra,
    )


def submit(chain: Chain, results: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """The job with a results YAML of `results`."""
    path = chain.work / "results.yaml"
    path.write_text(results)
    return run_job(chain, path, *extra)


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


SAMPLES = Path(__file__).resolve().parents[2] / "samples"
#: A real lm-eval run (tests/samples/real-world/README.md): two MATH variants, 0.0 and 0.0004,
#: and test mapping rows that send both to the emulator's hle-mini.
LM_EVAL_RUN = SAMPLES / "real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"
LM_EVAL_ROWS = SAMPLES / "convert/mappings/lm-eval-math-to-hle-mini.yaml"


def test_an_lm_eval_output_is_converted_signed_and_verified(chain: Chain) -> None:
    """`lm_eval ... && evalbot submit results.json`: the converter's entries (values scaled
    to percent in decimal), each signed by the issuer over exactly what the PR file holds."""
    output = chain.work / LM_EVAL_RUN.name
    output.write_bytes(LM_EVAL_RUN.read_bytes())

    def run() -> subprocess.CompletedProcess[str]:
        return run_job(chain, output, "--mappings", str(LM_EVAL_ROWS), model_repo=ORG_MODEL)

    job = run()
    assert job.returncode == 0, job.stderr + chain.issuer.logs()
    assert job.stdout.startswith("opened ")
    num = pr_number(job.stdout)
    hub = chain.bot.stack.hub
    repo = hub.state.find_repo("model", ORG_MODEL)
    head = repo.pr_refs[num]
    report = chain.bot.wait_for_report(num, head=head, repo_id=ORG_MODEL)
    assert report.content.count("✅ verified") == 2, report.content  # one per entry
    assert "2 verified" in report.content, report.content

    text = repo.blobs[repo.commits[head].files[PATH]].decode()
    assert "value: 0.04\n" in text  # 0.0004 as a percent, the source's digits
    entries = load_yaml(text.encode()).data
    assert [entry["notes"] for entry in entries] == [
        "lm-eval math_perturbed_full",
        "lm-eval math_rephrased_full",
    ]
    benchmark_sha = chain.bot.api("bob").dataset_info(BENCHMARK).sha
    for entry in entries:
        assert entry["framework"] == {"name": "lm-eval", "version": "0.4.9.2"}
        assert entry["dataset"]["revision"] == benchmark_sha  # pinned by submit
        assert entry["model_revision"] == "82047f5e5d5245c1b3a4cd75ad98aa441d6487cd"  # the run's
        claims = jwt.decode(entry["verify_token"], options={"verify_signature": False})
        assert claims["digest"] == entry_digest(entry)  # what was signed is what is written
    assert [entry["metrics"][0]["value"] for entry in entries] == [0.0, 0.04]

    again = run()  # a re-run of the job updates its PR
    assert again.returncode == 0, again.stderr
    assert again.stdout == f"updated {job.stdout.removeprefix('opened ')}"
    rerun_head = hub.state.find_repo("model", ORG_MODEL).pr_refs[num]
    report = chain.bot.wait_for_report(num, head=rerun_head, repo_id=ORG_MODEL)
    assert "2 verified" in report.content, report.content


def one_task(run: dict[str, object], task: str) -> dict[str, object]:
    """The run cut to one of its tasks: what lm-eval writes when the job runs that task alone."""
    cut = dict(run)
    for key in ("results", "configs", "versions", "n-shot", "higher_is_better", "n-samples"):
        section = run.get(key)
        if isinstance(section, dict):
            cut[key] = {name: value for name, value in section.items() if name == task}
    cut["group_subtasks"] = {}
    cut["task_hashes"] = {}
    return cut


def test_two_outputs_of_one_job_make_one_pr_the_bot_verifies(chain: Chain) -> None:
    """`evalbot submit out/*/results_*.json` matching two files: one PR on the model repo with
    the entries of both, each converted as `evalbot convert` would, each verified."""
    import json

    run = json.loads(LM_EVAL_RUN.read_text())
    outputs = []
    for task in ("math_perturbed_full", "math_rephrased_full"):
        folder = chain.work / "out" / task
        folder.mkdir(parents=True)
        outputs.append(folder / LM_EVAL_RUN.name)
        outputs[-1].write_text(json.dumps(one_task(run, task)))
    hub = chain.bot.stack.hub
    before = len(hub.state.find_repo("model", ORG_MODEL).discussions)
    job = run_ci_job(
        chain.issuer,
        chain.oidc,
        hub_url=hub.url,
        hf_token=TOKENS["bob"],
        results=outputs,
        model_repo=ORG_MODEL,
        extra=("--mappings", str(LM_EVAL_ROWS), "--pr-key", "two-outputs"),
    )
    assert job.returncode == 0, job.stderr + chain.issuer.logs()
    assert job.stdout.startswith("opened ")
    repo = hub.state.find_repo("model", ORG_MODEL)
    assert len(repo.discussions) == before + 1
    num = pr_number(job.stdout)
    head = repo.pr_refs[num]
    text = repo.blobs[repo.commits[head].files[PATH]].decode()
    notes = [entry["notes"] for entry in load_yaml(text.encode()).data]
    assert notes == ["lm-eval math_perturbed_full", "lm-eval math_rephrased_full"]
    report = chain.bot.wait_for_report(num, head=head, repo_id=ORG_MODEL)
    assert "2 verified" in report.content, report.content


def test_a_job_with_no_hf_token_opens_its_pr_through_trusted_publishers(chain: Chain) -> None:
    """The model owner's own workflow, `permissions: id-token: write` and nothing else: the
    job's ID token gets the verify token from the issuer, and, exchanged at the Hub for a token
    scoped to the model repo (the workflow is registered on it), opens the PR. No HF_TOKEN
    anywhere in the job's environment; the bot marks the result verified."""
    from evalbot_dev.emulator import publishers

    hub = chain.bot.stack.hub
    publishers.trust_issuer(hub.state, chain.oidc.url, chain.oidc.jwks_url)
    claims = chain.oidc.workflow.claims()
    publishers.register_publisher(
        hub.state,
        "model",
        MODEL,
        issuer=chain.oidc.url,
        claims={"repository": claims["repository"], "workflow_ref": claims["workflow_ref"]},
    )
    path = chain.work / "trusted.yaml"
    path.write_text(results_yaml(chain, 63.5))
    job = run_ci_job(
        chain.issuer,
        chain.oidc,
        hub_url=hub.url,
        hf_token=None,
        results=path,
        model_repo=MODEL,
        extra=("--pr-key", "trusted-publishers"),
    )
    assert job.returncode == 0, job.stderr + chain.issuer.logs()
    assert job.stdout.startswith("opened ")
    num = pr_number(job.stdout)
    repo = hub.state.find_repo("model", MODEL)
    assert repo.discussions[num].author == "alice"  # the token acts for the repo's namespace
    used = [token for token in hub.state.tokens.values() if token.repo_scope is not None]
    assert [token.repo_scope for token in used] == [("model", MODEL)]
    report = chain.bot.wait_for_report(num, head=repo.pr_refs[num])
    assert "✅ verified" in report.content, report.content


def test_a_workflow_not_registered_on_the_repo_is_refused_by_the_hub(chain: Chain) -> None:
    hub = chain.bot.stack.hub
    path = chain.work / "unregistered.yaml"
    path.write_text(results_yaml(chain, 12.5))
    before = len(hub.state.find_repo("model", ORG_MODEL).discussions)
    job = run_ci_job(
        chain.issuer,
        chain.oidc,
        hub_url=hub.url,
        hf_token=None,
        results=path,
        model_repo=ORG_MODEL,
    )
    assert job.returncode == 1
    assert "the Hub refused the Trusted Publishers token exchange for evals-org/team-model" in (
        job.stderr
    )
    assert "register this workflow as a trusted publisher" in job.stderr
    assert len(hub.state.find_repo("model", ORG_MODEL).discussions) == before
