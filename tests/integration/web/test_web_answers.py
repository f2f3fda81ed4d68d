"""What the pages answer, over HTTP against a real Redis and the Hub emulator: a browser's CRLF
paste, an eval.yaml's own report, a framework output converted, a model unknown to the Hub,
unknown addresses, the workers' state without a worker, the charts' axes, and the PR history
(problems, title, author, one row per head, lookup by any spelling or a pasted Hub URL) with
its details page."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import redis
from huggingface_hub import HfApi
from starlette.testclient import TestClient

from bot.adapters.collections_store import StoredCollection
from bot.collections.model import Scope
from bot.convert.mapping import parse_mappings
from bot.hub.client import HfHubClient
from bot.report.counts import Counts
from bot.store.history import record_verdict
from bot.store.verdicts import verdict_of
from bot.store.worker_counters import read_snapshot
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import (
    Benchmark,
    Dialect,
    EntryReport,
    FileReport,
    ResultEntry,
    TaskDef,
    Verification,
    VerificationStatus,
)
from bot.web.app import create_web_app
from bot.web.live import record_sample
from evalbot_dev.emulator.server import EmulatorServer
from tests.integration.web.test_web_routes import SAME_ORIGIN, context_for, hub, store
from tests.support.emulator import GPQA_FIXED, MINI_GATE, TOKENS

__all__ = ["hub", "store"]

pytestmark = pytest.mark.integration

REAL = Path(__file__).parents[2] / "samples" / "real-world"
LM_EVAL = REAL / "lm-eval" / "results_2026-01-21T03-44-18.458309.json"
#: One of the two tasks of the real lm-eval output, mapped onto the dataset it ran on, which
#: the test serves as a benchmark from the emulator.
MATH = "stellaathena/math_rephrased_full"
MAPPING = (
    b"mappings:\n"
    b'  - {framework: lm-eval, task: math_rephrased_full, metric: "exact_match,none",'
    b" benchmark: stellaathena/math_rephrased_full, task_id: default, scale: percent}\n"
    b"  - {framework: eee, task: demo-source.demo_bench, metric: accuracy,"
    b" benchmark: emulator-samples/gpqa-mini, task_id: diamond, scale: fraction}\n"
)
#: A real Every Eval Ever record (schema 0.3.0), its one result mapped above.
EEE = REAL / "every_eval_ever" / "demo_f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"


@pytest.fixture
def web(hub: EmulatorServer, store: redis.Redis, tmp_path: Path) -> Iterator[TestClient]:
    eval_yaml = b"name: MATH rephrased\ndescription: x\ntasks:\n  - id: default\n"
    hub.state.seed_repo("dataset", MATH, {"eval.yaml": eval_yaml}, tags=[hub.state.benchmark_tag])
    (tmp_path / "mini-gate.yaml").write_text(MINI_GATE)
    gate = StoredCollection("mini-gate", Scope.USER, tmp_path / "mini-gate.yaml")
    context = context_for(
        hub,
        store,
        mappings=parse_mappings("mappings.yaml", MAPPING),
        collections={gate.id: gate},
        results_reader=HfHubClient(HfApi(endpoint=hub.url, token=TOKENS["evalbot"])),
    )
    with TestClient(create_web_app(context)) as client:
        yield client


def paste(web: TestClient, text: str, kind: str = "results", **fields: str) -> Any:
    files = {"content": (None, text), "kind": (None, kind)}
    files.update({name: (None, value) for name, value in fields.items()})
    return web.post("/playground", files=files, headers=SAME_ORIGIN)


def test_a_browsers_crlf_paste_is_named_after_its_benchmark(web: TestClient) -> None:
    response = paste(web, GPQA_FIXED.replace("\n", "\r\n"))
    assert response.status_code == 200
    assert ".eval_results/gpqa_mini.yaml" in response.text
    assert "FILE-NAME" not in response.text
    assert "No errors" in response.text


def test_the_result_takes_the_focus_and_names_the_verdict_in_the_title(web: TestClient) -> None:
    page = paste(web, GPQA_FIXED).text
    assert 'action="/playground#result"' in page
    assert '<section id="result" tabindex="-1" autofocus aria-labelledby="verdict">' in page
    assert "<title>No errors · Playground" in page


def test_a_valid_eval_yaml_gets_its_own_report(web: TestClient) -> None:
    eval_yaml = "name: X\ndescription: y\ntasks:\n  - id: main\n  - id: hard\n"
    page = paste(web, eval_yaml, kind="benchmark").text
    assert "No entries could be read" not in page
    assert "What this eval.yaml declares" in page
    assert "<code>main</code>, <code>hard</code>" in page
    assert 'id="comment"' not in page  # the bot comments on results, not on a benchmark


def test_an_lm_eval_output_is_converted_and_checked(web: TestClient) -> None:
    page = paste(web, LM_EVAL.read_text(encoding="utf-8")).text
    assert "rename" not in page.lower()
    assert "Read as <b>lm-eval</b> output" in page
    assert "<code>.eval_results/math_rephrased_full.yaml</code>" in page
    assert "id: stellaathena/math_rephrased_full" in page  # the entry it becomes, shown
    assert "math_perturbed_full" in page  # the unmapped task, with the row to add
    assert "No errors" in page


def test_an_every_eval_ever_record_is_converted_and_checked(web: TestClient) -> None:
    page = paste(web, EEE.read_text(encoding="utf-8")).text
    assert "Read as <b>eee</b> output" in page
    assert "<code>.eval_results/gpqa_mini.yaml</code>" in page
    assert "value: 0.75" in page  # the entry it becomes
    assert "No errors" in page


def test_an_uploaded_archive_is_read_as_an_output_and_not_sent_back(web: TestClient) -> None:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("header.json", "{}")
    files: dict[str, tuple[str | None, bytes | str]] = {
        "upload": ("run.eval", buffer.getvalue()),
        "kind": (None, "results"),
    }
    page = web.post("/playground", files=files, headers=SAME_ORIGIN).text
    assert "Not converted" in page
    assert "run.eval: not an inspect-ai eval log" in page  # read by the inspect-ai converter
    textarea = page.split('<textarea id="content"', 1)[1].split("</textarea>", 1)[0]
    assert textarea.endswith(">")  # empty: the archive's bytes are not echoed as text


def test_an_output_no_converter_reads_says_so(web: TestClient) -> None:
    page = paste(web, '{"hello": "world"}').text
    assert "Not converted" in page
    assert "an output format evalbot can read" in page


def test_an_unknown_model_is_a_404_not_a_hub_outage(web: TestClient) -> None:
    response = web.get("/collections/mini-gate", params={"model": "alice/no-such-model"})
    assert response.status_code == 404
    assert "No such model" in response.text


def test_a_failed_standing_says_why(web: TestClient) -> None:
    page = web.get("/collections/mini-gate", params={"model": "alice/model"}).text
    assert "does not pass" in page
    reasons = page.split('id="reasons"', 1)[1].split("</ul>", 1)[0]
    assert "emulator-samples/hle-mini / hle / accuracy has no result" in reasons


def test_unknown_addresses_get_an_html_page(web: TestClient) -> None:
    response = web.get("/no/such/page")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    assert '<html lang="en">' in page
    assert "<title>Not found" in page
    assert "<main>" in page
    assert "<h1>Not found</h1>" in page
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert web.delete("/playground").status_code == 405


def test_no_heartbeat_is_no_worker_not_a_green_idle(web: TestClient) -> None:
    page = web.get("/").text
    live = page.split('id="live"', 1)[0].rsplit("<p", 1)[1]
    assert "live-none" in live
    assert "no worker alive" in page
    assert "idle" not in page


def test_one_sample_draws_on_an_hour_wide_axis(web: TestClient, store: redis.Redis) -> None:
    record_sample(store, read_snapshot(store, "evalbot"), interval_s=1)
    page = web.get("/status").text
    chart = page.split('<figure class="chart">', 1)[1].split("</figure>", 1)[0]
    assert "<circle" in chart
    assert "-60 min" in chart
    assert ">now<" in chart
    assert ">0<" in chart


def verdict(
    head: str,
    at: int,
    *,
    title: str = "Add GPQA <script>x</script>",
    state: str = "open",
    verified: bool = False,
) -> Any:
    problem = Diagnostic(
        "TASK-UNKNOWN",
        Severity.ERROR,
        "task_id 'Diamond' is not a task of emulator-samples/gpqa-mini",
        line=3,
        hint="use one of: diamond",
    )
    entry = EntryReport(
        ResultEntry(
            index=0,
            line=1,
            data={"value": 43.1},
            dialect=Dialect.LIVE,
            dataset_id="emulator-samples/gpqa-mini",
            task_id="diamond",
        ),
        benchmark=Benchmark("emulator-samples/gpqa-mini", (TaskDef("diamond"),)),
        verification=Verification(
            VerificationStatus.VERIFIED if verified else VerificationStatus.UNVERIFIED,
            None if verified else "token-expired",
        ),
    )
    report = FileReport(".eval_results/gpqa_mini.yaml", "results", [], [entry])
    if not verified:
        entry.diagnostics.append(problem)
    counts = Counts(1, 1, 0, 0, 0, 0) if verified else Counts(1, 0, 0, 1, 1, 0)
    return verdict_of(
        head * 40,
        "posted",
        state,
        counts,
        datetime(2026, 11, 24, 10, at, tzinfo=UTC),
        reports=[report],
        title=title,
        author="bob",
    )


def test_pr_history_keeps_problems_title_author_and_one_row_per_head(
    web: TestClient, store: redis.Redis
) -> None:
    record(store, "Alice/Model", 7, verdict("a", 1))
    record(store, "Alice/Model", 7, verdict("a", 2))  # a recheck of the same head
    page = web.get("/history/Alice/Model").text
    section = page.split('id="pr-7"', 1)[1]
    assert "Add GPQA &lt;script&gt;x&lt;/script&gt;" in section
    assert "<script>x" not in page
    assert "by bob" in section
    assert "<code>TASK-UNKNOWN</code>" in section
    assert section.split("<tbody>", 1)[1].split("</tbody>", 1)[0].count("<tr") == 1


def test_lookup_ignores_case_and_takes_a_pasted_hub_url(
    web: TestClient, store: redis.Redis
) -> None:
    record(store, "Alice/Model", 7, verdict("a", 1))
    for typed, where in [
        ("alice/model", "/history/Alice/Model"),
        ("https://huggingface.co/alice/MODEL", "/history/Alice/Model"),
        ("https://huggingface.co/alice/model/discussions/7", "/pr/Alice/Model/7"),
    ]:
        answer = web.get("/history", params={"repo": typed}, follow_redirects=False)
        assert answer.status_code == 303, typed
        assert answer.headers["location"] == where, typed
    moved = web.get("/history/alice/model", follow_redirects=False)
    assert moved.headers["location"] == "/history/Alice/Model"
    # A dataset's address names it as the history does (a datastore's PRs: datasets/<repo>).
    dataset = web.get(
        "/history", params={"repo": "https://huggingface.co/datasets/a/b"}, follow_redirects=False
    )
    assert dataset.headers["location"] == "/history/datasets/a/b"
    spaces = web.get("/history", params={"repo": "https://huggingface.co/spaces/a/b"})
    assert spaces.status_code == 400


def test_the_details_page_shows_each_push_with_its_problems_and_tokens(
    web: TestClient, store: redis.Redis
) -> None:
    record(store, "alice/model", 9, verdict("a", 1))
    record(store, "alice/model", 9, verdict("b", 2))
    response = web.get("/pr/alice/model/9")
    assert response.status_code == 200
    page = response.text
    assert "Add GPQA &lt;script&gt;x&lt;/script&gt;" in page
    assert "opened by <b>bob</b>" in page
    assert page.count('class="push"') == 2
    for text in (
        "<code>TASK-UNKNOWN</code>",
        "<code>.eval_results/gpqa_mini.yaml</code>",
        "<td>3</td>",
        "task_id &#39;Diamond&#39; is not a task",
        "<b>Fix:</b> use one of: diamond",
        "<code>token-expired</code>",
    ):
        assert text in page, text
    assert web.get("/pr/alice/model/10").status_code == 404
    assert web.get("/pr/alice/model/x").status_code == 404


#: What the workers record of a repo's visibility on the Hub (`workers.model_history`).
VISIBILITY = {"bob/secret-model": "private"}


def record(store: redis.Redis, repo_id: str, num: int, verdict: Any) -> None:
    """As the workers record a verdict: with the repo's visibility on the Hub."""
    record_verdict(store, repo_id, num, verdict, visibility=VISIBILITY.get(repo_id, "public"))


