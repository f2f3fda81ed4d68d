"""Which PR `evalbot submit` opens or updates, end to end: a simulated GitHub Actions job runs
the real CLI against the real issuer (uvicorn, Redis) and the Hub emulator.

One PR per model repo and set of results: two jobs for two tasks of one benchmark open two
PRs, and each re-run updates its own; `--pr-key` makes it one PR per key; a PR opened before
the marker existed (found by its title then) is adopted, not duplicated.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from huggingface_hub import CommitOperationAdd, DiscussionComment, HfApi

from bot.validation.yamlload import load_yaml
from evalbot_dev.devstack.issuer import run_ci_job
from tests.integration.issuer.conftest import HLE, TWO_TASKS, IssuerEnv
from tests.support.emulator import MODEL, TOKENS

pytestmark = pytest.mark.integration

TWO_TASKS_PATH = ".eval_results/two_tasks.yaml"


def results(env: IssuerEnv, benchmark: str, task_id: str, value: float, notes: str = "") -> str:
    sha = HfApi(endpoint=env.hub.url, token=False).dataset_info(benchmark).sha
    return (
        "- dataset:\n"
        f"    id: {benchmark}\n"
        f"    task_id: {task_id}\n"
        f'    revision: "{sha}"\n'
        f'  model_revision: "{env.model_sha}"\n'
        "  framework:\n"
        "    name: lighteval\n"
        '    version: "0.9.2"\n'
        "  metrics:\n"
        f"    - metric_id: accuracy\n      value: {value}\n"
        + (f"  notes: {notes}\n" if notes else "")
    )


def job(env: IssuerEnv, work: Path, text: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """One CI job: `evalbot submit` of `text` with the job's OIDC identity, bob's HF_TOKEN."""
    path = work / "results.yaml"
    path.write_text(text)
    return run_ci_job(
        env.issuer,
        env.oidc,
        hub_url=env.hub.url,
        hf_token=TOKENS["bob"],
        results=path,
        model_repo=MODEL,
        extra=extra,
    )


def outcome(env: IssuerEnv, ran: subprocess.CompletedProcess[str]) -> tuple[str, int]:
    """("opened" or "updated", the PR number) a successful job printed."""
    assert ran.returncode == 0, ran.stderr + env.issuer.logs()
    verb, url = ran.stdout.split()
    return verb, int(url.rsplit("/", 1)[-1])


def pr_count(env: IssuerEnv) -> int:
    return len(env.hub.state.find_repo("model", MODEL).discussions)


def pr_file(env: IssuerEnv, num: int, path: str) -> str:
    repo = env.hub.state.find_repo("model", MODEL)
    return repo.blobs[repo.commits[repo.pr_refs[num]].files[path]].decode()


def description(env: IssuerEnv, num: int) -> str:
    details = HfApi(endpoint=env.hub.url, token=TOKENS["bob"]).get_discussion_details(MODEL, num)
    first = details.events[0]
    assert isinstance(first, DiscussionComment)
    return first.content


def test_two_tasks_of_one_benchmark_open_two_prs_and_reruns_update_each(
    env: IssuerEnv, tmp_path: Path
) -> None:
    before = pr_count(env)
    alpha = outcome(env, job(env, tmp_path, results(env, TWO_TASKS, "alpha", 61.0)))
    beta = outcome(env, job(env, tmp_path, results(env, TWO_TASKS, "beta", 72.0)))
    assert alpha[0] == beta[0] == "opened"
    assert alpha[1] != beta[1]
    assert pr_count(env) == before + 2
    title = env.hub.state.find_repo("model", MODEL).discussions[alpha[1]].title
    assert title == f"Evaluation results: {TWO_TASKS} [alpha]"
    assert "<!-- evalbot-submit: " in description(env, alpha[1])

    alpha_again = outcome(env, job(env, tmp_path, results(env, TWO_TASKS, "alpha", 61.5)))
    beta_again = outcome(env, job(env, tmp_path, results(env, TWO_TASKS, "beta", 72.5)))
    assert alpha_again == ("updated", alpha[1])
    assert beta_again == ("updated", beta[1])
    assert pr_count(env) == before + 2
    for num, task_id, value in ((alpha[1], "alpha", 61.5), (beta[1], "beta", 72.5)):
        (entry,) = load_yaml(pr_file(env, num, TWO_TASKS_PATH).encode()).data
        assert entry["dataset"]["task_id"] == task_id
        assert entry["metrics"][0]["value"] == value


def test_one_pr_per_pr_key_whatever_it_holds(env: IssuerEnv, tmp_path: Path) -> None:
    key = ("--pr-key", "nightly-two-tasks")
    first = outcome(env, job(env, tmp_path, results(env, TWO_TASKS, "alpha", 10.0, "k"), *key))
    second = outcome(env, job(env, tmp_path, results(env, TWO_TASKS, "beta", 20.0, "k"), *key))
    assert first[0] == "opened"
    assert second == ("updated", first[1])
    (entry,) = load_yaml(pr_file(env, first[1], TWO_TASKS_PATH).encode()).data
    assert entry["dataset"]["task_id"] == "beta"
    # Without the key, the same results are another submission: their own PR.
    third = outcome(env, job(env, tmp_path, results(env, TWO_TASKS, "beta", 20.0, "k")))
    assert third[0] == "opened"
    assert third[1] != first[1]


def test_a_pr_opened_under_the_old_title_is_adopted_once(env: IssuerEnv, tmp_path: Path) -> None:
    api = HfApi(endpoint=env.hub.url, token=TOKENS["bob"])
    old = api.create_commit(
        repo_id=MODEL,
        operations=[CommitOperationAdd(".eval_results/hle_mini.yaml", b"[]\n")],
        commit_message=f"Evaluation results: {HLE}",
        commit_description="1 evaluation result(s), opened by an earlier evalbot submit.",
        create_pr=True,
    )
    assert old.pr_num is not None
    legacy = old.pr_num
    adopted = outcome(env, job(env, tmp_path, results(env, HLE, "hle", 33.0, "old run")))
    assert adopted == ("updated", legacy)
    assert "<!-- evalbot-submit: " in description(env, legacy)
    assert "value: 33.0" in pr_file(env, legacy, ".eval_results/hle_mini.yaml")
    # Adopted, it now belongs to those results: other results of that benchmark get their own.
    other = outcome(env, job(env, tmp_path, results(env, HLE, "hle", 34.0, "new run")))
    assert other[0] == "opened"
    again = outcome(env, job(env, tmp_path, results(env, HLE, "hle", 33.5, "old run")))
    assert again == ("updated", legacy)
