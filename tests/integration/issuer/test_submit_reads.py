"""`evalbot submit` when the Hub fails a read and answers the commit: no PR is opened.

A CI job runs the real CLI against the real issuer, with `HF_ENDPOINT` pointing at a loopback
proxy in front of the Hub emulator that drops one kind of request (its connection closed
unanswered: the Hub unreachable for that read) and passes the others, the commit included.
Main's results file was read with `hf_hub_download`, whose "the Hub could not be reached"
(`LocalEntryNotFoundError`) was taken for "main has no such file": the job then opened a PR
replacing main's file with only its new entries, exit 0. A framework output whose benchmark
commit could not be read ended in a 60-line `httpx2` traceback. Now each stops with one line
naming the Hub and the fix, exit 2, and nothing is written.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from huggingface_hub import CommitOperationAdd, HfApi

from bot.validation.yamlload import load_yaml
from evalbot_dev.devstack.issuer import run_ci_job
from tests.integration.issuer.conftest import HLE, IssuerEnv
from tests.support.delay_proxy import DelayProxy, running_delay_proxy
from tests.support.emulator import MODEL, TOKENS

pytestmark = pytest.mark.integration

PATH = ".eval_results/hle_mini.yaml"
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
#: A real lm-eval run, and test rows that map its two MATH variants to the emulator's hle-mini.
LM_EVAL_RUN = SAMPLES / "real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"
LM_EVAL_ROWS = SAMPLES / "convert/mappings/lm-eval-math-to-hle-mini.yaml"
BENCHMARKS = Path(__file__).resolve().parents[3] / "evalbot_dev/emulator/samples/benchmarks"
#: A request line the proxy drops: main's results file, or the benchmark's commit.
FILE_READ = b"/resolve/"
BENCHMARK_READ = b"/api/datasets/"


@pytest.fixture(scope="module")
def proxy(env: IssuerEnv) -> Iterator[DelayProxy]:
    with running_delay_proxy(urlsplit(env.hub.url).port or 80) as started:
        yield started


@pytest.fixture(autouse=True)
def passes_everything(proxy: DelayProxy) -> Iterator[None]:
    proxy.drop_requests(None)
    yield
    proxy.drop_requests(None)


def hub_url(proxy: DelayProxy) -> str:
    return f"http://127.0.0.1:{proxy.port}"


def put_on_main(env: IssuerEnv, notes: str) -> None:
    """Main's results file for hle-mini holds one entry, noted `notes` (alice's commit)."""
    text = (
        f'- dataset:\n    id: {HLE}\n    task_id: hle\n    revision: "{env.hle_sha}"\n'
        f"  value: 12.5\n  notes: {notes}\n"
    )
    HfApi(endpoint=env.hub.url, token=TOKENS["alice"]).create_commit(
        MODEL, [CommitOperationAdd(PATH, text.encode())], commit_message=f"Results: {notes}"
    )


def results(env: IssuerEnv, notes: str) -> str:
    return (
        f'- dataset:\n    id: {HLE}\n    task_id: hle\n    revision: "{env.hle_sha}"\n'
        f'  model_revision: "{env.model_sha}"\n'
        "  framework: {name: lighteval, version: 0.9.2}\n"
        "  metrics:\n    - {metric_id: accuracy, value: 41.5}\n"
        f"  notes: {notes}\n"
    )


def job(
    env: IssuerEnv, proxy: DelayProxy, output: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    """The CI job: `evalbot submit OUTPUT` with the job's OIDC identity and bob's HF_TOKEN,
    its Hub through the proxy."""
    return run_ci_job(
        env.issuer,
        env.oidc,
        hub_url=hub_url(proxy),
        hf_token=TOKENS["bob"],
        results=output,
        model_repo=MODEL,
        extra=extra,
    )


def pr_count(env: IssuerEnv) -> int:
    return len(env.hub.state.find_repo("model", MODEL).discussions)


def pr_file(env: IssuerEnv, num: int) -> str:
    repo = env.hub.state.find_repo("model", MODEL)
    return repo.blobs[repo.commits[repo.pr_refs[num]].files[PATH]].decode()


def assert_stopped_in_one_line(ran: subprocess.CompletedProcess[str], proxy: DelayProxy) -> str:
    """Exit 2, no traceback, the last line of stderr naming the Hub and the fix; that line."""
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stderr, ran.stderr
    last = ran.stderr.strip().splitlines()[-1]
    assert last.startswith("evalbot submit: "), ran.stderr
    assert f"the Hub at {hub_url(proxy)} is unavailable" in last
    assert "retry, or check HF_ENDPOINT" in last
    assert proxy.dropped, "the fault never happened"
    return last


@pytest.mark.parametrize("answer", [503, None], ids=["503", "dropped"])
def test_a_read_that_fails_opens_no_pr_that_would_replace_mains_file(
    env: IssuerEnv, proxy: DelayProxy, tmp_path: Path, answer: int | None
) -> None:
    """A 503 for the read was `LocalEntryNotFoundError` after the library's retries (25 s),
    read as "no file": the PR held only the new entry. A dropped one was a traceback."""
    put_on_main(env, "on main")
    output = tmp_path / "results.yaml"
    output.write_text(results(env, f"this job {answer}"))
    before = pr_count(env)
    proxy.drop_requests(FILE_READ, answer=answer)
    stopped = job(env, proxy, output)
    line = assert_stopped_in_one_line(stopped, proxy)
    assert stopped.stderr.strip() == line  # the whole output: one line
    assert line.startswith(f"evalbot submit: cannot read {PATH} on {MODEL} main: ")
    assert "nothing was written" in line
    assert pr_count(env) == before

    proxy.drop_requests(None)  # the Hub back: the same job opens the PR, main's entry kept
    done = job(env, proxy, output)
    assert done.returncode == 0, done.stderr + env.issuer.logs()
    num = int(done.stdout.strip().rsplit("/", 1)[-1])
    notes = [entry["notes"] for entry in load_yaml(pr_file(env, num).encode()).data]
    assert notes == ["on main", f"this job {answer}"]


def test_a_stale_cached_copy_of_main_is_never_merged_into(
    env: IssuerEnv, proxy: DelayProxy, tmp_path: Path
) -> None:
    """The job's dry run read main (and `hf_hub_download` cached it); main gained an entry;
    the real run's read fails: the library fell back on the cached copy, and the PR would
    have dropped the entry main gained."""
    put_on_main(env, "old")
    output = tmp_path / "results.yaml"
    output.write_text(results(env, "stale check"))
    dry = job(env, proxy, output, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "notes: old" in dry.stdout
    put_on_main(env, "newer")
    before = pr_count(env)
    proxy.drop_requests(FILE_READ, answer=503)
    assert_stopped_in_one_line(job(env, proxy, output), proxy)
    assert pr_count(env) == before


@pytest.mark.parametrize(
    ("dropped", "offline_benchmarks"),
    [(FILE_READ, True), (BENCHMARK_READ, True), (BENCHMARK_READ, False)],
    ids=["main-file", "benchmark-commit", "benchmarks-from-the-hub"],
)
def test_a_framework_output_stops_in_one_line_and_opens_no_pr(
    env: IssuerEnv, proxy: DelayProxy, tmp_path: Path, dropped: bytes, offline_benchmarks: bool
) -> None:
    put_on_main(env, f"before lm-eval, {dropped.decode()} dropped")
    output = tmp_path / LM_EVAL_RUN.name
    output.write_bytes(LM_EVAL_RUN.read_bytes())
    extra = ["--mappings", str(LM_EVAL_ROWS)]
    if offline_benchmarks:
        extra += ["--benchmarks", str(BENCHMARKS)]
    before = pr_count(env)
    proxy.drop_requests(dropped)
    assert_stopped_in_one_line(job(env, proxy, output, *extra), proxy)
    assert pr_count(env) == before