def seed_private(hub: EmulatorServer, store: redis.Redis) -> None:
    hub.state.seed_repo("model", "bob/secret-model", {"README.md": b"# secret\n"}, private=True)
    record(store, "bob/secret-model", 1, verdict("c", 1, state="merged", verified=True))


def test_the_badge_counts_merged_results_and_hides_private_repos(
    web: TestClient, hub: EmulatorServer, store: redis.Redis
) -> None:
    record(store, "alice/model", 1, verdict("a", 1, state="merged", verified=True))
    record(store, "alice/model", 2, verdict("b", 2, state="open"))  # not merged: no
    seed_private(hub, store)
    badge = web.get("/badge/alice/model.svg")
    assert badge.status_code == 200
    assert badge.headers["content-type"].startswith("image/svg+xml")
    assert badge.headers["cache-control"] == "public, max-age=300"
    assert "evals: 1 verified" in badge.text
    again = web.get("/badge/alice/model.svg", headers={"if-none-match": badge.headers["etag"]})
    assert again.status_code == 304
    one = web.get("/badge/alice/model.svg", params={"benchmark": "emulator-samples/gpqa-mini"})
    assert "gpqa-mini: 43.1 · verified" in one.text
    hidden = web.get("/badge/bob/secret-model.svg")
    never = web.get("/badge/bob/never-checked.svg")
    assert hidden.status_code == never.status_code == 404
    assert hidden.text == never.text  # nothing tells a private repo from no repo
    assert "verified" not in hidden.text


def test_the_json_api_answers_what_the_pages_show(
    web: TestClient, hub: EmulatorServer, store: redis.Redis
) -> None:
    record(store, "alice/model", 9, verdict("a", 1))
    seed_private(hub, store)
    listing = web.get("/api/v1/repos/alice/model/prs")
    assert listing.status_code == 200
    assert listing.headers["cache-control"] == "public, max-age=60"
    [pr] = listing.json()["prs"]
    assert pr["num"] == 9
    assert pr["title"] == "Add GPQA <script>x</script>"  # JSON: the consumer escapes
    assert pr["author"] == "bob"
    assert pr["pushes"] == 1
    listed = pr["newest"]  # the list: the newest verdict's counts and first problem
    assert listed["ok"] is False
    assert listed["first_problem"] == "TASK-UNKNOWN"
    assert listed["problems_total"] == 1
    [pushed] = web.get("/api/v1/repos/alice/model/prs/9").json()["verdicts"]  # in full
    assert pushed["problems"][0]["fix"] == "use one of: diamond"
    assert pushed["problems"][0]["line"] == 3
    assert pushed["tokens"][0]["reason"] == "token-expired"
    assert pushed["entries"][0]["value"] == "43.1"
    assert web.get("/api/v1/repos/alice/model/prs/10").status_code == 404
    assert web.get("/api/v1/repos/bob/secret-model/prs").status_code == 404
    assert web.get("/api/v1/repos/bob/secret-model/prs/1").status_code == 404
    record(store, "alice/model", 8, verdict("c", 3, verified=True))  # a valid result: indexed
    results = web.get("/api/v1/benchmarks/emulator-samples/gpqa-mini/results").json()
    assert [r["repo_id"] for r in results["results"]] == ["alice/model"]  # not bob's secret
    standing = web.get("/api/v1/collections/mini-gate/standing", params={"model": "alice/model"})
    assert standing.status_code == 200
    assert standing.json()["passed"] is False
    assert any("missing" in reason for reason in standing.json()["reasons"])
    secret = web.get("/api/v1/collections/mini-gate/standing", params={"model": "bob/secret-model"})
    assert secret.status_code == 404


def test_a_benchmarks_page_lists_the_results_checked_for_it(
    web: TestClient, hub: EmulatorServer, store: redis.Redis
) -> None:
    record(store, "alice/model", 4, verdict("a", 1, state="merged", verified=True))
    seed_private(hub, store)
    page = web.get("/benchmarks/emulator-samples/gpqa-mini").text
    table = page.split('id="results"', 1)[1].split("</table>", 1)[0]
    assert "alice/model" in table
    assert "<code>diamond</code>" in table
    assert "43.1" in table
    assert 'class="badge badge-verified"' in table
    assert 'href="/pr/alice/model/4"' in table
    assert "secret" not in page
    assert "emulator-samples/gpqa-mini" in web.get("/benchmarks").text
    record(store, "alice/model", 6, verdict("b", 2))  # an entry with errors: no badge
    assert 'href="/pr/alice/model/6"' not in web.get("/benchmarks/emulator-samples/gpqa-mini").text


def test_a_private_repos_details_page_is_not_found(
    web: TestClient, hub: EmulatorServer, store: redis.Redis
) -> None:
    seed_private(hub, store)
    secret = web.get("/collections/mini-gate", params={"model": "bob/secret-model"})
    unknown = web.get("/collections/mini-gate", params={"model": "bob/no-such-model"})
    assert secret.status_code == unknown.status_code == 404
    assert "No such model" in secret.text
    hidden = web.get("/pr/bob/secret-model/1")
    never = web.get("/pr/bob/secret-model/2")  # a PR the bot never checked
    assert hidden.status_code == never.status_code == 404
    assert hidden.text.replace("#1", "#2") == never.text  # the same answer: nothing told


def test_a_recheck_in_the_same_second_shows_its_own_details(
    web: TestClient, store: redis.Redis
) -> None:
    """A merge's run follows the last push's within the second: same head, same time; the
    newest verdict (merged) must keep its own state, not take the older one's."""
    record(store, "alice/model", 5, verdict("a", 1))
    record(store, "alice/model", 5, verdict("a", 1, state="merged", verified=True))
    page = web.get("/pr/alice/model/5").text
    assert '<span class="state state-merged">merged</span>' in page
    assert page.count('class="push"') == 1
    assert "TASK-UNKNOWN" not in page  # the older verdict's problem is not shown as the newest
